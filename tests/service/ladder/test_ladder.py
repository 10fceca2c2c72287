"""The ladder service (ladder.services): who is on a ladder, the matches it makes,
and its API. The live worker slots are set by hand (``slots``); the end-to-end test with a real
worker is in test_ladder_e2e.py."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from arena.matches.models import Match
from engines.models import RatedPairing
from ladder import services as ladder_services
from ladder.models import LadderKeep, LadderMatch

pytestmark = pytest.mark.django_db


@pytest.fixture
def slots(monkeypatch: pytest.MonkeyPatch) -> Any:
    """``slots(n)``: the live workers offer ``n`` match slots."""
    from arena.matches import selectors

    def set_slots(n: int) -> None:
        monkeypatch.setattr(selectors, "live_slots", lambda: n)

    set_slots(4)
    return set_slots


@pytest.fixture(autouse=True)
def _no_broker(monkeypatch: pytest.MonkeyPatch) -> None:
    """Matches are created, not sent: no worker in these tests."""
    from arena.matches import services

    monkeypatch.setattr(services, "match_enqueue", lambda *a, **k: True)


def ladder_matches(variant: str = "bao-la-kete") -> list[tuple[str, str]]:
    return [
        (lm.match.engine_a.engine.name, lm.match.engine_b.engine.name)
        for lm in LadderMatch.objects.filter(variant=variant).select_related(
            "match__engine_a__engine", "match__engine_b__engine"
        )
    ]


def test_the_newest_active_version_of_each_engine_is_on_the_ladder(make_version: Any) -> None:
    old = make_version("alpha")
    new = make_version("alpha")
    make_version("alpha", status="rejected")
    beta = make_version("beta", variants=["bao-kingulu"])
    members = ladder_services.ladder_members("bao-la-kete")
    assert members == [new]
    assert ladder_services.ladder_members("bao-kingulu") == [new, beta]
    LadderKeep.objects.create(engine_version=old)
    assert ladder_services.ladder_members("bao-la-kete") == [old, new]


def test_an_engine_off_the_ladder_disabled_or_rated_only_in_own_events_is_not_on_it(
    make_version: Any,
) -> None:
    on = make_version("on")
    off = make_version("off")
    off.engine.consent_ladder = False
    off.engine.save()
    own = make_version("own")
    own.engine.consent_rated = RatedPairing.OWN_EVENTS
    own.engine.save()
    make_version("disabled", enabled=False)
    assert ladder_services.ladder_members("kete") == [on]


def test_fill_makes_rated_placement_matches_in_the_lowest_class_up_to_the_free_slots(
    make_version: Any, slots: Any
) -> None:
    for name in ("a", "b", "c", "d", "e", "f"):
        make_version(name)
    slots(2)
    created = ladder_services.ladder_fill("bao-la-kete")
    assert len(created) == 2
    for match in Match.objects.filter(pk__in=created):
        assert match.priority == Match.Priority.RATED_PLAY
        assert match.rated and match.start_suite == "balanced" and match.start_position
        assert match.time_control == "10+0.1"
        assert match.ladder_match.placement
    # The queue is full (2 slots, 2 matches waiting): nothing more until a slot frees.
    assert ladder_services.ladder_fill("bao-la-kete") == []
    slots(5)
    assert len(ladder_services.ladder_fill("bao-la-kete")) == 1  # 6 engines, 4 busy: 1 pair
    names = [n for pair in ladder_matches() for n in pair]
    assert len(names) == len(set(names)) == 6  # nobody plays two ladder matches at once


def test_an_engine_in_an_open_ladder_match_waits_and_aborted_matches_do_not_count(
    make_version: Any, slots: Any
) -> None:
    make_version("a")
    make_version("b")
    first = ladder_services.ladder_fill("kete")
    assert len(first) == 1
    assert ladder_services.ladder_fill("kete") == []  # both are busy
    Match.objects.filter(pk__in=first).update(status=Match.Status.ABORTED)
    state = ladder_services.ladder_state("kete")
    assert {e["engine"]: e["ladder_matches"] for e in state["engines"]} == {"a": 0, "b": 0}
    assert len(ladder_services.ladder_fill("kete")) == 1


def test_two_engines_of_one_owner_are_never_paired(make_version: Any, slots: Any) -> None:
    from django.contrib.auth import get_user_model

    a1, a2 = make_version("a1"), make_version("a2")
    owner = get_user_model().objects.create(username="one-owner")
    for version in (a1, a2):
        version.engine.owner = owner
        version.engine.save()
    assert ladder_services.ladder_fill("kete") == []
    make_version("b")
    created = ladder_services.ladder_fill("kete")
    assert len(created) == 1
    assert "b" in ladder_matches()[0]


def test_nothing_is_made_without_live_workers(make_version: Any, slots: Any) -> None:
    make_version("a")
    make_version("b")
    slots(0)
    assert ladder_services.ladder_fill("kete") == []


def test_the_api_shows_the_ladder_and_refuses_bad_variants(make_version: Any, slots: Any) -> None:
    make_version("a")
    make_version("b")
    ladder_services.ladder_fill("kete")
    client = APIClient()
    body = client.get("/api/ladder/?variant=kete").json()
    assert body["variant"] == "bao-la-kete"
    assert body["matches"] == {"queued": 1, "running": 0}
    assert body["slots"]["total"] == 4
    assert {e["engine"] for e in body["engines"]} == {"a", "b"}
    assert all(e["playing"] and e["placement_left"] == 2 for e in body["engines"])
    bad = client.get("/api/ladder/?variant=chess")
    assert (bad.status_code, bad.json()["error"]["code"]) == (400, "unknown_variant")
    missing = client.get("/api/ladder/")
    assert missing.status_code == 400


def test_only_the_owner_keeps_an_old_version_on_the_ladder(
    make_version: Any, alice_client: Any, alice: Any
) -> None:
    mine = make_version("mine")
    make_version("mine")
    mine.engine.owner = alice
    mine.engine.save()
    answer = alice_client.post(
        "/api/ladder/keep/", {"engine": "mine", "version": 1, "keep": True}, format="json"
    )
    assert answer.status_code == 200, answer.json()
    assert LadderKeep.objects.filter(engine_version=mine).exists()
    make_version("theirs")
    refused = alice_client.post(
        "/api/ladder/keep/", {"engine": "theirs", "version": 1, "keep": True}, format="json"
    )
    assert (refused.status_code, refused.json()["error"]["code"]) == (403, "engine_not_yours")
    missing = alice_client.post(
        "/api/ladder/keep/", {"engine": "mine", "version": 9, "keep": True}, format="json"
    )
    assert (missing.status_code, missing.json()["error"]["code"]) == (
        404,
        "engine_version_not_found",
    )  # the body names it: docs/api-errors.md, "Which not found"
    nobody = alice_client.post(
        "/api/ladder/keep/", {"engine": "nosuch", "version": 1, "keep": True}, format="json"
    )
    assert (nobody.status_code, nobody.json()["error"]["code"]) == (404, "engine_not_found")
    assert nobody.json()["error"]["details"] == {"engine": "nosuch"}
    anonymous = APIClient().post(
        "/api/ladder/keep/", {"engine": "mine", "version": 1, "keep": False}, format="json"
    )
    assert anonymous.status_code in (401, 403)


def test_nothing_is_made_while_the_ladder_is_switched_off(
    make_version: Any, slots: Any, settings: Any
) -> None:
    make_version("a")
    make_version("b")
    settings.BAO_LADDER_ENABLED = False
    assert ladder_services.ladder_fill("kete") == []
    settings.BAO_LADDER_ENABLED = True
    assert len(ladder_services.ladder_fill("kete")) == 1


def test_a_paused_ladder_makes_nothing_in_the_workers_path_and_the_api_says_so(
    make_version: Any, slots: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker tops the ladder up after every match (``ladder_match_ended`` sends the
    ``ladder_fill_all`` task); once paused, that path and beat's make nothing, whatever
    ``BAO_LADDER_ENABLED`` says in the process (``manage.py demo --ladder`` winds down so)."""
    from arena.matches.events import MatchEnded
    from ladder import tasks

    for name in ("a", "b", "c", "d"):
        make_version(name, variants=["bao-la-kete"])
    sent: list[tuple[str, ...]] = []

    class RunsAtOnce:  # the task as the worker would run it, in this process
        def apply_async(self, args: tuple[str, ...] = ()) -> None:
            sent.append(args)
            tasks.ladder_fill_all(*args)

    # Sent through the app, imported inside ladder_match_ended: patched where it lives.
    monkeypatch.setattr("arena.celery.registered_task", lambda name: RunsAtOnce())
    (first,) = ladder_services.ladder_fill("kete")[:1]
    slots(2)
    Match.objects.filter(pk=first).update(status=Match.Status.FINISHED)
    ladder_services.ladder_pause("kete")
    ended = MatchEnded(
        match_id=first, status=Match.Status.FINISHED, variant="bao-la-kete",
        tournament_id=None, rated=True, priority=Match.Priority.RATED_PLAY,
    )  # fmt: skip
    made = LadderMatch.objects.count()
    ladder_services.ladder_match_ended(ended)
    assert sent == [()]
    assert ladder_services.ladder_fill("kete") == []  # as the minute job would
    assert LadderMatch.objects.count() == made
    body = APIClient().get("/api/ladder/?variant=kete").json()
    assert body["enabled"] is False
    ladder_services.ladder_pause("kete", paused=False)
    assert APIClient().get("/api/ladder/?variant=kete").json()["enabled"] is True
    ladder_services.ladder_match_ended(ended)
    assert LadderMatch.objects.count() == made + 1


def test_the_free_slots_are_shared_among_the_variants(make_version: Any, slots: Any) -> None:
    # Kete has six engines, Kingulu two (a new one owed its placement): with two free slots,
    # Kete must not take both (the newcomer trial saw Kingulu wait for ever).
    for name in ("a", "b", "c", "d", "e", "f"):
        make_version(name, variants=["bao-la-kete"])
    make_version("g", variants=["bao-kingulu"])
    make_version("h", variants=["bao-kingulu"])
    slots(2)
    made = ladder_services.ladder_fill_all()
    assert len(made["bao-la-kete"]) == 1
    assert {frozenset(pair) for pair in ladder_matches("bao-kingulu")} == {frozenset("gh")}
    assert ladder_services.ladder_fill_all() == {v: [] for v in made}  # no slot left
    # Kiswahili has nobody and Kingulu's only pair is busy: a freed slot goes on to Kete
    # rather than staying idle.
    slots(3)
    made = ladder_services.ladder_fill_all()
    assert len(made["bao-la-kete"]) == 1 and made["bao-kingulu"] == []
