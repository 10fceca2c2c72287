"""Refit time of the whole-history rating fit (prints figures, asserts nothing).

Draws ``--versions`` true ratings (normal, mean 1500, sd 200, seeded) and ``--games`` games
between random pairs, each result from the logistic model with draws (p = South's expected
score, a draw with probability 0.8 p (1 - p)), then times ``tournaments.ratings.fit`` over all of
them: the pure fit (aggregation, Newton steps, covariance), as the service's refit and the
ladder simulator call it. Prints the median and best of ``--repeat`` runs, the Newton steps, the
mean 95% half-width and the correlation with the true ratings. Target: under 1 s for 10^5 games
and 500 versions.

Usage::

    python benchmarks/bench_ratings.py [--games 100000] [--versions 500] [--repeat 5] [--seed 1]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tournaments.ratings import EngineRating, fit


def simulated_games(versions: int, games: int, seed: int) -> tuple[list[tuple[int, int, float]],
                                                                  np.ndarray]:
    """``games`` results between random pairs of ``versions`` players, and the true ratings."""
    rng = np.random.default_rng(seed)
    true = rng.normal(1500.0, 200.0, versions)
    south = rng.integers(0, versions, games)
    north = rng.integers(0, versions - 1, games)
    north = np.where(north >= south, north + 1, north)
    p = 1.0 / (1.0 + 10.0 ** (-(true[south] - true[north]) / 400.0))
    draw = 0.8 * p * (1.0 - p)
    u = rng.random(games)
    score = np.where(u < p - draw / 2, 1.0, np.where(u < p + draw / 2, 0.5, 0.0))
    return list(zip(south.tolist(), north.tolist(), score.tolist(), strict=True)), true


def _rating(rating: EngineRating[int] | None) -> float:
    return np.nan if rating is None else rating.rating


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--versions", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    games, true = simulated_games(args.versions, args.games, args.seed)
    timings = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        result = fit(games)
        timings.append(time.perf_counter() - start)
    fitted = np.array([_rating(result.get(v)) for v in range(args.versions)])
    print(
        f"fit of {args.games:,} games, {args.versions} versions: "
        f"median {statistics.median(timings) * 1000:.0f} ms, best {min(timings) * 1000:.0f} ms "
        f"({args.repeat} runs, {result.iterations} Newton steps); "
        f"mean 95% half-width {np.mean([r.half_width for r in result.ratings]):.1f} Elo, "
        f"correlation with the true ratings {np.corrcoef(fitted, true)[0, 1]:.4f}"
    )


if __name__ == "__main__":
    main()
