"""Redraw simulation of the rating fit's 95% intervals (pure: numpy only).

A fixed schedule (who plays whom, how often) and known true ratings; each replicate redraws
every game's result and refits. Over the replicates, for the *regular* engines (the ones the
fit calls established):

* **coverage**: the share of (replicate, engine) whose 95% interval holds the true rating;
* **mean half-width**: the mean of the intervals' half-widths (Elo);
* **empirical half-width**: 1.96 times the root-mean-square of (fitted - true) over the
  replicates, per engine, averaged over engines: the width a 95% interval should have;
* **RMSE**: the root-mean-square error of the fitted ratings against the truth.

Fitted and true ratings are both taken relative to the mean of the regulars (the fit's own
reference, ``docs/ratings.md``), so a common shift of the scale is no error.

Results come from the logistic model with draws: South's expected score ``p = E(r_s - r_n)``
and a draw with probability ``draw_factor * p (1 - p)`` (at ``draw_factor`` 1.2 about 25% of
games between players 150 Elo apart are draws), so that the expected score stays ``p``. The
fit's own draw model is another curve (``ratings.stats.whr.draws``): the test is not of the
model against itself.

Used by ``tests/ratings/test_interval_coverage.py`` and ``benchmarks/bench_ratings.py
--coverage``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ratings.stats.whr.fit import Z_95, fit

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Schedule:
    """Who plays whom: game ``g`` has ``south[g]`` against ``north[g]`` (engine indexes), with
    ``true`` the engines' true ratings (Elo)."""

    south: IntArray
    north: IntArray
    true: FloatArray


def mixed_schedule(
    *,
    regulars: int = 26,
    games: int = 2900,
    occasional: tuple[int, ...] = (2, 3, 5, 10),
    spread: float = 150.0,
    seed: int = 1,
) -> Schedule:
    """``regulars`` engines playing ``games`` games between random pairs (about 2 ``games`` /
    ``regulars`` each) and one occasional engine for each entry of ``occasional``, playing
    that many games against random regulars; true ratings normal (mean 1500, sd ``spread``).

    The default is the shape of the pool of issue 26 (about 2,940 games among 30 engines).
    """
    rng = np.random.default_rng(seed)
    n = regulars + len(occasional)
    true = rng.normal(1500.0, spread, n)
    a = rng.integers(0, regulars, games)
    b = rng.integers(0, regulars - 1, games)
    b = np.where(b >= a, b + 1, b)
    south, north = [a], [b]
    for k, count in enumerate(occasional):
        me = np.full(count, regulars + k)
        them = rng.integers(0, regulars, count)
        flip = (np.arange(count) % 2).astype(bool)
        south.append(np.where(flip, them, me))
        north.append(np.where(flip, me, them))
    return Schedule(
        np.concatenate(south).astype(np.int64), np.concatenate(north).astype(np.int64), true
    )


def redraw(schedule: Schedule, rng: np.random.Generator, draw_factor: float = 1.2) -> FloatArray:
    """South's scores (1, 0.5, 0) of every game of ``schedule``, drawn afresh (module doc)."""
    d = schedule.true[schedule.south] - schedule.true[schedule.north]
    p = 1.0 / (1.0 + 10.0 ** (-d / 400.0))
    draw = np.minimum(draw_factor * p * (1.0 - p), 2 * np.minimum(p, 1 - p))
    u = rng.random(len(p))
    return np.where(u < p - draw / 2, 1.0, np.where(u < p + draw / 2, 0.5, 0.0))


@dataclass(frozen=True)
class Coverage:
    """The figures of ``coverage`` (module docstring): Elo, and shares 0..1."""

    replicates: int
    regulars: int
    coverage: float
    mean_half_width: float
    empirical_half_width: float
    rmse: float
    draw_share: float

    @property
    def width_ratio(self) -> float:
        """Mean half-width over the empirical one (1 is right)."""
        return self.mean_half_width / self.empirical_half_width


def coverage(
    schedule: Schedule, replicates: int, *, seed: int = 2, draw_factor: float = 1.2
) -> Coverage:
    """Redraw ``schedule`` ``replicates`` times, refit, and measure the regulars' intervals.

    The regulars are the engines the first replicate's fit does not call provisional.
    """
    rng = np.random.default_rng(seed)
    n = len(schedule.true)
    errors: list[FloatArray] = []
    half: list[FloatArray] = []
    covered = 0
    total = 0
    draws = 0
    regular: IntArray | None = None
    for _ in range(replicates):
        score = redraw(schedule, rng, draw_factor)
        draws += int(np.sum(score == 0.5))
        games = zip(schedule.south.tolist(), schedule.north.tolist(), score.tolist(), strict=True)
        result = fit(games)
        rows = {r.engine: r for r in result.ratings}
        if regular is None:
            regular = np.array(
                sorted(e for e, r in rows.items() if not r.provisional), dtype=np.int64
            )
        fitted = np.array([rows[e].rating for e in regular.tolist()])
        low = np.array([np.nan if rows[e].low is None else rows[e].low for e in regular.tolist()])
        high = np.array([np.nan if rows[e].high is None else rows[e].high for e in regular])
        truth = schedule.true[regular]
        # Both relative to the regulars' mean: the fit's scale has that origin too.
        shift = fitted.mean() - truth.mean()
        error = fitted - shift - truth
        errors.append(error)
        half.append((high - low) / 2)
        covered += int(np.sum((low - shift <= truth) & (truth <= high - shift)))
        total += len(regular)
    assert regular is not None and n > 0
    e = np.array(errors)
    return Coverage(
        replicates=replicates,
        regulars=len(regular),
        coverage=covered / total,
        mean_half_width=float(np.nanmean(np.array(half))),
        empirical_half_width=float(Z_95 * np.mean(np.sqrt(np.mean(e**2, axis=0)))),
        rmse=float(np.sqrt(np.mean(e**2))),
        draw_share=draws / (replicates * len(schedule.south)),
    )
