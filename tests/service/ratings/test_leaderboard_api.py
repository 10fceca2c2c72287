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
    # Everyone is provisional (fewer than 30 games): one list, ranked by rating.
    assert rows[0] == (1, "alpha", 1, 4, 4, 0, 0, 4.0, 1.0, True, True)
    # beta and gamma have the same record: the same rating, so the same rank.
    assert [r[:2] for r in rows[1:]] == [(2, "beta"), (2, "gamma")]
    assert [r[3:11] for r in rows[1:]] == [(5, 0, 3, 2, 1.5, 0.3, True, False)] * 2
    top, second, last = data["results"]
    # alpha won all its games: only a lower bound, placed as Ordo places it.
    stored = Rating.objects.get(engine_version=rated["alpha"])
    assert (top["bound"], top["high"], top["margin"]) == (">", None, None)
    assert (top["rating"], top["low"]) == (round(stored.rating, 1), round(stored.low, 1))
    assert top["low"] < top["rating"] and stored.high is None and stored.bound == ">"
    assert top["provisional_reason"].startswith("rating is only a lower bound")
    assert second["provisional_reason"] == "fewer than 30 rated games"
    assert (second["bound"], last["bound"]) == (None, None)
    assert second["low"] < second["rating"] < second["high"]
    assert top["superiority"] is None  # a bound
    assert second["superiority"] == 0.5 and last["superiority"] is None
    # beta and gamma are the rated group; alpha's bound does not move them.
    assert (second["rating"], last["rating"]) == (1500.0, 1500.0)
    assert data["excluded"] == [] and data["fitted_at"] is not None


def test_established_versions_are_listed_first_then_provisional_ones(
    anon_client: Any, make_version: Any, make_finished_match: Any
) -> None:
    old, rival, new = (make_version(n) for n in ("old", "rival", "new"))
    match_finished(make_finished_match(old, rival, ["1-0", "1/2-1/2", "1-0", "0-1"] * 10))
    match_finished(make_finished_match(new, old, ["1-0", "0-1", "1-0"]))  # new won all 3
    match_finished(make_finished_match(rival, new, ["1/2-1/2"]))
    rating_refit("bao-la-kete")
    data = anon_client.get("/api/leaderboard/?variant=bao-la-kete").json()
    rows = [(r["rank"], r["engine"], r["provisional"], r["bound"]) for r in data["results"]]
    # new is rated highest, but on 4 games: after the two established versions.
    assert rows == [(1, "old", False, None), (2, "rival", False, None), (1, "new", True, None)]
    assert data["results"][2]["rating"] > data["results"][0]["rating"]
    assert data["results"][2]["provisional_reason"] == "fewer than 30 rated games"
    assert data["results"][0]["provisional_reason"] == ""
    html = anon_client.get("/").content.decode()
    board = html[html.index('id="lb-bao-la-kete"') : html.index('id="lb-bao-la-kiswahili"')]
    established = board[board.index("Established versions") : board.index("Provisional versions")]
    provisional = board[board.index("Provisional versions") :]
    assert ">old</a>" in established and ">new</a>" not in established
    assert ">new</a>" in provisional and "fewer than 30 rated games" in provisional
    assert "until it has played 30 rated games" in html


def test_an_all_draw_record_has_a_finite_interval(
    anon_client: Any, make_version: Any, make_finished_match: Any
) -> None:
    a, b = make_version("alpha"), make_version("beta")
    match_finished(make_finished_match(a, b, ["1/2-1/2"]))  # a single draw
    rating_refit("bao-la-kete")
    rows = anon_client.get("/api/leaderboard/?variant=bao-la-kete").json()["results"]
    for row in rows:
        assert (row["rating"], row["score"], row["games"], row["draws"]) == (1500.0, 0.5, 1, 1)
        # One draw: the draw rate between equals is 2/3 (one more virtual draw in two games),
        # so a game's score variance is (1 - 2/3) / 4; the information of the difference is
        # (ln 10 / 400)^2 / 4, so each side's SE about the mean is sqrt(1/3) 400 / ln 10 =
        # 100.3 Elo; 1.96 SE = 196.6.
        assert row["margin"] == 196.6
        assert (row["low"], row["high"]) == (1303.4, 1696.6)
        assert row["provisional"] and not row["prior"] and row["bound"] is None
    match_finished(make_finished_match(a, b, ["1/2-1/2"] * 3))
    rating_refit("bao-la-kete")
    row = anon_client.get("/api/leaderboard/?variant=bao-la-kete").json()["results"][0]
    # 4 draws: d0 = 5/6, the variance (1 - 5/6) / 4 over 4 games: SE = sqrt(1/24) 400 / ln 10.
    assert (row["rating"], row["margin"]) == (1500.0, 69.5)


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
    both = anon_client.get("/api/leaderboard/?variant=bao-la-kete").json()["results"]
    assert [(r["rank"], r["engine"]) for r in both] == [(1, "gamma"), (1, "alpha"), (2, "beta")]
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
    # alpha won every game: a lower bound, its interval unbounded above.
    assert first["low"] < first["rating"] and first["high"] is None and first["fitted_at"]
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
