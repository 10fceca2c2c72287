"""Leaderboard and rating history API: the fit's order, ranks, intervals, records, the versions
left out, pagination, filters."""

from __future__ import annotations

from typing import Any

import pytest

from ratings.models import Rating
from ratings.services import rating_refit
from tournaments.services import match_finished

pytestmark = pytest.mark.django_db


@pytest.fixture
def rated(make_version: Any, make_finished_match: Any) -> dict[str, Any]:
    """alpha beats beta 2-0 and gamma 2-0; beta and gamma draw all three games (1.5-1.5)."""
    alpha, beta, gamma = (make_version(n) for n in ("alpha", "beta", "gamma"))
    match_finished(make_finished_match(alpha, beta, ["1-0", "0-1"]))
    match_finished(make_finished_match(alpha, gamma, ["1-0", "0-1"]))
    match_finished(make_finished_match(beta, gamma, ["1/2-1/2", "1/2-1/2", "1/2-1/2"]))
    rating_refit("bao-la-kete")
    return {"alpha": alpha, "beta": beta, "gamma": gamma}


def test_the_leaderboard_ranks_by_the_fit_with_intervals_and_records(
    anon_client: Any, rated: dict[str, Any]
) -> None:
    data = anon_client.get("/api/leaderboard/?variant=bao-la-kete").json()
    assert data["count"] == 3
    rows = [
        (
            r["rank"],
            r["engine"],
            r["version"],
            r["games"],
            r["wins"],
            r["draws"],
            r["losses"],
            r["points"],
            r["score"],
            r["provisional"],
            r["prior"],
        )
        for r in data["results"]
    ]
    assert rows[0] == (1, "alpha", 1, 4, 4, 0, 0, 4.0, 1.0, True, True)
    # beta and gamma have the same record: the same rating, so the same rank.
    assert [r[:2] for r in rows[1:]] == [(2, "beta"), (2, "gamma")]
    assert [r[3:11] for r in rows[1:]] == [(5, 0, 3, 2, 1.5, 0.3, True, False)] * 2
    top, second, last = data["results"]
    stored = Rating.objects.get(engine_version=rated["alpha"])
    assert (top["rating"], top["low"], top["high"]) == (
        round(stored.rating, 1),
        round(stored.low, 1),
        round(stored.high, 1),
    )
    assert top["margin"] == pytest.approx((stored.high - stored.low) / 2, abs=0.06)
    assert top["low"] < top["rating"] < top["high"]
    assert 0.5 < top["superiority"] < 1.0
    assert second["superiority"] == 0.5 and last["superiority"] is None
    assert sum(r["rating"] for r in data["results"]) == pytest.approx(4500, abs=0.2)
    assert data["excluded"] == [] and data["fitted_at"] is not None


def test_an_all_draw_record_has_a_finite_interval(
    anon_client: Any, make_version: Any, make_finished_match: Any
) -> None:
    a, b = make_version("alpha"), make_version("beta")
    match_finished(make_finished_match(a, b, ["1/2-1/2"]))  # a single draw
    rating_refit("bao-la-kete")
    rows = anon_client.get("/api/leaderboard/?variant=bao-la-kete").json()["results"]
    for row in rows:
        assert (row["rating"], row["score"], row["games"], row["draws"]) == (1500.0, 0.5, 1, 1)
        # One game at 1/2: the information of the difference is (ln 10 / 400)^2 / 4, so each
        # side's SE about the mean is 400 / ln 10 = 173.7 Elo; 1.96 SE = 340.5.
        assert row["margin"] == 340.5
        assert (row["low"], row["high"]) == (1159.5, 1840.5)
        assert row["provisional"] and not row["prior"]
    match_finished(make_finished_match(a, b, ["1/2-1/2"] * 3))
    rating_refit("bao-la-kete")
    row = anon_client.get("/api/leaderboard/?variant=bao-la-kete").json()["results"][0]
    assert (row["rating"], row["margin"]) == (1500.0, round(340.5 / 2, 1))  # 4 games: SE / 2


def test_versions_the_fit_leaves_out_are_listed_apart(
    anon_client: Any, rated: dict[str, Any], make_version: Any, make_finished_match: Any
) -> None:
    xi, yo = make_version("xi"), make_version("yo")
    match_finished(make_finished_match(xi, yo, ["1-0", "0-1"]))
    rating_refit("bao-la-kete")
    data = anon_client.get("/api/leaderboard/?variant=bao-la-kete").json()
    assert data["count"] == 3
    assert data["excluded"] == [
        {
            "engine": "xi",
            "version": 1,
            "engine_version_id": xi.pk,
            "games": 2,
            "reason": "not connected to the rated pool by games",
        },
        {
            "engine": "yo",
            "version": 1,
            "engine_version_id": yo.pk,
            "games": 2,
            "reason": "not connected to the rated pool by games",
        },
    ]


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
    kingulu = anon_client.get("/api/leaderboard/?variant=bao-kingulu").json()
    assert (kingulu["count"], kingulu["excluded"], kingulu["fitted_at"]) == (0, [], None)


def test_an_unknown_variant_is_a_stable_error(anon_client: Any, db: Any) -> None:
    response = anon_client.get("/api/leaderboard/?variant=chess")
    assert (response.status_code, response.json()["error"]["code"]) == (400, "unknown_variant")


def test_rating_history_lists_the_fitted_rating_after_each_match_oldest_first(
    anon_client: Any, rated: dict[str, Any]
) -> None:
    data = anon_client.get("/api/engines/alpha/ratings/?variant=bao-la-kete").json()
    assert data["count"] == 2
    steps = [
        (r["opponent"], r["opponent_version"], r["games"], r["points"], r["rating"])
        for r in data["results"]
    ]
    # All three matches were in the first refit: both points hold its rating.
    now = Rating.objects.get(engine_version=rated["alpha"]).rating
    assert steps == [("beta", 1, 2, 2.0, now), ("gamma", 1, 2, 2.0, now)]
    first = data["results"][0]
    assert first["low"] < first["rating"] < first["high"] and first["fitted_at"]
    assert list(first) == [
        "match_id",
        "variant",
        "version",
        "opponent",
        "opponent_version",
        "games",
        "points",
        "rating",
        "low",
        "high",
        "finished_at",
        "fitted_at",
    ]


def test_rating_history_of_an_unknown_engine_is_not_found(anon_client: Any, db: Any) -> None:
    # A name in the path: not_found, like /api/engines/nobody/ (engine_not_found is for a
    # name given in a request body).
    response = anon_client.get("/api/engines/nobody/ratings/")
    assert (response.status_code, response.json()["error"]["code"]) == (404, "not_found")
