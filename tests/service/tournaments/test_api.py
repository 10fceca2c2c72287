"""The tournaments API: create with validation codes, list/detail with standings and
crosstable, leaderboard (contents, pagination, provisional filter), rating history."""

from __future__ import annotations

from typing import Any

import pytest

from arena.matches.models import Match
from tournaments import services
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def trio(make_version: Any) -> list[Any]:
    return [make_version(n) for n in ("alpha", "beta", "gamma")]


def _body(**kw: Any) -> dict[str, Any]:
    return {
        "name": "Club night",
        "variant": "bao-la-kete",
        "engines": ["alpha", "beta", "gamma"],
        "time_control": "10+0.1",
    } | kw


def test_creating_needs_a_login(anon_client: Any, trio: list[Any]) -> None:
    response = anon_client.post("/api/tournaments/", _body(), format="json")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"
    assert Tournament.objects.count() == 0


def test_it_creates_a_round_robin_and_shows_it_scheduled(
    alice: Any, alice_client: Any, trio: list[Any]
) -> None:
    alice.is_staff = True  # a rated tournament of other people's engines (test_rated_policy)
    alice.save(update_fields=["is_staff"])
    response = alice_client.post("/api/tournaments/", _body(), format="json")
    assert response.status_code == 201, response.json()
    data = response.json()
    assert (data["status"], data["format"], data["variant"], data["time_control"]) == (
        "scheduled",
        "round_robin",
        "bao-la-kete",
        "10+0.1",
    )
    assert [(e["seed_no"], e["engine"], e["version"]) for e in data["entries"]] == [
        (1, "alpha", 1),
        (2, "beta", 1),
        (3, "gamma", 1),
    ]
    assert data["progress"] == {
        "matches_total": 0,
        "matches_done": 0,
        "matches_running": 0,
        "games_played": 0,
    }
    assert Tournament.objects.get().created_by.username == "alice"


@pytest.mark.parametrize(
    ("override", "status", "code"),
    [
        ({"engines": ["alpha"]}, 400, "too_few_engines"),
        ({"variant": "oware"}, 400, "unknown_variant"),
        ({"engines": ["alpha", "retired"]}, 409, "engine_not_active"),
        (
            {"engines": ["alpha", "ketesolo"], "variant": "bao-kingulu"},
            400,
            "variant_not_supported",
        ),
        ({"time_control": "10+"}, 400, "invalid_time_control"),
        ({"engines": ["alpha", "nobody"]}, 404, "engine_not_found"),
        ({"engines": "alpha"}, 400, "invalid"),
        ({"format": "ladder"}, 400, "invalid"),
        ({"start_at": "tomorrow"}, 400, "invalid"),
    ],
)
def test_bad_requests_get_a_stable_code_and_create_nothing(
    alice_client: Any, make_version: Any, override: dict[str, Any], status: int, code: str
) -> None:
    for name in ("alpha", "beta", "gamma"):
        make_version(name)
    make_version("retired", status="rejected")
    make_version("ketesolo", variants=["bao-la-kete"])
    response = alice_client.post("/api/tournaments/", _body(**override), format="json")
    assert (response.status_code, response.json()["error"]["code"]) == (status, code)
    assert Tournament.objects.count() == 0
    assert Match.objects.count() == 0


def test_detail_shows_progress_standings_and_crosstable(
    anon_client: Any, trio: list[Any], make_finished_match: Any
) -> None:
    alpha, beta, gamma = trio
    t = services.tournament_create(
        name="Cup", variant="bao-la-kete", engines=["alpha", "beta", "gamma"], time_control="10+0.1"
    )
    services.tournament_start(t.pk)
    # Replace the queued matches by played ones: alpha beats beta 2-0, gamma beats alpha 2-1,
    # beta-gamma still pending.
    Match.objects.filter(tournament=t).exclude(engine_a=beta).delete()
    make_finished_match(alpha, beta, ["1-0", "0-1"], tournament=t, round=2)
    make_finished_match(gamma, alpha, ["1-0", "1-0", "1-0"], tournament=t, round=3)
    data = anon_client.get(f"/api/tournaments/{t.pk}/").json()
    assert data["status"] == "running"
    assert data["progress"] == {
        "matches_total": 3,
        "matches_done": 2,
        "matches_running": 0,
        "games_played": 5,
    }
    rows = [
        (
            r["rank"],
            r["engine"],
            r["points"],
            r["match_wins"],
            r["match_losses"],
            r["game_wins"],
            r["game_losses"],
            r["sonneborn_berger"],
        )
        for r in data["standings"]
    ]
    # alpha and gamma have 1 point each; gamma beat alpha (1 point) and alpha beat beta (0):
    # Sonneborn-Berger 1 against 0 puts gamma first although alpha won more games.
    assert rows == [
        (1, "gamma", 1.0, 1, 0, 2, 1, 1.0),
        (2, "alpha", 1.0, 1, 1, 3, 2, 0.0),
        (3, "beta", 0.0, 0, 1, 0, 2, 0.0),
    ]
    cross = data["crosstable"]
    assert cross["engines"] == ["alpha", "beta", "gamma"]
    cells = [
        [None if c is None else (c["score"], c["opponent_score"], c["match_points"]) for c in row]
        for row in cross["rows"]
    ]
    assert cells == [
        [None, (2.0, 0.0, 1.0), (1.0, 2.0, 0.0)],
        [(0.0, 2.0, 0.0), None, None],
        [(2.0, 1.0, 1.0), None, None],
    ]


def test_the_list_is_paginated_and_filtered_by_status(anon_client: Any, trio: list[Any]) -> None:
    for i in range(3):
        services.tournament_create(
            name=f"T{i}", variant="bao-la-kete", engines=["alpha", "beta"], time_control="10+0.1"
        )
    started = Tournament.objects.order_by("id").first()
    assert started is not None
    services.tournament_start(started.pk)
    page = anon_client.get("/api/tournaments/?page_size=2").json()
    assert page["count"] == 3 and len(page["results"]) == 2 and page["next"] is not None
    running = anon_client.get("/api/tournaments/?status=running").json()
    assert [(t["name"], t["matches_total"], t["matches_done"]) for t in running["results"]] == [
        ("T0", 1, 0)
    ]
    assert anon_client.get("/api/tournaments/?status=bogus").json()["error"]["code"] == "invalid"


def test_an_unknown_tournament_is_not_found(anon_client: Any, db: Any) -> None:
    response = anon_client.get("/api/tournaments/999/")
    assert (response.status_code, response.json()["error"]["code"]) == (404, "not_found")


def test_the_api_creates_a_tournament_from_a_suite_and_refuses_an_unknown_one(
    alice_client: Any, trio: list[Any]
) -> None:
    body = _body(rated=False, start_suite="balanced")
    response = alice_client.post("/api/tournaments/", body, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["start_suite"] == "balanced"
    listed = alice_client.get("/api/tournaments/").json()["results"]
    assert [t["start_suite"] for t in listed] == ["balanced"]
    bad = alice_client.post(
        "/api/tournaments/", _body(rated=False, start_suite="random"), format="json"
    )
    assert bad.status_code == 400
    assert bad.json()["error"]["code"] == "unknown_start_suite"
    assert bad.json()["error"]["details"] == {
        "start_suite": "random",
        "known": ["standard", "balanced"],
    }
    assert Tournament.objects.count() == 1
