"""The ladder's matchmaker (pure, no Django): which rated matches to create next.

The ladder (``ladder.simulate``) keeps rated play going by itself. Each time it runs, the
matchmaker gets every engine on a variant's ladder that is free to play (no ladder match queued
or running) and the number of matches wanted, and answers that many pairings, by these rules:

1. **Placement first.** An engine that still owes placement matches (:data:`PLACEMENT_MATCHES`
   when it joins) is paired first, against opponents spread over the rating range: its k-th
   placement opponent (k = 0, 1, ...) is the rated engine nearest the ``(k + 1/2) /
   PLACEMENT_MATCHES`` quantile of the ladder's ratings, so three placement matches meet the
   lower, middle and upper part of the field.
2. **Fair shares.** Otherwise the engine with the fewest ladder matches is paired next (ties are
   broken by the seeded random generator); an engine more than :func:`fair_share_slack` matches
   above the median rests: it is not served, and it is an opponent only of an engine that owes
   placement matches or that may meet no engine which is not resting (say, all of one owner's
   engines beside the bundled ones), so the others can always catch up.
3. **The opponent that best sharpens the order.** The matchmaker keeps an approximate
   covariance of the ratings (:func:`rating_covariance`: the ladder meetings ``met`` weighted
   by the Fisher information ``p (1 - p)`` of a game at the fitted ratings, plus, per engine,
   whatever its interval says it knows beyond them). The leaderboard is right where each pair
   of engines is in the true order. Among the :data:`NEAREST` opponents by fitted rating it
   takes the one whose match is expected to lower the number of pairs, over *all* pairs, that
   the fit orders differently from the truth the most (:func:`discordance_drop`; a match
   changes the covariance by a rank-one update). A close match between two uncertain engines
   wins, as does one that links an engine to a neighbour it has rarely met; a rival met again
   and again, whose difference is already known, does not. Within one run the chosen matches
   are counted as played (batch-greedy), so the run's pairings complement each other.
   (Measured with ``python -m ladder.simulate simulate``, docs/ladder.md: the earlier rule,
   the single pair's information ``p (1 - p) (var_a + var_b) / (1 + n_ab)^2``, needed about
   as many matches as a round robin on 20 seeds.)
4. **No pairing back to back.** An engine is never paired with the opponent of its previous
   ladder match (unless it has no other).

Everything is deterministic for a given ``random.Random``: tests and ``simulate`` are seeded.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy.special import expit, ndtr

#: Placement matches a new engine (version) plays before ordinary ladder pairing.
PLACEMENT_MATCHES = 3
#: The standard error (Elo) assumed for an engine that has no fitted interval yet.
UNRATED_SE = 350.0
#: 95% two-sided normal quantile: a half-width of an interval is 1.96 standard errors.
Z95 = 1.959963984540054
#: Games in one ladder match, on average (a best-of-three plays a third game when level).
GAMES_PER_MATCH = 2.5
#: Opponents (nearest in fitted rating) among which rule 3 chooses.
NEAREST = 12

FloatArray = npt.NDArray[np.float64]

_BETA = math.log(10) / 400  # natural-log odds per Elo point
_TINY = 1e-9  # Elo^2: a variance floor against rounding
# Probabilists' Gauss-Hermite nodes and weights (normalised): E f(Z) ~ sum w_k f(x_k), Z ~ N(0, 1).
_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(8)
_WEIGHTS = _WEIGHTS / _WEIGHTS.sum()


@dataclass(frozen=True)
class LadderEntry:
    """One engine free to play on a ladder.

    ``key``: any hashable id (an engine-version id, a player name). ``rating``: fitted Elo, or
    the pool mean when it has none. ``half_width``: the 95% interval's half-width in Elo, or
    ``None`` while it is not rated. ``matches``: ladder matches it has played or has queued.
    ``placement_left``: placement matches it still owes (0..PLACEMENT_MATCHES).
    ``last_opponent``: the key of its previous ladder opponent, or ``None``.
    """

    key: Hashable
    rating: float
    half_width: float | None
    matches: int
    placement_left: int = 0
    last_opponent: Hashable | None = None

    @property
    def variance(self) -> float:
        """Squared standard error of the rating, Elo^2."""
        se = UNRATED_SE if self.half_width is None else self.half_width / Z95
        return se * se


def expected_score(rating: float, opponent: float) -> float:
    """Logistic expected score: ``1 / (1 + 10^((opponent - rating) / 400))``."""
    return 1 / (1 + 10 ** ((opponent - rating) / 400))


def rating_covariance(
    entries: Sequence[LadderEntry], met: Mapping[frozenset[Hashable], int]
) -> FloatArray:
    """Approximate covariance (Elo^2, ``len(entries)`` square, in ``entries`` order) of the
    entries' ratings, from the ladder meetings and the intervals (module docstring, rule 3).

    The information is that of the whole-history fit restricted to ladder matches: each
    meeting adds :data:`GAMES_PER_MATCH` games of information ``beta^2 p (1 - p)`` (``beta =
    ln 10 / 400``) between the two. An engine whose interval is narrower than its ladder
    meetings explain (games outside the ladder) gets the difference as information about
    itself; every engine gets at least a weak prior of ``1 / (2 UNRATED_SE)^2``, so engines
    not yet linked by meetings stay comparable, with wide uncertainty.
    """
    n = len(entries)
    index = {e.key: i for i, e in enumerate(entries)}
    counts = np.zeros((n, n))
    for pair, times in met.items():
        if len(pair) == 2:
            a, b = (index.get(k) for k in pair)
            if a is not None and b is not None:
                counts[a, b] = counts[b, a] = times
    r = np.array([e.rating for e in entries], dtype=np.float64)
    p = expit(_BETA * (r[:, None] - r[None, :]))
    weight = GAMES_PER_MATCH * _BETA**2 * p * (1 - p) * counts
    linked = weight.sum(axis=1)
    variance = np.array([e.variance for e in entries])
    own = np.maximum(1 / variance - linked, 1 / (2 * UNRATED_SE) ** 2)
    info = np.diag(linked + own) - weight
    return np.asarray(np.linalg.inv(info), dtype=np.float64)


def discordance_drop(
    ratings: FloatArray, covariance: FloatArray, a: int, opponents: Sequence[int]
) -> FloatArray:
    """For each of ``opponents`` (indexes into ``ratings``), how much one match between ``a``
    and it is expected to lower the number of pairs the fit orders differently from the true
    ratings (module docstring, rule 3); an array of ``len(opponents)`` floats (pairs).

    A pair ``(i, j)`` has fitted difference ``d`` and variance ``v``; its true difference is
    taken as ``N(d, v)`` (the posterior) and the fit's error as ``N(0, v)``, so it is in the
    wrong order with probability ``E Phi(-|delta| / sqrt(v))``. The match (information ``w =
    GAMES_PER_MATCH beta^2 p (1 - p)`` along ``e_a - e_b``) lowers the error's variance to
    ``v - w (u_i - u_j)^2 / (1 + w s)`` (``u = covariance (e_a - e_b)``, ``s = u_a - u_b``).
    The expectation over ``delta`` is taken by Gauss-Hermite quadrature. Unlike a plug-in of
    ``d`` for the true difference, a pair fitted level still gains from a sharper estimate.
    """
    n = len(ratings)
    b = np.asarray(opponents, dtype=np.int64)
    i, j = np.triu_indices(n, 1)
    d = ratings[i] - ratings[j]
    v = np.maximum(covariance[i, i] + covariance[j, j] - 2 * covariance[i, j], _TINY)
    gaps = np.abs(d[None, :] + _NODES[:, None] * np.sqrt(v)[None, :])  # (nodes, pairs)
    u = covariance[a][None, :] - covariance[b]  # row k: covariance (e_a - e_b_k)
    s = u[:, a] - u[np.arange(len(b)), b]
    p = expit(_BETA * (ratings[a] - ratings[b]))
    w = GAMES_PER_MATCH * _BETA**2 * p * (1 - p)
    after_sd = np.sqrt(
        np.maximum(v[None, :] - w[:, None] * (u[:, i] - u[:, j]) ** 2 / (1 + w * s)[:, None], _TINY)
    )
    before = _WEIGHTS @ ndtr(-gaps / np.sqrt(v)[None, :])
    after = np.einsum("k,kbp->bp", _WEIGHTS, ndtr(-gaps[:, None, :] / after_sd[None, :, :]))
    return np.asarray((before[None, :] - after).sum(axis=1), dtype=np.float64)


def _count_as_played(ratings: FloatArray, covariance: FloatArray, a: int, b: int) -> FloatArray:
    """``covariance`` after one more match between ``a`` and ``b`` (rank-one update)."""
    u = covariance[:, a] - covariance[:, b]
    p = float(expit(_BETA * (ratings[a] - ratings[b])))
    w = GAMES_PER_MATCH * _BETA**2 * p * (1 - p)
    updated = covariance - np.outer(u, u) * (w / (1 + w * (u[a] - u[b])))
    return np.asarray(updated, dtype=np.float64)


def fair_share_slack(median: float) -> float:
    """How many matches above the median an engine may be before it waits: ``max(2, median /
    10)``."""
    return max(2.0, median / 10)


def _placement_opponent(
    entry: LadderEntry, candidates: Sequence[LadderEntry], rng: random.Random
) -> LadderEntry:
    rated = sorted(
        (c for c in candidates if c.half_width is not None), key=lambda c: (c.rating, str(c.key))
    )
    if not rated:
        return rng.choice(list(candidates))
    k = PLACEMENT_MATCHES - entry.placement_left
    quantile = (k + 0.5) / PLACEMENT_MATCHES
    target = rated[min(len(rated) - 1, int(quantile * len(rated)))].rating
    return min(rated, key=lambda c: (abs(c.rating - target), str(c.key)))


def choose_pairings(
    entries: Sequence[LadderEntry],
    wanted: int,
    rng: random.Random,
    met: Mapping[frozenset[Hashable], int] | None = None,
    compatible: Callable[[Hashable, Hashable], bool] | None = None,
) -> list[tuple[Hashable, Hashable]]:
    """Up to ``wanted`` pairings ``(key_a, key_b)`` among ``entries`` (each engine at most once;
    ``key_a`` is the engine being served, i.e. South in game 1). Fewer when fewer engines are
    free. ``met`` counts the ladder matches already played per pair (``frozenset({a, b})``);
    ``compatible(a, b)``, when given, is False for two keys that must never meet (e.g. two
    engines of one owner, whose games could not be rated). Raises ``ValueError`` for duplicate
    keys."""
    met = met or {}
    keys = [e.key for e in entries]
    if len(set(keys)) != len(keys):
        raise ValueError("ladder entries must have distinct keys")
    median = statistics.median(e.matches for e in entries) if entries else 0.0
    limit = median + fair_share_slack(median)
    free = {e.key: e for e in entries if e.matches <= limit or e.placement_left > 0}
    resting = {e.key: e for e in entries if e.key not in free}
    pairings: list[tuple[Hashable, Hashable]] = []
    position = {e.key: i for i, e in enumerate(entries)}
    ratings = np.array([e.rating for e in entries], dtype=np.float64)
    covariance: FloatArray | None = None
    while len(pairings) < wanted and free and len(free) + len(resting) >= 2:
        order = list(free.values())
        rng.shuffle(order)  # the tie-break among equals
        order.sort(key=lambda e: (e.placement_left == 0, e.matches))
        first = order[0]
        allowed = [e for e in order[1:] if compatible is None or compatible(first.key, e.key)]
        rested = [e for e in resting.values() if compatible is None or compatible(first.key, e.key)]
        if first.placement_left > 0 or not allowed:
            # Resting engines serve placement, and anyone with no other opponent: without
            # them such an engine could never play, and the median never moves.
            allowed += sorted(rested, key=lambda e: str(e.key))
        if not allowed:
            del free[first.key]  # nobody it may meet is free now
            continue
        candidates = [
            e for e in allowed if first.key != e.last_opponent and e.key != first.last_opponent
        ] or allowed
        if first.placement_left > 0:
            second = _placement_opponent(first, candidates, rng)
        else:
            if covariance is None:
                covariance = rating_covariance(entries, met)
            # The nearest ratings only: a far opponent barely moves any pair's order, and the
            # bound keeps one call within a few milliseconds per pairing.
            near = sorted(candidates, key=lambda c: (abs(c.rating - first.rating), str(c.key)))
            near = near[:NEAREST]
            drop = discordance_drop(
                ratings, covariance, position[first.key], [position[c.key] for c in near]
            )
            second = near[int(np.argmax(drop))]
        if covariance is not None:
            covariance = _count_as_played(
                ratings, covariance, position[first.key], position[second.key]
            )
        pairings.append((first.key, second.key))
        del free[first.key]
        free.pop(second.key, None)
        resting.pop(second.key, None)
    return pairings
