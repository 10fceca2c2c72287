"""The maximum-likelihood fit of Elo ratings over a whole history of games (pure: no Django).

Model: logistic Elo on the 400/log10 scale, fitted as Ordo and BayesElo fit engine rating
lists (Bradley-Terry). The expected score of i against j is

    E(d) = 1 / (1 + 10^(-d/400)),   d = r_i - r_j  (Elo),

and a game in which i scored s (1 win, 1/2 draw, 0 loss) adds s ln E(d) + (1 - s) ln(1 - E(d))
to the log-likelihood: a draw counts half a win and half a loss, and colours do not matter. At
the maximum every engine's expected score equals its score (Ordo's equations). The order in
which results arrive changes nothing. The formulas and their sources are in docs/ratings.md.

Choices:

* **Bounds, not priors.** The maximum is finite over a strongly connected group of "scored
  against" only (``ratings.stats.whr.groups``): the main group is rated by maximum
  likelihood, untouched by engines that won or lost every game (or groups that did); those
  get a bound (``EngineRating.bound``: ``">"`` a lower bound, ``"<"`` an upper one) placed as
  Ordo places them, with the other end of their interval unbounded (None).
* **Connectivity.** Engines not joined by games to the rated pool cannot be compared with it;
  they are reported in ``RatingFit.excluded``. The pool is the anchor's component, else the
  component with the most games (then the most engines, then the smallest name/id).
* **Provisional.** A rating is provisional while it is a bound or the engine has played fewer
  than ``PROVISIONAL_GAMES`` rated games (``EngineRating.provisional_reason`` says which).
* **Reference.** The established (not provisional) engines of the main group are the scale's
  reference: their mean is ``pool_mean`` (or all the main group's, while fewer than two are
  established), and every interval is relative to it, so an engine joining with a few games
  moves neither the established ratings nor their intervals. ``anchor`` moves the origin only.
* **Intervals.** ``r ± 1.96 SE``, SE from the sandwich covariance ``H⁺ J H⁺`` of the
  contrast ``r_i - mean of the reference``: ``H`` the observed information, ``J`` the variance
  of the score under the draw model (``ratings.stats.whr.draws``: draws lower it), by sparse
  solves (``ratings.stats.whr.likelihood``).
* **Likelihood of superiority** of a over b: ``Φ((r_a - r_b) / SE(r_a - r_b))`` (the normal
  approximation of the posterior under a flat prior); None when either is a bound.

Numerics: the log-likelihood is concave; Newton's method with step halving from all-equal
ratings, on games aggregated per pair of engines (``benchmarks/bench_ratings.py``).
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
from scipy.sparse import coo_array
from scipy.sparse.csgraph import connected_components
from scipy.special import expit

try:
    from threadpoolctl import threadpool_limits
except ImportError:  # optional: the service installs it; bao-match's own install need not
    threadpool_limits = None

from arena.rules import SOUTH_POINTS
from ratings.stats.whr.draws import estimate_draw_rate
from ratings.stats.whr.groups import ABOVE, BELOW, find_groups, internal_ratings, place
from ratings.stats.whr.likelihood import BETA, Errors, Pairs, maximise

#: An engine's key: a name (command line) or an engine version id (service).
K = TypeVar("K", str, int)

POOL_MEAN = 1500.0
#: Rated games below which a rating is provisional (``docs/ratings.md``).
PROVISIONAL_GAMES = 30
Z_95 = 1.959963984540054  # two-sided 95% quantile of the normal distribution
NOT_CONNECTED = "not connected to the rated pool by games"
NOT_BOUNDED = "no bound against the rated engines: it only met engines rated as bounds"
#: ``EngineRating.provisional_reason`` for each cause.
FEW_GAMES = f"fewer than {PROVISIONAL_GAMES} rated games"
LOWER_BOUND = "rating is only a lower bound: it won every game against the engines below it"
UPPER_BOUND = "rating is only an upper bound: it lost every game against the engines above it"
#: South's score for each finished game result (the rules engine's one table); ``*``
#: (unfinished, aborted) is absent: not rated.
SOUTH_SCORE = SOUTH_POINTS

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def expected_score(rating: float, opponent: float) -> float:
    """The expected score (0..1) of a player rated ``rating`` against ``opponent`` (Elo)."""
    return float(expit(BETA * (rating - opponent)))


@dataclass(frozen=True)
class EngineRating(Generic[K]):
    """One rated engine: its rating and 95% interval (Elo), and its record.

    ``bound`` is ``">"`` when the rating is only a lower bound (the engine won every game
    against those below it; ``high`` is None), ``"<"`` for an upper bound (``low`` is None),
    None for a maximum-likelihood rating (both ends finite). ``provisional_reason`` is empty
    when ``provisional`` is False.
    """

    engine: K
    rating: float
    low: float | None
    high: float | None
    games: int
    wins: int
    draws: int
    losses: int
    bound: str | None = None
    provisional: bool = False
    provisional_reason: str = ""

    @property
    def prior(self) -> bool:
        """True for a bound (the name of what replaced the weak prior, kept for the stored
        column ``Rating.prior``)."""
        return self.bound is not None

    @property
    def points(self) -> float:
        """Points scored: a win 1, a draw 1/2."""
        return self.wins + self.draws / 2

    @property
    def score(self) -> float:
        """Mean points per game (0..1)."""
        return self.points / self.games

    @property
    def half_width(self) -> float | None:
        """Half the width of the 95% interval (Elo); None for a bound."""
        if self.low is None or self.high is None:
            return None
        return (self.high - self.low) / 2


@dataclass(frozen=True)
class Excluded(Generic[K]):
    """An engine that played rated games but is not rated, and why (e.g. ``NOT_CONNECTED``)."""

    engine: K
    reason: str
    games: int


@dataclass(frozen=True, eq=False)
class RatingFit(Generic[K]):
    """The result of ``fit``: ``ratings`` best first (ties by key), ``excluded`` by key;
    ``draw_rate`` is the fitted draw rate between equal engines (0..1, ``draws``)."""

    ratings: tuple[EngineRating[K], ...]
    excluded: tuple[Excluded[K], ...]
    iterations: int  # Newton steps taken
    draw_rate: float = 0.0
    _position: dict[K, int] = field(default_factory=dict, repr=False)  # main group -> row
    _errors: Errors | None = field(default=None, repr=False)

    def get(self, engine: K) -> EngineRating[K] | None:
        """The rating of ``engine``, or None if it is not rated."""
        return self._by_engine.get(engine)

    @cached_property
    def _by_engine(self) -> dict[K, EngineRating[K]]:
        return {r.engine: r for r in self.ratings}

    def superiority(self, a: K, b: K) -> float | None:
        """The likelihood of superiority of ``a`` over ``b`` (0..1; module docstring), None
        when either is a bound. Raises ``KeyError`` if either is not rated."""
        return self.superiorities([(a, b)])[0]

    def superiorities(self, pairs: list[tuple[K, K]]) -> list[float | None]:
        """``superiority(a, b)`` for each ``(a, b)`` of ``pairs``, the variances by blocks of
        contrasts (``Errors.difference_variances``: a leaderboard's list of neighbours costs a
        few solves, not one per version). Raises ``KeyError`` if an engine is not rated."""
        out: list[float | None] = [None] * len(pairs)
        wanted: list[int] = []
        for k, (a, b) in enumerate(pairs):
            ra, rb = self._by_engine[a], self._by_engine[b]
            if ra.bound is None and rb.bound is None and self._errors is not None:
                wanted.append(k)
        if not wanted or self._errors is None:
            return out
        variances = self._errors.difference_variances(
            np.array([self._position[pairs[k][0]] for k in wanted], dtype=np.int64),
            np.array([self._position[pairs[k][1]] for k in wanted], dtype=np.int64),
        )
        for k, var in zip(wanted, variances.tolist(), strict=True):
            a, b = pairs[k]
            diff = self._by_engine[a].rating - self._by_engine[b].rating
            if var <= 0.0:
                out[k] = 0.5 if diff == 0 else float(diff > 0)
            else:
                out[k] = 0.5 * (1.0 + math.erf(diff / math.sqrt(2.0 * var)))
        return out


def fit(
    games: Iterable[tuple[K, K, float]],
    *,
    anchor: tuple[K, float] | None = None,
    pool_mean: float = POOL_MEAN,
) -> RatingFit[K]:
    """Fit ratings to ``games``: ``(south, north, south_score)``, the score 1, 0.5 or 0.

    Without ``anchor`` the reference engines' mean is ``pool_mean`` (Elo; module docstring);
    with ``anchor = (engine, rating)`` that engine is shown at ``rating`` (and the pool is its
    component). No games give an empty fit. Raises ``ValueError`` for a score other than 1,
    0.5 or 0, an engine playing itself, or an anchor that played no game.

    The games are counted per pair first (``fit_results``'s records): the fit is the same
    function of those counts, to the last bit, whichever way it is called.
    """
    south: list[K] = []
    north: list[K] = []
    scores: list[float] = []
    for s, n, x in games:
        if x not in (0.0, 0.5, 1.0):
            raise ValueError(f"a game score is 1, 0.5 or 0, not {x!r}")
        if s == n:
            raise ValueError(f"{s!r} cannot play itself")
        south.append(s)
        north.append(n)
        scores.append(float(x))
    keys, index = _sorted_keys(south + north)
    score = np.asarray(scores, dtype=np.float64)
    wins, draws = (score == 1.0).astype(np.int64), (score == 0.5).astype(np.int64)
    tally = _Tally.count(
        index[: len(south)], index[len(south) :], wins, draws, 1 - wins - draws, len(keys)
    )
    return _fit_tally(tally, keys, anchor, pool_mean)


def fit_results(
    results: Iterable[tuple[K, K, int, int, int]],
    *,
    anchor: tuple[K, float] | None = None,
    pool_mean: float = POOL_MEAN,
) -> RatingFit[K]:
    """``fit`` from games counted per pair of engines: ``(a, b, wins, draws, losses)``, the
    games ``a`` won, drew and lost against ``b`` (either colour; a pair may come in several
    records, in either order). The same fit as ``fit`` over those games, bit for bit: the
    model sees only these counts (colours do not matter). Raises ``ValueError`` for a negative
    count, an engine playing itself, or an anchor that played no game.
    """
    records: list[tuple[K, K, int, int, int]] | npt.NDArray[np.integer]
    if isinstance(results, np.ndarray):
        # An integer array of shape (records, 5) (the service's read, ``head_to_head``).
        records = results
    else:
        records = results if isinstance(results, list) else list(results)
    if isinstance(records, np.ndarray) or (
        records and all(isinstance(e, int) for e in records[0][:2])
    ):
        # Engine version ids (the service): one array, no Python loop over the records.
        table = np.asarray(records, dtype=np.int64).reshape(-1, 5)
        first_all, second_all, counts = table[:, 0], table[:, 1], table[:, 2:]
    else:
        first_all = np.array([r[0] for r in records], dtype=object)
        second_all = np.array([r[1] for r in records], dtype=object)
        counts = np.array([r[2:] for r in records], dtype=np.int64).reshape(-1, 3)
    if np.any(counts < 0):
        k = int(np.flatnonzero(np.any(counts < 0, axis=1))[0])
        raise ValueError(
            f"negative game counts {tuple(counts[k].tolist())!r} for {_plain(first_all[k])!r} "
            f"against {_plain(second_all[k])!r}"
        )
    played = counts.sum(axis=1) > 0
    counts = counts[played]
    first, second = first_all[played], second_all[played]
    keys, index = _sorted_keys(
        first.tolist() + second.tolist()
        if first.dtype == object
        else np.concatenate([first, second])
    )
    a, b = index[: len(first)], index[len(first) :]
    if np.any(a == b):
        raise ValueError(f"{keys[int(a[np.argmax(a == b)])]!r} cannot play itself")
    tally = _Tally.count(a, b, counts[:, 0], counts[:, 1], counts[:, 2], len(keys))
    return _fit_tally(tally, keys, anchor, pool_mean)


def _plain(key: object) -> object:
    """A key as the caller gave it: a Python int for a numpy integer (an array's element)."""
    return int(key) if isinstance(key, np.integer) else key


def _sorted_keys(engines: list[K] | npt.NDArray[np.generic]) -> tuple[list[K], IntArray]:
    """The distinct keys sorted, and each of ``engines`` as its position among them: one
    numbering whatever the order of the input, so both entry points fit the same arrays."""
    if len(engines) == 0:
        return [], np.zeros(0, dtype=np.int64)
    values = np.asarray(engines)
    if values.dtype.kind == "i" and values.min() >= 0 and values.max() < _DIRECT + 4 * len(values):
        # Ids (the service's): numbered through a table of every id up to the largest, the
        # same numbers as the sort below in a few linear passes.
        distinct, index = _unique_small(values)
    else:
        distinct, index = np.unique(values, return_inverse=True)
    keys: list[K] = distinct.tolist()
    return keys, index.astype(np.int64)


#: Non-negative integers below this (plus four per value) are made unique through a table of
#: every value up to the largest (``_unique_small``) rather than by sorting.
_DIRECT = 1 << 22


def _unique_small(values: IntArray) -> tuple[IntArray, IntArray]:
    """``np.unique(values, return_inverse=True)`` for small non-negative integers, by a table
    of every value up to the largest: the same arrays, without the sort."""
    seen = np.zeros(int(values.max()) + 1, dtype=bool)
    seen[values] = True
    distinct = np.flatnonzero(seen)
    number = np.zeros(len(seen), dtype=np.int64)
    number[distinct] = np.arange(len(distinct))
    return distinct.astype(values.dtype), number[values]


def _fit_tally(
    tally: _Tally, keys: list[K], anchor: tuple[K, float] | None, pool_mean: float
) -> RatingFit[K]:
    if anchor is not None and anchor[0] not in keys:
        raise ValueError(f"the anchor {anchor[0]!r} played no game")
    pool = _pool(tally, keys, None if anchor is None else keys.index(anchor[0]))
    left_out = {i: NOT_CONNECTED for i in set(range(len(keys))) - set(pool.tolist())}
    if len(pool) == 0:
        return RatingFit((), _excluded(left_out, keys, tally), 0)
    return _fit_pool(tally, keys, pool, left_out, anchor, pool_mean)


def _one_blas_thread() -> contextlib.AbstractContextManager[object]:
    """BLAS limited to one thread (``threadpoolctl``), or nothing where it is not installed."""
    if threadpool_limits is None:
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")  # type: ignore[no-any-return]


def _excluded(left_out: dict[int, str], keys: list[K], tally: _Tally) -> tuple[Excluded[K], ...]:
    return tuple(
        Excluded(keys[i], reason, int(tally.games[i]))
        for i, reason in sorted(left_out.items(), key=lambda x: keys[x[0]])
    )


def _fit_pool(
    tally: _Tally,
    keys: list[K],
    pool: IntArray,
    left_out: dict[int, str],
    anchor: tuple[K, float] | None,
    pool_mean: float,
) -> RatingFit[K]:
    pairs, pair_draws = _pool_pairs(tally, pool)
    groups = find_groups(pairs, [keys[e] for e in pool.tolist()])
    main = groups.members(groups.main)
    # The main group alone, by maximum likelihood.
    position = np.full(pairs.m, -1, dtype=np.int64)
    position[main] = np.arange(len(main))
    inside = (position[pairs.i] >= 0) & (position[pairs.j] >= 0)
    core = Pairs(
        len(main), position[pairs.i[inside]], position[pairs.j[inside]], pairs.n[inside],
        pairs.s[inside],
    )  # fmt: skip
    # One BLAS thread: on a busy worker machine spinning BLAS threads made the fit ten times
    # slower (bench_ratings); the matrices are at most a few thousand engines wide.
    with _one_blas_thread():
        r_core, iterations = maximise(core)
    core_draws = float(np.sum(pair_draws[inside]))
    d0 = estimate_draw_rate(core.expected(r_core), core.n, core_draws)
    rating = np.zeros(pairs.m)
    rating[main] = r_core
    placed = np.zeros(pairs.m, dtype=bool)
    placed[main] = True
    bound: dict[int, str] = {}
    low = np.full(pairs.m, np.nan)
    high = np.full(pairs.m, np.nan)
    for direction, order in ((ABOVE, groups.above), (BELOW, groups.below)):
        for g in order:
            members = groups.members(g)
            relative = internal_ratings(pairs, members)
            shifts = place(pairs, members, relative, rating, placed, direction, d0)
            if shifts is None:
                left_out.update({int(pool[e]): NOT_BOUNDED for e in members.tolist()})
                continue
            rating[members] = relative + shifts[0]
            (low if direction == ABOVE else high)[members] = relative + shifts[1]
            placed[members] = True
            bound.update({int(e): direction for e in members.tolist()})
    for g in groups.unbounded:
        left_out.update({int(pool[e]): NOT_BOUNDED for e in groups.members(g).tolist()})

    games = tally.games[pool]
    reference = main[games[main] >= PROVISIONAL_GAMES]
    if len(reference) < 2:  # one engine as the reference would have an interval of width 0
        reference = main
    weights = np.zeros(len(main))
    weights[position[reference]] = 1.0 / len(reference)
    # A main group of one engine (a pool of bounds around it) has nothing to be compared
    # with: its interval is unknown (both ends None), not of width 0.
    se = np.full(pairs.m, np.nan)
    errors = None
    if len(main) > 1:
        with _one_blas_thread():
            errors = Errors(core, r_core, d0)
            se[main] = np.sqrt(errors.engine_variances(weights))
    low[main] = rating[main] - Z_95 * se[main]
    high[main] = rating[main] + Z_95 * se[main]

    if anchor is not None:
        origin = anchor[1] - rating[int(np.flatnonzero(pool == keys.index(anchor[0]))[0])]
    else:
        origin = pool_mean - float(np.mean(rating[reference]))
    rated: list[EngineRating[K]] = []
    for p, e in enumerate(pool.tolist()):
        if not placed[p]:
            continue
        side = bound.get(p)
        reason: str = (
            LOWER_BOUND if side == ABOVE
            else UPPER_BOUND if side == BELOW
            else FEW_GAMES if games[p] < PROVISIONAL_GAMES
            else ""
        )  # fmt: skip
        rated.append(
            EngineRating(
                engine=keys[e],
                rating=float(rating[p] + origin),
                low=None if math.isnan(low[p]) else float(low[p] + origin),
                high=None if math.isnan(high[p]) else float(high[p] + origin),
                games=int(tally.games[e]),
                wins=int(tally.wins[e]),
                draws=int(tally.draws[e]),
                losses=int(tally.losses[e]),
                bound=side,
                provisional=bool(reason),
                provisional_reason=reason,
            )
        )
    # Equal ratings (to 1e-6 Elo: rounding noise) are listed by key, whatever the games' order.
    rated.sort(key=lambda x: (-round(x.rating, 6), x.engine))
    return RatingFit(
        tuple(rated),
        _excluded(left_out, keys, tally),
        iterations,
        d0,
        {keys[int(pool[p])]: k for k, p in enumerate(main.tolist())},
        errors,
    )


def _pool_pairs(tally: _Tally, pool: IntArray) -> tuple[Pairs, FloatArray]:
    """The pool's pairs (positions in ``pool``) and the draws of each."""
    position = np.full(len(tally.games), -1, dtype=np.int64)
    position[pool] = np.arange(len(pool))
    keep = position[tally.pair_i] >= 0  # a pair lies within one component
    pairs = Pairs(
        len(pool),
        position[tally.pair_i[keep]],
        position[tally.pair_j[keep]],
        tally.pair_games[keep],
        tally.pair_points[keep],
    )
    return pairs, tally.pair_draws[keep]


@dataclass(frozen=True)
class WholeHistory:
    """The whole-history fit as a rating method (``ratings.stats.methods``): ``fit`` with the
    reference mean at ``POOL_MEAN`` and no anchor."""

    id: str = "whr"
    label: str = "whole-history maximum-likelihood Elo"

    def fit(self, games: Iterable[tuple[K, K, float]]) -> RatingFit[K]:
        """``fit(games)`` (the module's function; raises what it raises)."""
        return fit(games)

    def fit_results(self, results: Iterable[tuple[K, K, int, int, int]]) -> RatingFit[K]:
        """``fit_results(results)`` (the module's function; raises what it raises)."""
        return fit_results(results)


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
    pair_draws: FloatArray

    @classmethod
    def count(
        cls,
        first: IntArray,
        second: IntArray,
        wins: IntArray,
        draws: IntArray,
        losses: IntArray,
        n: int,
    ) -> _Tally:
        """Records ``first[k]`` against ``second[k]`` (engine positions 0..n-1; a game is one
        record ``1, 0, 0`` etc.): ``wins[k]``, ``draws[k]``, ``losses[k]`` games. Every sum
        is of whole games or half points, exact in floating point, so the tally is the same
        whatever the records' grouping and order."""

        def per_engine(mine: IntArray, theirs: IntArray) -> FloatArray:
            return (
                np.bincount(first, weights=mine, minlength=n)
                + np.bincount(second, weights=theirs, minlength=n)
            ).astype(np.float64)

        low = np.minimum(first, second)
        high = np.maximum(first, second)
        low_wins = np.where(first == low, wins, losses)
        codes = low * n + high
        if len(codes) and n * n < _DIRECT + 4 * len(codes):
            pairs, inverse = _unique_small(codes)
        else:
            pairs, inverse = np.unique(codes, return_inverse=True)
        games = wins + draws + losses

        def per_pair(weights: IntArray) -> FloatArray:
            return np.bincount(inverse, weights=weights, minlength=len(pairs)).astype(np.float64)

        won, drawn, lost = (
            per_engine(wins, losses),
            per_engine(draws, draws),
            per_engine(losses, wins),
        )
        return cls(
            wins=won,
            draws=drawn,
            losses=lost,
            games=won + drawn + lost,
            pair_i=pairs // n if n else pairs,
            pair_j=pairs % n if n else pairs,
            pair_games=per_pair(games),
            pair_points=per_pair(low_wins) + per_pair(draws) / 2.0,
            pair_draws=per_pair(draws),
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
