"""The maximum-likelihood fit of Elo ratings over a whole history of games (pure: no Django).

Model: logistic Elo on the 400/log10 scale, fitted as Ordo and BayesElo fit engine rating
lists (Bradley-Terry). The expected score of i against j is

    E(d) = 1 / (1 + 10^(-d/400)),   d = r_i - r_j  (Elo),

and a game in which i scored s (1 win, 1/2 draw, 0 loss) adds s ln E(d) + (1 - s) ln(1 - E(d))
to the log-likelihood: a draw counts half a win and half a loss, and colours do not matter. The
ratings maximise the log-likelihood of all games at once, so the order in which results arrive
changes nothing. Only differences are determined: the pool mean is set to 1500, or an anchor
engine is held at a given rating.

Choices:

* **Weak prior.** An engine with only wins (or only losses) has no finite maximum-likelihood
  rating. It gets one virtual draw against an opponent rated at the pool mean (the mean of the
  ratings being fitted, so the objective stays shift-invariant), as BayesElo's draw prior does;
  this adds ``ln E(r - mean) / 2 + ln(1 - E(r - mean)) / 2``. The same can happen one level
  up: in the directed graph "i scored a point or half a point against j", the strongly
  connected groups form a DAG (Zermelo; Ford 1957: the maximum is finite when the graph is
  strongly connected). With the prior pinning some engines to the pool mean, the maximum is
  still infinite exactly when some source group and some sink group of that DAG both lack the
  prior (e.g. a and b draw each other and beat c and d, who draw each other); then every
  engine of a source or sink group without the prior gets it too. Every other engine's rating
  is the plain maximum-likelihood value (``EngineRating.prior`` says which ones are not).
* **Connectivity.** Engines not joined by games to the rated pool cannot be compared with it;
  they are reported in ``RatingFit.excluded``, not rated. The pool is the anchor's component,
  else the component with the most games (then the most engines, then the smallest name/id).
* **Intervals.** The observed Fisher information I (minus the Hessian of the log-likelihood,
  prior included, at the maximum) is singular along the common shift; its pseudo-inverse I⁺ is
  the covariance of the ratings relative to the pool mean. The 95% interval is
  ``r ± 1.96 sqrt(I⁺_ii)``, with or without an anchor (the anchor fixes the scale's origin, not
  the anchored engine's uncertainty). A rating is provisional while the half-width exceeds
  ``PROVISIONAL_HALF_WIDTH`` = 100 Elo.
* **Likelihood of superiority** of a over b: ``Φ((r_a - r_b) / sqrt(I⁺_aa + I⁺_bb - 2 I⁺_ab))``
  (the normal approximation of the posterior under a flat prior).

Numerics: the log-likelihood is concave; Newton's method with step halving (no rating moving
more than 400 Elo in one step) from all-equal ratings, on games aggregated per pair of engines
(10^5 games between 500 engines take a few tens of ms; ``benchmarks/bench_ratings.py``).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Generic, TypeVar

import numpy as np
import numpy.typing as npt
from scipy.linalg import cho_factor, cho_solve
from scipy.sparse import coo_array
from scipy.sparse.csgraph import connected_components
from scipy.special import expit, log_expit

try:
    from threadpoolctl import threadpool_limits
except ImportError:  # optional: the service installs it; bao-match's own install need not
    threadpool_limits = None

from arena.rules import SOUTH_POINTS

#: An engine's key: a name (command line) or an engine version id (service).
K = TypeVar("K", str, int)

POOL_MEAN = 1500.0
PROVISIONAL_HALF_WIDTH = 100.0  # Elo
Z_95 = 1.959963984540054  # two-sided 95% quantile of the normal distribution
NOT_CONNECTED = "not connected to the rated pool by games"
#: South's score for each finished game result (the rules engine's one table); ``*``
#: (unfinished, aborted) is absent: not rated.
SOUTH_SCORE = SOUTH_POINTS

_BETA = math.log(10.0) / 400.0  # natural-log odds per Elo point
_MAX_ITERATIONS = 200
_TOLERANCE = 1e-7  # Elo: stop when no rating moves more than this
# Elo: the most one Newton step may move a rating. Far from the maximum (an engine with
# lopsided results) a full step can overshoot by thousands of Elo into a region where every
# p (1 - p) underflows and the information is numerically singular (seen in
# ``python -m ladder.simulate simulate --players 40 --matches 3000 --seed 18``); a shorter
# step in the same direction still climbs the concave log-likelihood.
_MAX_STEP = 400.0

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def expected_score(rating: float, opponent: float) -> float:
    """The expected score (0..1) of a player rated ``rating`` against ``opponent`` (Elo)."""
    return float(expit(_BETA * (rating - opponent)))


@dataclass(frozen=True)
class EngineRating(Generic[K]):
    """One rated engine: its rating and 95% interval (Elo), and its record.

    ``prior`` is True when the rating includes the weak prior (one virtual draw against the
    pool mean), False for a plain maximum-likelihood value.
    """

    engine: K
    rating: float
    low: float
    high: float
    games: int
    wins: int
    draws: int
    losses: int
    prior: bool

    @property
    def points(self) -> float:
        """Points scored: a win 1, a draw 1/2."""
        return self.wins + self.draws / 2

    @property
    def score(self) -> float:
        """Mean points per game (0..1)."""
        return self.points / self.games

    @property
    def half_width(self) -> float:
        """Half the width of the 95% interval (Elo)."""
        return (self.high - self.low) / 2

    @property
    def provisional(self) -> bool:
        """True while the 95% interval's half-width exceeds ``PROVISIONAL_HALF_WIDTH``."""
        return self.half_width > PROVISIONAL_HALF_WIDTH


@dataclass(frozen=True)
class Excluded(Generic[K]):
    """An engine that played rated games but is not rated, and why (e.g. ``NOT_CONNECTED``)."""

    engine: K
    reason: str
    games: int


@dataclass(frozen=True, eq=False)
class RatingFit(Generic[K]):
    """The result of ``fit``: ``ratings`` best first (ties by key), ``excluded`` by key."""

    ratings: tuple[EngineRating[K], ...]
    excluded: tuple[Excluded[K], ...]
    iterations: int  # Newton steps taken
    _position: dict[K, int] = field(repr=False)  # engine -> row of _covariance
    _covariance: FloatArray = field(repr=False)  # Elo^2, relative to the pool mean

    def get(self, engine: K) -> EngineRating[K] | None:
        """The rating of ``engine``, or None if it is not rated."""
        return self._by_engine.get(engine)

    @cached_property
    def _by_engine(self) -> dict[K, EngineRating[K]]:
        return {r.engine: r for r in self.ratings}

    def superiority(self, a: K, b: K) -> float:
        """The likelihood of superiority of ``a`` over ``b`` (0..1; module docstring).

        Raises ``KeyError`` if either is not rated.
        """
        i, j = self._position[a], self._position[b]
        diff = self._by_engine[a].rating - self._by_engine[b].rating
        c = self._covariance
        var = c[i, i] + c[j, j] - 2 * c[i, j]
        if var <= 0.0:
            return 0.5 if diff == 0 else float(diff > 0)
        return 0.5 * (1.0 + math.erf(diff / math.sqrt(2.0 * var)))


def fit(
    games: Iterable[tuple[K, K, float]],
    *,
    anchor: tuple[K, float] | None = None,
    pool_mean: float = POOL_MEAN,
) -> RatingFit[K]:
    """Fit ratings to ``games``: ``(south, north, south_score)``, the score 1, 0.5 or 0.

    Without ``anchor`` the rated engines' mean is ``pool_mean`` (Elo); with ``anchor =
    (engine, rating)`` that engine is held at ``rating`` (and the pool is its component). No
    games give an empty fit. Raises ``ValueError`` for a score other than 1, 0.5 or 0, an
    engine playing itself, or an anchor that played no game.
    """
    index: dict[K, int] = {}
    south: list[int] = []
    north: list[int] = []
    scores: list[float] = []
    for s, n, x in games:
        if x not in (0.0, 0.5, 1.0):
            raise ValueError(f"a game score is 1, 0.5 or 0, not {x!r}")
        if s == n:
            raise ValueError(f"{s!r} cannot play itself")
        south.append(index.setdefault(s, len(index)))
        north.append(index.setdefault(n, len(index)))
        scores.append(float(x))
    keys = list(index)
    if anchor is not None and anchor[0] not in index:
        raise ValueError(f"the anchor {anchor[0]!r} played no game")
    tally = _Tally.count(
        np.asarray(south, dtype=np.int64),
        np.asarray(north, dtype=np.int64),
        np.asarray(scores, dtype=np.float64),
        len(keys),
    )
    pool = _pool(tally, keys, None if anchor is None else index[anchor[0]])
    excluded = tuple(
        Excluded(keys[i], NOT_CONNECTED, int(tally.games[i]))
        for i in sorted(set(range(len(keys))) - set(pool.tolist()), key=lambda i: keys[i])
    )
    if len(pool) == 0:
        return RatingFit((), excluded, 0, {}, np.zeros((0, 0)))
    problem = _Problem.build(tally, pool)
    # One BLAS thread: an m x m solve (m <= a few thousand) gains little from threads, and on a
    # busy worker machine spinning BLAS threads made the fit ten times slower (bench_ratings).
    limits = (
        threadpool_limits(limits=1, user_api="blas")
        if threadpool_limits is not None
        else contextlib.nullcontext()
    )
    with limits:
        r, iterations = problem.maximise()
        covariance = problem.covariance(r)
    if anchor is not None:
        r += anchor[1] - r[int(np.flatnonzero(pool == index[anchor[0]])[0])]
    else:
        r += pool_mean - r.mean()
    se = np.sqrt(np.clip(np.diag(covariance), 0.0, None))
    rated = [
        EngineRating(
            engine=keys[e],
            rating=float(r[p]),
            low=float(r[p] - Z_95 * se[p]),
            high=float(r[p] + Z_95 * se[p]),
            games=int(tally.games[e]),
            wins=int(tally.wins[e]),
            draws=int(tally.draws[e]),
            losses=int(tally.losses[e]),
            prior=bool(problem.prior[p]),
        )
        for p, e in enumerate(pool.tolist())
    ]
    # Equal ratings (to 1e-6 Elo: rounding noise) are listed by key, whatever the games' order.
    rated.sort(key=lambda x: (-round(x.rating, 6), x.engine))
    position = {keys[e]: p for p, e in enumerate(pool.tolist())}
    return RatingFit(tuple(rated), excluded, iterations, position, covariance)


@dataclass(frozen=True)
class WholeHistory:
    """The whole-history fit as a rating method (``ratings.stats.methods``): ``fit`` with the
    pool mean at ``POOL_MEAN`` and no anchor."""

    id: str = "whr"
    label: str = "whole-history maximum-likelihood Elo"

    def fit(self, games: Iterable[tuple[K, K, float]]) -> RatingFit[K]:
        """``fit(games)`` (the module's function; raises what it raises)."""
        return fit(games)


@dataclass(frozen=True)
class _Tally:
    """Games aggregated per engine (records) and per unordered pair (i < j)."""

    wins: FloatArray
    draws: FloatArray
    losses: FloatArray
    games: FloatArray
    pair_i: IntArray
    pair_j: IntArray
    pair_games: FloatArray
    pair_points: FloatArray  # points of pair_i against pair_j

    @classmethod
    def count(cls, south: IntArray, north: IntArray, score: FloatArray, n: int) -> _Tally:
        def per_engine(result: float) -> FloatArray:
            mine = np.bincount(south, weights=score == result, minlength=n)
            theirs = np.bincount(north, weights=score == 1.0 - result, minlength=n)
            return (mine + theirs).astype(np.float64)

        wins, draws, losses = per_engine(1.0), per_engine(0.5), per_engine(0.0)
        low = np.minimum(south, north)
        high = np.maximum(south, north)
        low_points = np.where(south == low, score, 1.0 - score)
        pairs, inverse = np.unique(low * n + high, return_inverse=True)
        return cls(
            wins=wins,
            draws=draws,
            losses=losses,
            games=wins + draws + losses,
            pair_i=pairs // n if n else pairs,
            pair_j=pairs % n if n else pairs,
            pair_games=np.bincount(inverse, minlength=len(pairs)).astype(np.float64),
            pair_points=np.bincount(inverse, weights=low_points, minlength=len(pairs)).astype(
                np.float64
            ),
        )


def _pool(tally: _Tally, keys: list[K], anchor: int | None) -> IntArray:
    """The engines (sorted indexes) of the component to rate (module docstring)."""
    n = len(keys)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    graph = coo_array((np.ones(len(tally.pair_i)), (tally.pair_i, tally.pair_j)), shape=(n, n))
    _, labels = connected_components(graph, directed=False)
    if anchor is not None:
        chosen = labels[anchor]
    else:
        members: dict[int, list[int]] = {}
        for i, label in enumerate(labels.tolist()):
            members.setdefault(label, []).append(i)

        def order(label: int) -> tuple[float, int, K]:
            engines = members[label]
            return -float(tally.games[engines].sum()), -len(engines), min(keys[i] for i in engines)

        chosen = min(members, key=order)
    return np.flatnonzero(labels == chosen).astype(np.int64)


@dataclass
class _Problem:
    """The log-likelihood over the pool's m engines, with the weak prior where needed."""

    m: int
    i: IntArray  # pair endpoints, pool positions
    j: IntArray
    n: FloatArray  # games per pair
    s: FloatArray  # i's points per pair
    prior: npt.NDArray[np.bool_]  # engines with the virtual draw

    @classmethod
    def build(cls, tally: _Tally, pool: IntArray) -> _Problem:
        position = np.full(len(tally.games), -1, dtype=np.int64)
        position[pool] = np.arange(len(pool))
        keep = position[tally.pair_i] >= 0  # a pair lies within one component
        i, j = position[tally.pair_i[keep]], position[tally.pair_j[keep]]
        n, s = tally.pair_games[keep], tally.pair_points[keep]
        points = (tally.wins + tally.draws / 2)[pool]
        prior = (points == 0) | (points == tally.games[pool])
        return cls(len(pool), i, j, n, s, _close_prior(len(pool), i, j, n, s, prior))

    def log_likelihood(self, r: FloatArray) -> float:
        x = _BETA * (r[self.i] - r[self.j])
        total = float(np.sum(self.s * log_expit(x) + (self.n - self.s) * log_expit(-x)))
        y = _BETA * (r[self.prior] - r.mean())
        return total + float(np.sum(0.5 * log_expit(y) + 0.5 * log_expit(-y)))

    def gradient(self, r: FloatArray) -> FloatArray:
        x = _BETA * (r[self.i] - r[self.j])
        g = _BETA * (self.s - self.n * expit(x))
        grad = np.bincount(self.i, weights=g, minlength=self.m) - np.bincount(
            self.j, weights=g, minlength=self.m
        )
        y = _BETA * (r[self.prior] - r.mean())
        h = _BETA * (0.5 - expit(y))
        grad[self.prior] += h
        result: FloatArray = grad - h.sum() / self.m
        return result

    def information(self, r: FloatArray) -> FloatArray:
        """Minus the Hessian of the log-likelihood (Elo^-2), an m x m matrix."""
        p = expit(_BETA * (r[self.i] - r[self.j]))
        w = _BETA**2 * self.n * p * (1.0 - p)
        info = np.zeros((self.m, self.m))
        info[self.i, self.j] = -w
        info[self.j, self.i] = -w
        diagonal = np.bincount(self.i, weights=w, minlength=self.m) + np.bincount(
            self.j, weights=w, minlength=self.m
        )
        q = expit(_BETA * (r[self.prior] - r.mean()))
        u = np.zeros(self.m)
        u[self.prior] = _BETA**2 * q * (1.0 - q)
        # sum over prior engines k of u_k (e_k - 1/m)(e_k - 1/m)^T
        info -= (u[:, None] + u[None, :]) / self.m
        info += u.sum() / self.m**2
        info[np.diag_indices(self.m)] += diagonal + u
        return info

    def _solve(self, info: FloatArray, rhs: FloatArray) -> FloatArray:
        # info is positive semi-definite and singular along the all-ones vector only (the pool
        # is connected); adding c 11^T (any c > 0) makes it positive definite without changing
        # the answer on the rest, so Cholesky applies. c is taken on the scale of info's own
        # entries: a fixed c = 1/m dwarfs an information of ~1e-12 (ratings thousands of Elo
        # apart, a chain of decisive wins) and rounding then breaks the factorization.
        scale = float(np.mean(np.diag(info)))
        try:
            factor = cho_factor(info + (scale if scale > 0.0 else 1.0) / self.m, check_finite=False)
        except np.linalg.LinAlgError:
            # Numerically singular beyond the all-ones direction (some p (1 - p) underflowed):
            # the pseudo-inverse still gives the step, or the covariance, on the rest.
            pinv = np.linalg.pinv(info, hermitian=True)
            return np.asarray(pinv @ rhs, dtype=np.float64)
        return np.asarray(cho_solve(factor, rhs, check_finite=False), dtype=np.float64)

    def maximise(self) -> tuple[FloatArray, int]:
        """Newton's method with step halving; returns ratings (mean 0) and the steps taken."""
        r = np.zeros(self.m)
        value = self.log_likelihood(r)
        for iteration in range(1, _MAX_ITERATIONS + 1):
            step = self._solve(self.information(r), self.gradient(r))
            t = min(1.0, _MAX_STEP / max(float(np.max(np.abs(step), initial=0.0)), 1e-300))
            while True:
                candidate = r + t * step
                new_value = self.log_likelihood(candidate)
                if new_value >= value - 1e-12 * abs(value) or t < 1e-6:
                    break
                t /= 2
            r, value = candidate - candidate.mean(), new_value
            if float(np.max(np.abs(t * step), initial=0.0)) < _TOLERANCE:
                return r, iteration
        return r, _MAX_ITERATIONS

    def covariance(self, r: FloatArray) -> FloatArray:
        """The pseudo-inverse of the information at ``r``: covariance about the pool mean."""
        identity = np.eye(self.m)
        centre = identity - 1.0 / self.m
        return centre @ self._solve(self.information(r), centre)


def _close_prior(
    m: int,
    i: IntArray,
    j: IntArray,
    n: FloatArray,
    s: FloatArray,
    prior: npt.NDArray[np.bool_],
) -> npt.NDArray[np.bool_]:
    """``prior`` extended to the groups that would drift without bound (module docstring).

    In the condensation of "scored against", a direction in which the log-likelihood grows for
    ever raises a source group and lowers a sink group while every engine with the prior stays
    at the pool mean; it exists exactly when a source and a sink both lack the prior. Then every
    source and sink group without it gets it (both ends, so mirroring all results mirrors the
    fit).
    """
    scored = np.concatenate([i[s > 0], j[s < n]])  # edges scorer -> conceder
    conceded = np.concatenate([j[s > 0], i[s < n]])
    graph = coo_array((np.ones(len(scored)), (scored, conceded)), shape=(m, m))
    count, labels = connected_components(graph, directed=True, connection="strong")
    crossing = labels[scored] != labels[conceded]
    is_source = np.ones(count, dtype=bool)
    is_sink = np.ones(count, dtype=bool)
    is_sink[labels[scored[crossing]]] = False
    is_source[labels[conceded[crossing]]] = False
    has_prior = np.zeros(count, dtype=bool)
    has_prior[labels[prior]] = True
    bare_sources = is_source & ~has_prior
    bare_sinks = is_sink & ~has_prior
    if count == 1 or not (bare_sources.any() and bare_sinks.any()):
        return prior
    return prior | (bare_sources | bare_sinks)[labels]
