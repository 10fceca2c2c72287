"""The fit from head-to-head counts (``ratings.stats.whr.fit_results``) is the fit over the
games counted (``fit``), bit for bit: the service refits from the counts (issue 32)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest

from ratings.stats.whr import ABOVE, BELOW, NOT_CONNECTED, RatingFit, fit, fit_results
from ratings.stats.whr.simulate import mixed_schedule, redraw


def _counted(games: list[tuple[Any, Any, float]]) -> list[tuple[Any, Any, int, int, int]]:
    """The games as ``(a, b, wins, draws, losses)`` per ordered (South, North) pair."""
    tally: Counter[tuple[Any, Any, float]] = Counter(games)
    pairs = sorted({(s, n) for s, n, _ in games})
    return [(s, n, tally[(s, n, 1.0)], tally[(s, n, 0.5)], tally[(s, n, 0.0)]) for s, n in pairs]


def _figures(result: RatingFit[Any]) -> list[tuple[Any, ...]]:
    ranked = result.ratings
    return [
        (r.engine, r.rating, r.low, r.high, r.bound, r.games, r.wins, r.draws, r.losses,
         r.provisional_reason,
         result.superiority(r.engine, ranked[k + 1].engine) if k + 1 < len(ranked) else None)
        for k, r in enumerate(ranked)
    ] + [("excluded", e.engine, e.reason, e.games) for e in result.excluded]  # fmt: skip


def _history() -> list[tuple[int, int, float]]:
    """Issue 26's schedule (26 regulars, four occasional engines, about 24% draws), an engine
    that won every game, one that lost every game, and a pair that only met each other."""
    schedule = mixed_schedule()
    scores = redraw(schedule, np.random.default_rng(5))
    games = list(
        zip(schedule.south.tolist(), schedule.north.tolist(), scores.tolist(), strict=True)
    )
    games += [(100, k, 1.0) for k in range(5)] + [(k, 101, 1.0) for k in range(3, 9)]
    games += [(200, 201, 1.0), (201, 200, 0.5), (200, 201, 0.0)]
    return games


def test_the_fit_from_counts_is_the_fit_over_the_games_to_the_last_bit() -> None:
    games = _history()
    by_game = fit(games)
    by_count = fit_results(_counted(games))
    assert _figures(by_count) == _figures(by_game)
    bounds = {r.engine: r.bound for r in by_game.ratings if r.bound}
    assert bounds == {100: ABOVE, 101: BELOW}
    assert [(e.engine, e.reason) for e in by_game.excluded] == [
        (200, NOT_CONNECTED),
        (201, NOT_CONNECTED),
    ]
    assert by_count.draw_rate == by_game.draw_rate and 0.2 < by_game.draw_rate < 0.5


def test_neither_the_order_nor_the_grouping_of_the_counts_changes_anything() -> None:
    games = _history()
    counted = _counted(games)
    # Each unordered pair once, seen from the other engine (wins and losses swapped).
    merged: dict[tuple[int, int], list[int]] = {}
    for s, n, w, d, lost in counted:
        key, won = ((n, s), (lost, d, w)) if s < n else ((s, n), (w, d, lost))
        merged.setdefault(key, [0, 0, 0])
        merged[key] = [x + y for x, y in zip(merged[key], won, strict=True)]
    regrouped = [(a, b, w, d, lost) for (a, b), (w, d, lost) in reversed(merged.items())]
    expected = _figures(fit(games))
    assert _figures(fit_results(regrouped)) == expected
    assert _figures(fit(list(reversed(games)))) == expected
    assert len(regrouped) < len(counted)


def test_a_record_with_no_games_is_ignored_and_bad_counts_are_refused() -> None:
    games = [("a", "b", 1.0), ("b", "a", 0.5), ("b", "c", 1.0), ("c", "a", 0.0), ("c", "b", 0.5)]
    counted = [*_counted(games), ("a", "z", 0, 0, 0)]
    assert _figures(fit_results(counted)) == _figures(fit(games))
    with pytest.raises(ValueError, match="negative"):
        fit_results([("a", "b", 1, -1, 0)])
    with pytest.raises(ValueError, match="cannot play itself"):
        fit_results([("a", "a", 1, 0, 0)])
    with pytest.raises(ValueError, match="anchor"):
        fit_results(counted, anchor=("z", 1500.0))
    assert fit_results([]).ratings == ()
