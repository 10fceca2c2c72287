"""Leaderboard and rating history API: contents, order, ranks, error bars, pagination, filters."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from tournaments.models import Rating
from tournaments.services import match_finished

pytestmark = pytest.mark.django_db


@pytest.fixture
def rated(make_version: Any, make_finished_match: Any) -> dict[str, Any]:
    """alpha beats beta 2-0 and gamma 2-0; beta and gamma draw all three games (1.5-1.5)."""
    alpha, beta, gamma = (make_version(n) for n in ("alpha", "beta", "gamma"))
    match_finished(make_finished_match(alpha, beta, ["1-0", "0-1"]))
    match_finished(make_finished_match(alpha, gamma, ["1-0", "0-1"]))
    match_finished(make_finished_match(beta, gamma, ["1/2-1/2", "1/2-1/2", "1/2-1/2"]))
    return {"alpha": alpha, "beta": beta, "gamma": gamma}


def test_the_leaderboard_lists_ratings_best_first_with_records(
    anon_client: Any, rated: dict[str, Any]
) -> None:
    data = anon_client.get("/api/leaderboard/?variant=bao-la-kete").json()
    assert data["count"] == 3
    rows = [(r["rank"], r["engine"], r["version"], r["games"], r["wins"], r["draws"], r["losses"],
             r["provisional"])
            for r in data["results"]]
    assert rows[0] == (1, "alpha", 1, 4, 4, 0, 0, True)
    assert {r[1] for r in rows[1:]} == {"beta", "gamma"}
    assert [r[3:7] for r in rows[1:]] == [(5, 0, 3, 2), (5, 0, 3, 2)]
    top = data["results"][0]
    expected = Rating.objects.get(engine_version=rated["alpha"]).rating
    assert top["rating"] == round(expected, 1)
    # 4 wins, no spread: one pseudo-draw -> mu 0.9 (ratings.performance).
    assert top["error_bars"]["score"] == 1.0
    assert top["error_bars"]["performance"] == 381.7
    assert top["error_bars"]["margin"] > 0


def test_leaderboard_ratings_sum_to_the_start_between_newcomers(
    anon_client: Any, rated: dict[str, Any]
) -> None:
    # Every game so far was between provisional engines (same K): Elo is zero-sum.
    total = sum(r.rating for r in Rating.objects.all())
    assert total == pytest.approx(3 * 1500.0)


def test_the_leaderboard_pages_and_filters_provisional(
    anon_client: Any, rated: dict[str, Any]
) -> None:
    page = anon_client.get("/api/leaderboard/?variant=kete&page_size=1&page=2").json()
    assert page["count"] == 3 and len(page["results"]) == 1 and page["results"][0]["rank"] == 2
    Rating.objects.filter(engine_version=rated["gamma"]).update(provisional=False)
    established = anon_client.get("/api/leaderboard/?variant=bao-la-kete&provisional=false").json()
    assert [(r["rank"], r["engine"]) for r in established["results"]] == [(1, "gamma")]
    provisional = anon_client.get("/api/leaderboard/?variant=bao-la-kete&provisional=true")
    assert provisional.json()["count"] == 2
    assert anon_client.get("/api/leaderboard/?variant=bao-kingulu").json()["count"] == 0


def test_an_unknown_variant_is_a_stable_error(anon_client: Any, db: Any) -> None:
    response = anon_client.get("/api/leaderboard/?variant=chess")
    assert (response.status_code, response.json()["error"]["code"]) == (400, "unknown_variant")


def test_rating_history_lists_each_rated_game_oldest_first(
    anon_client: Any, rated: dict[str, Any]
) -> None:
    data = anon_client.get("/api/engines/alpha/ratings/?variant=bao-la-kete").json()
    assert data["count"] == 4
    steps = [(r["opponent"], r["score"], round(r["rating_before"], 4),
              round(r["rating_after"], 4), r["k_factor"])
             for r in data["results"]]
    assert steps[0] == ("beta", 1.0, 1500.0, 1520.0, 40.0)
    assert steps[1][:3] == ("beta", 1.0, 1520.0)
    assert [s[0] for s in steps] == ["beta", "beta", "gamma", "gamma"]
    assert all(later[2] == earlier[3] for earlier, later in itertools.pairwise(steps))


def test_rating_history_of_an_unknown_engine_is_not_found(anon_client: Any, db: Any) -> None:
    # A name in the path: not_found, like /api/engines/nobody/ (engine_not_found is for a
    # name given in a request body).
    response = anon_client.get("/api/engines/nobody/ratings/")
    assert (response.status_code, response.json()["error"]["code"]) == (404, "not_found")
