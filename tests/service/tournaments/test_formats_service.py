"""Formats through the services and the API: Swiss and knockout rounds paired as the last one
finishes, withdrawals, cancelling, the start time bound and the immediate start."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone

from arena.matches.models import Match
from engines.models import Engine
from tournaments import services
from tournaments.models import Tournament, TournamentEntry

pytestmark = pytest.mark.django_db

NAMES = ["alpha", "beta", "gamma", "delta", "epsilon"]


@pytest.fixture
def five(make_version: Any) -> list[Any]:
    return [make_version(n) for n in NAMES]


def _create(fmt: str, engines: list[str], **kw: Any) -> Tournament:
    start = timezone.now() - dt.timedelta(seconds=1)
    return services.tournament_create(
        name="Cup",
        variant="bao-la-kete",
        time_control="2+0.05",
        engines=engines,
        format=fmt,
        start_at=start,
        **kw,
    )


def _finish(match: Match, score_a: float, score_b: float) -> None:
    """Record a result as the worker would, and tell the tournament."""
    Match.objects.filter(pk=match.pk).update(status="finished", score_a=score_a, score_b=score_b)
    match.refresh_from_db()
    services.match_finished(match)


def _pending(t: Tournament) -> list[Match]:
    return list(
        t.matches.filter(status="pending").select_related("engine_a__engine", "engine_b__engine")
    )


def test_a_swiss_pairs_each_round_when_the_last_has_finished(
    five: list[Any], anon_client: Any
) -> None:
    t = _create("swiss", NAMES, rounds=3)
    assert t.rounds == 3
    assert services.tournament_start(t.pk)
    for number in (1, 2, 3):
        t.refresh_from_db()
        assert t.current_round == number
        matches = _pending(t)
        assert len(matches) == 2 and {m.round for m in matches} == {number}
        body = anon_client.get(f"/api/tournaments/{t.pk}/").json()
        assert len(body["pairings"][number - 1]["byes"]) == 1
        _finish(matches[0], 2.0, 0.0)
        t.refresh_from_db()
        assert t.current_round == number  # the round is not over yet
        _finish(matches[1], 1.5, 1.5)
    t.refresh_from_db()
    assert (t.status, t.end_reason) == ("finished", "")
    body = anon_client.get(f"/api/tournaments/{t.pk}/").json()
    assert body["tie_breaks"] == ["points", "buchholz", "sonneborn_berger"]
    byes = [rnd["byes"][0] for rnd in body["pairings"]]
    assert len(set(byes)) == 3  # three different engines had the bye
    rows = {r["engine"]: r for r in body["standings"]}
    for name in byes:
        assert rows[name]["byes"] == 1 and rows[name]["matches"] == 2
    assert sum(r["points"] for r in body["standings"]) == 3 * 3  # two matches and a bye a round
    assert (
        sum(r["match_wins"] + r["match_draws"] + r["match_losses"] for r in body["standings"]) == 12
    )  # byes are not in W/D/L


def test_a_knockout_plays_decisive_games_after_a_drawn_tie(
    five: list[Any], anon_client: Any
) -> None:
    from ratings.models import Rating

    for i, v in enumerate(five):  # seeds by rating: epsilon 1, delta 2, ... alpha 5
        Rating.objects.create(engine_version=v, variant="bao-la-kete", rating=1500 + 10 * i)
    t = _create("knockout", NAMES)
    assert services.tournament_start(t.pk)
    (first,) = _pending(t)  # 8 slots: seeds 1-3 have byes; 4 (beta) v 5 (alpha)
    assert (first.engine_a.engine.name, first.engine_b.engine.name, first.best_of) == (
        "beta",
        "alpha",
        3,
    )
    _finish(first, 1.5, 1.5)
    (decider,) = _pending(t)
    assert (decider.engine_a.engine.name, decider.best_of, decider.round) == ("alpha", 1, 1)
    # The tie was played from the standard start, its decider from a suite position.
    assert (first.start_suite, decider.start_suite) == ("standard", "balanced")
    assert decider.start_position != ""
    _finish(decider, 0.5, 0.5)
    (decider2,) = _pending(t)
    assert (decider2.engine_a.engine.name, decider2.best_of) == ("beta", 1)
    _finish(decider2, 0.5, 0.5)  # both drawn: the higher seed (beta) goes through
    semis = _pending(t)
    assert {(m.engine_a.engine.name, m.engine_b.engine.name, m.round) for m in semis} == {
        ("epsilon", "beta", 2),
        ("delta", "gamma", 2),
    }
    for m in semis:
        _finish(m, 2.0, 0.0)
    (final,) = _pending(t)
    assert (final.engine_a.engine.name, final.engine_b.engine.name) == ("epsilon", "delta")
    _finish(final, 0.5, 2.0)
    t.refresh_from_db()
    assert t.status == "finished"
    body = anon_client.get(f"/api/tournaments/{t.pk}/").json()
    assert body["tie_breaks"] == ["round_reached", "seed"]
    first_round = body["bracket"][0]
    assert [(x["high"], x["low"], x["winner"], x["decided_by"]) for x in first_round] == [
        ("epsilon", None, "epsilon", "bye"),
        ("beta", "alpha", "beta", "higher_seed"),
        ("delta", None, "delta", "bye"),
        ("gamma", None, "gamma", "bye"),
    ]
    assert first_round[1]["deciders"] == [0.5, 0.5]
    assert body["bracket"][2][0]["winner"] == "delta"
    assert [r["engine"] for r in body["standings"]][:2] == ["delta", "epsilon"]


def test_an_engine_disabled_before_the_start_forfeits_and_is_shown_withdrawn(
    five: list[Any], anon_client: Any
) -> None:
    t = _create("round_robin", NAMES[:4])
    Engine.objects.filter(name="delta").update(is_enabled=False)
    assert services.tournament_start(t.pk)
    body = anon_client.get(f"/api/tournaments/{t.pk}/").json()
    entry = next(e for e in body["entries"] if e["engine"] == "delta")
    assert (entry["status"], entry["withdrawn_reason"]) == (
        "withdrawn",
        "engine disabled by its owner",
    )
    assert body["progress"]["matches_total"] == 3  # the three pairings among the others
    forfeits = [f for rnd in body["pairings"] for f in rnd["forfeits"]]
    assert sorted(f["winner"] for f in forfeits) == ["alpha", "beta", "gamma"]
    assert {f["loser"] for f in forfeits} == {"delta"}
    rows = {r["engine"]: r for r in body["standings"]}
    assert (rows["alpha"]["points"], rows["alpha"]["forfeit_wins"], rows["alpha"]["matches"]) == (
        1.0,
        1,
        0,
    )
    assert (rows["delta"]["forfeit_losses"], rows["delta"]["status"]) == (3, "withdrawn")


def test_an_engine_disabled_during_the_event_forfeits_its_pending_matches(
    five: list[Any], anon_client: Any
) -> None:
    t = _create("round_robin", NAMES[:4])
    assert services.tournament_start(t.pk)
    delta_matches = t.matches.filter(engine_a__engine__name="delta") | t.matches.filter(
        engine_b__engine__name="delta"
    )
    played, *rest = list(delta_matches.order_by("id"))
    _finish(played, 2.0, 0.0)
    Engine.objects.filter(name="delta").update(is_enabled=False)
    services.start_due_tournaments()  # the minute job looks at running tournaments
    assert TournamentEntry.objects.get(tournament=t, seed_no=4).status == "withdrawn"
    assert [Match.objects.get(pk=m.pk).status for m in rest] == ["aborted", "aborted"]
    body = anon_client.get(f"/api/tournaments/{t.pk}/").json()
    forfeits = [f for rnd in body["pairings"] for f in rnd["forfeits"]]
    assert sorted(f["match"] for f in forfeits) == sorted(m.pk for m in rest)
    rows = {r["engine"]: r for r in body["standings"]}
    assert rows["delta"]["matches"] == 1  # the finished match stands
    for m in t.matches.filter(status="pending"):
        _finish(m, 2.0, 0.0)
    t.refresh_from_db()
    assert t.status == "finished"


@pytest.fixture
def owned(alice: Any, five: list[Any]) -> Tournament:
    t = services.tournament_create(
        name="Mine",
        variant="bao-la-kete",
        time_control="2+0.05",
        engines=NAMES[:3],
        rated=False,
        created_by=alice,
        start_at=timezone.now() + dt.timedelta(hours=1),
    )
    Tournament.objects.filter(pk=t.pk).update(start_at=timezone.now())
    assert services.tournament_start(t.pk)
    return t


def test_the_creator_cancels_a_tournament_and_its_matches_are_aborted(
    owned: Tournament, alice_client: Any
) -> None:
    response = alice_client.post(
        f"/api/tournaments/{owned.pk}/cancel/", {"reason": "wrong clock"}, format="json"
    )
    assert response.status_code == 200, response.json()
    assert (response.json()["status"], response.json()["cancel_reason"]) == (
        "cancelled",
        "wrong clock",
    )
    assert set(owned.matches.values_list("status", "error")) == {
        ("aborted", "tournament cancelled: wrong clock")
    }
    again = alice_client.post(f"/api/tournaments/{owned.pk}/cancel/", format="json")
    assert (again.status_code, again.json()["error"]["code"]) == (409, "tournament_not_cancellable")


def test_someone_else_may_not_cancel_but_staff_may(
    owned: Tournament, bob: Any, bob_client: Any, anon_client: Any
) -> None:
    response = bob_client.post(f"/api/tournaments/{owned.pk}/cancel/", format="json")
    assert (response.status_code, response.json()["error"]["code"]) == (403, "tournament_not_yours")
    assert Tournament.objects.get(pk=owned.pk).status == "running"
    anon = anon_client.post(f"/api/tournaments/{owned.pk}/cancel/", format="json")
    assert anon.status_code == 401
    missing = bob_client.post("/api/tournaments/999999/cancel/", format="json")
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "not_found")
    bob.is_staff = True
    bob.save(update_fields=["is_staff"])
    response = bob_client.post(f"/api/tournaments/{owned.pk}/cancel/", format="json")
    assert response.status_code == 200
    assert response.json()["cancel_reason"] == "cancelled by bob"


@pytest.mark.parametrize(
    ("override", "status", "code"),
    [
        ({"format": "swiss", "rounds": 5}, 400, "too_many_rounds"),
        ({"format": "swiss", "rounds": 0}, 400, "invalid"),
        ({"format": "round_robin", "rounds": 2}, 400, "rounds_not_applicable"),
        ({"start_at": "9999-01-01T00:00:00Z"}, 400, "start_at_too_late"),
    ],
)
def test_bad_format_requests_get_a_stable_code(
    alice_client: Any, five: list[Any], override: dict[str, Any], status: int, code: str
) -> None:
    body = {"name": "x", "variant": "kete", "engines": NAMES, "rated": False} | override
    response = alice_client.post("/api/tournaments/", body, format="json")
    assert (response.status_code, response.json()["error"]["code"]) == (status, code)
    assert not Tournament.objects.exists()


def test_a_tournament_without_a_start_time_starts_at_once(
    alice_client: Any, five: list[Any], monkeypatch: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from arena.matches import services as match_services
    from tournaments import tasks

    sent: list[int] = []
    monkeypatch.setattr(match_services, "match_enqueue", lambda match_id, **kw: True)
    monkeypatch.setattr(
        tasks.start_tournament,
        "delay",
        lambda t_id: sent.append(t_id) or services.tournament_start(t_id),
    )
    with django_capture_on_commit_callbacks(execute=True):
        response = alice_client.post(
            "/api/tournaments/",
            {
                "name": "now",
                "variant": "kete",
                "engines": NAMES[:3],
                "rated": False,
                "format": "double_round_robin",
            },
            format="json",
        )
    assert response.status_code == 201
    t = Tournament.objects.get()
    assert sent == [t.pk]
    assert t.status == "running"
    assert t.matches.count() == 6  # three pairs, twice


def test_the_api_says_the_most_rounds_a_swiss_field_allows(
    alice_client: Any, anon_client: Any, five: list[Any]
) -> None:
    body = {"name": "x", "variant": "kete", "engines": NAMES, "rated": False, "format": "swiss"}
    refused = alice_client.post("/api/tournaments/", body | {"rounds": 5}, format="json")
    assert refused.status_code == 400
    assert refused.json()["error"]["details"] == {"rounds": 5, "max_rounds": 4}
    later = (timezone.now() + dt.timedelta(hours=1)).isoformat()
    made = alice_client.post(
        "/api/tournaments/", body | {"rounds": 4, "start_at": later}, format="json"
    )
    assert made.status_code == 201, made.json()
    detail = anon_client.get(f"/api/tournaments/{made.json()['id']}/").json()
    assert (detail["rounds"], detail["max_rounds"]) == (4, 4)
