"""``tournament_cancel``: a tournament stopped early is ``cancelled`` with its reason, its
unfinished matches are aborted at once (no waiting for leases to expire), and a worker still
playing one of them can no longer record it."""

from __future__ import annotations

from typing import Any

import pytest

from arena.matches.leases import match_claim
from arena.matches.models import Match
from arena.matches.services import match_record_result
from arena.referee import GameRecord, MatchRecord
from arena.terminations import BAO_HAMNA
from tournaments import services
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def started(make_version: Any) -> Tournament:
    """A running round robin of four: six pending matches."""
    for name in ("alpha", "beta", "gamma", "delta"):
        make_version(name)
    t = services.tournament_create(
        name="Cup",
        variant="bao-la-kete",
        time_control="2+0.05",
        engines=["alpha", "beta", "gamma", "delta"],
    )
    assert services.tournament_start(t.pk)
    return t


def test_cancelling_aborts_the_unfinished_matches_and_keeps_the_finished_ones(
    started: Tournament,
) -> None:
    first, second, *_ = started.matches.order_by("id")
    Match.objects.filter(pk=first.pk).update(status="finished", score_a=2, score_b=0)
    claim = match_claim(second.pk, lease_seconds=900)  # a worker is playing it
    assert claim is not None

    assert services.tournament_cancel(started.pk, reason="demo interrupted (SIGINT)") == 5
    started.refresh_from_db()
    assert (started.status, started.cancel_reason) == ("cancelled", "demo interrupted (SIGINT)")
    assert started.finished_at is not None
    rows = list(started.matches.order_by("id").values_list("status", "error", "lease_token"))
    assert rows[0] == ("finished", "", "")
    assert rows[1:] == [("aborted", "tournament cancelled: demo interrupted (SIGINT)", "")] * 5

    won = GameRecord(
        index=1,
        south="a",
        north="b",
        start_position="",
        result="1-0",
        winner="a",
        termination=BAO_HAMNA,
    )
    record = MatchRecord(
        variant="bao-la-kete", seed=1, time_control="2+0.05", engines=["a", "b"], games=[won]
    )
    assert match_record_result(second.pk, claim.token, record) is False  # nothing recorded
    assert Match.objects.get(pk=second.pk).status == "aborted"
    assert match_claim(second.pk, lease_seconds=900) is None  # a queued task finds nothing


def test_cancelling_twice_or_a_finished_tournament_changes_nothing(started: Tournament) -> None:
    assert services.tournament_cancel(started.pk, reason="first") == 6
    assert services.tournament_cancel(started.pk, reason="second") == 0
    assert Tournament.objects.get(pk=started.pk).cancel_reason == "first"
    Tournament.objects.filter(pk=started.pk).update(status="finished", cancel_reason="")
    assert services.tournament_cancel(started.pk, reason="late") == 0
    assert Tournament.objects.get(pk=started.pk).status == "finished"
    assert services.tournament_cancel(999_999, reason="missing") == 0


def test_a_scheduled_tournament_is_cancelled_before_it_starts(make_version: Any) -> None:
    for name in ("alpha", "beta"):
        make_version(name)
    t = services.tournament_create(
        name="Later", variant="bao-la-kete", time_control="2+0.05", engines=["alpha", "beta"]
    )
    assert services.tournament_cancel(t.pk, reason="x" * 300) == 0
    t.refresh_from_db()
    assert (t.status, t.cancel_reason) == ("cancelled", "x" * 200)
    assert services.start_due_tournaments() == []  # beat no longer starts it
    assert not t.matches.exists()


def test_the_api_shows_a_cancelled_tournament_and_its_reason(
    started: Tournament, anon_client: Any
) -> None:
    services.tournament_cancel(started.pk, reason="maintenance")
    body = anon_client.get(f"/api/tournaments/{started.pk}/").json()
    assert (body["status"], body["cancel_reason"]) == ("cancelled", "maintenance")
    assert body["progress"]["matches_done"] == 6
    listed = anon_client.get("/api/tournaments/?status=cancelled").json()["results"]
    assert [t["id"] for t in listed] == [started.pk]
