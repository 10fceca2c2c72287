"""Refits from the head-to-head counts (issue 32): the counts kept by recording equal those
counted again from the games, and the refit that reads them stores what the fit over every rated
game gives, on a generated history with bounds, exclusions, unrated and aborted games."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from arena.matches.models import Match
from ratings import services as rating_services
from ratings.models import HeadToHead, Rating, RatingPoint, RatingPool
from ratings.stats.whr import LOWER_BOUND, NOT_CONNECTED, fit

pytestmark = pytest.mark.django_db

KETE = "bao-la-kete"
RESULTS = ["1-0", "0-1", "1/2-1/2"]


@pytest.fixture
def history(make_version: Any, make_finished_match: Any) -> list[Any]:
    """Twelve versions with true ratings 60 Elo apart, 150 best-of-three matches between random
    pairs (results drawn from the logistic model, about a fifth drawn); a version that won all
    its games; a pair that only met each other; an unrated match, a match with an aborted
    game, and matches in another variant. Returns the versions."""
    rng = random.Random(32)
    versions = [make_version(f"e{k:02d}") for k in range(12)]
    strength = {v.pk: 60.0 * k for k, v in enumerate(versions)}

    def result(south: Any, north: Any) -> str:
        p = 1.0 / (1.0 + 10 ** (-(strength[south.pk] - strength[north.pk]) / 400))
        u, draw = rng.random(), 0.4 * p * (1 - p)
        return "1-0" if u < p - draw / 2 else "1/2-1/2" if u < p + draw / 2 else "0-1"

    for _ in range(150):
        a, b = rng.sample(versions, 2)
        make_finished_match(a, b, [result(*side) for side in ((a, b), (b, a), (a, b))])
    top = make_version("winner")
    for v in versions[:4]:
        make_finished_match(top, v, ["1-0", "0-1"])  # A is South in game 1: two wins
    lone_a, lone_b = make_version("lone-a"), make_version("lone-b")
    make_finished_match(lone_a, lone_b, ["1-0", "1/2-1/2"])
    make_finished_match(versions[0], versions[1], ["1-0", "1-0"], rated=False)
    make_finished_match(
        versions[2], versions[3], ["1-0", "*"], terminations=["bao_hamna", "aborted"]
    )
    for _ in range(5):
        a, b = rng.sample(versions, 2)
        make_finished_match(a, b, [rng.choice(RESULTS)], variant="bao-la-kiswahili")
    return [*versions, top, lone_a, lone_b]


def _counts() -> list[tuple[Any, ...]]:
    return sorted(
        HeadToHead.objects.values_list(
            "variant", "version_a", "version_b", "wins_a", "draws", "wins_b"
        )
    )


def test_recording_counts_what_a_rebuild_counts_from_the_games(history: Any) -> None:
    kept = _counts()
    assert sum(w + d + lost for *_, w, d, lost in kept) == 150 * 3 + 8 + 2 + 1 + 5
    assert rating_services.head_to_head_rebuild() == len(kept)
    assert _counts() == kept
    # One variant alone leaves the other's rows as they are.
    HeadToHead.objects.filter(variant=KETE).delete()
    assert rating_services.head_to_head_rebuild(KETE) == sum(row[0] == KETE for row in kept)
    assert _counts() == kept


def test_a_refit_from_the_counts_stores_the_fit_of_every_rated_game(history: Any) -> None:
    # The old path: every rated game read and fitted (what the refit did before issue 32).
    games = rating_services.rated_games(KETE)
    assert len(games) == 150 * 3 + 8 + 2 + 1  # not the unrated, aborted or other variant's
    old = fit((g.south, g.north, g.score) for g in games)
    assert rating_services.rating_refit(KETE)
    stored = {r.engine_version_id: r for r in Rating.objects.filter(variant=KETE)}
    ranked = old.ratings
    for k, expected in enumerate(ranked):
        row = stored[expected.engine]
        assert (row.games, row.wins, row.draws, row.losses, row.bound or None) == (
            expected.games, expected.wins, expected.draws, expected.losses, expected.bound
        )  # fmt: skip
        for got, want in ((row.rating, expected.rating), (row.low, expected.low),
                          (row.high, expected.high)):  # fmt: skip
            assert (got is None) == (want is None)
            assert got is None or abs(got - want) <= 1e-9
        superiority = old.superiority(expected.engine, ranked[k + 1].engine) if k + 1 < len(
            ranked
        ) else None  # fmt: skip
        assert (row.superiority is None) == (superiority is None)
        assert row.superiority is None or abs(row.superiority - superiority) <= 1e-9
    top, lone_a, lone_b = history[-3:]
    assert (stored[top.pk].bound, stored[top.pk].provisional_reason) == (">", LOWER_BOUND)
    assert stored[lone_a.pk].excluded_reason == stored[lone_b.pk].excluded_reason == NOT_CONNECTED
    assert len(stored) == len(ranked) + len(old.excluded) == 15
    pool = RatingPool.objects.get(variant=KETE)
    assert (pool.games, pool.rated, pool.excluded) == (len(games), 13, 2)
    # History as before: one point per side of each match whose versions were rated.
    assert RatingPoint.objects.filter(variant=KETE).count() == 2 * (150 + 4 + 1)


def _games_queries(refit: Any) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        assert refit()
    # (The head-to-head read is a COPY on PostgreSQL, which Django does not capture.)
    return [q["sql"] for q in queries.captured_queries if "matches_game" in q["sql"]]


def test_a_refit_reads_only_the_games_of_recent_matches_without_history(
    history: Any, make_finished_match: Any
) -> None:
    rating_services.rating_refit(KETE)
    rated = Match.objects.filter(variant=KETE, rated=True)
    latest = rated.order_by("-finished_at").values_list("finished_at", flat=True)[0]
    assert RatingPool.objects.get(variant=KETE).history_through == latest
    # Nothing new: the lone pair's match (never rated, so never given points) finished hours
    # before the latest match and is not looked at again; no game is read.
    assert _games_queries(lambda: rating_services.rating_refit(KETE)) == []
    a, b = history[0], history[1]
    new = make_finished_match(a, b, ["1-0", "0-1"])
    read = _games_queries(lambda: rating_services.rating_refit(KETE))
    # The new match's games, by one query that keeps to recent matches without points.
    assert len(read) == 1 and "tournaments_ratingpoint" in read[0] and "finished_at" in read[0]
    assert sorted(RatingPoint.objects.filter(match=new).values_list("engine_version", "games")) == [
        (a.pk, 2),
        (b.pk, 2),
    ]
    assert RatingPool.objects.get(variant=KETE).history_through == new.finished_at
    # --rebuild's refit looks at every match without points again (the lone pair's).
    read = _games_queries(lambda: rating_services.rating_refit(KETE, all_history=True))
    assert len(read) == 1 and "finished_at" not in read[0].split("WHERE")[1]
    assert RatingPoint.objects.filter(variant=KETE).count() == 2 * (150 + 4 + 1 + 1)


def test_the_refit_reads_the_counts_as_stored(history: Any) -> None:
    # On PostgreSQL one binary COPY parsed by numpy, elsewhere the ORM: the same rows.
    read = rating_services.head_to_head(KETE)
    assert read.dtype == "int64" and read.shape == (
        HeadToHead.objects.filter(variant=KETE).count(),
        5,
    )
    assert sorted(map(tuple, read.tolist())) == [row[1:] for row in _counts() if row[0] == KETE]
    assert rating_services.head_to_head("bao-kingulu").shape == (0, 5)
