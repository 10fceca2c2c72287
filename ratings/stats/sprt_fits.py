"""Constrained maximum-likelihood fits of a discrete distribution, for the SPRT's LLR
(:mod:`ratings.stats.sprt`): the distribution of largest likelihood ``sum p_i log q_i`` on
outcomes ``a_i`` (equally spaced on [0, 1]) whose mean, or whose t-value ``(mu - 1/2) /
sigma``, is given.

Pure, standard library only. Sources: M. Van den Bergh, "A note on the MLE of a multinomial
with a given expectation" (the tilt ``q_i = p_i / (1 + lambda d_i)``) and "Normalized Elo:
practical considerations", section 4.1 (the t-value fixed point), as implemented by fishtest's
``LLRcalc.MLE_expected`` / ``MLE_t_value``; the direct search used where that fixed point fails
is this project's own (a profile over the mean of fits with a given mean and variance).
Distributions are ``[(outcome, probability), ...]`` (``pdf``) or lists of probabilities.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence


def moments(pdf: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """Mean and standard deviation of a distribution ``[(outcome, probability), ...]``."""
    mu = sum(a * p for a, p in pdf)
    var = sum(p * (a - mu) ** 2 for a, p in pdf)
    return mu, math.sqrt(var)


class Infeasible(ValueError):
    """A constraint no distribution with every probability positive meets (internal)."""


def tilt(pdf: Sequence[tuple[float, float]], d: Sequence[float]) -> list[float]:
    """``q_i = p_i / (1 + lambda d_i)`` with ``lambda`` such that the ``q_i`` sum to 1, i.e. the
    root of ``f(lambda) = sum p_i d_i / (1 + lambda d_i)`` (strictly decreasing) on the interval
    ``(-1 / d_max, -1 / d_min)`` where every ``1 + lambda d_i`` is positive. Raises
    ``Infeasible`` when every ``d_i`` has one sign (no distribution on these outcomes has
    ``sum q_i d_i = 0``).

    The root is bisected as its distance from the nearer end of that interval, where
    ``1 + lambda d_i`` is computed without cancellation: a record of one outcome puts the root
    within 1e-8 of an end, and there bisecting ``lambda`` itself leaves the ``q_i`` uncertain
    by 1e-8, more than the LLR of a large record can bear."""
    d_max, d_min = max(d), min(d)
    if not (d_max > 0 > d_min):
        raise Infeasible("the constraint lies outside the range of the outcomes")
    probs = [p for _, p in pdf]
    width = 1 / d_max - 1 / d_min

    def from_low(x: float) -> list[float]:  # lambda = -1/d_max + x
        return [(1 - di / d_max) + x * di for di in d]

    def from_high(y: float) -> list[float]:  # lambda = -1/d_min - y
        return [(1 - di / d_min) - y * di for di in d]

    def f(z: Sequence[float]) -> float:
        return sum(p * di / zi for p, di, zi in zip(probs, d, z, strict=True))

    # f falls from +inf at the low end to -inf at the high end.
    upper_half = f(from_low(width / 2)) > 0
    point = from_high if upper_half else from_low
    lo, hi = 0.0, width / 2
    for _ in range(1100):
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        # From the high end, a larger y moves lambda down, where f is larger.
        if (f(point(mid)) > 0) != upper_half:
            lo = mid
        else:
            hi = mid
    z = point((lo + hi) / 2)
    q = [p / zi for p, zi in zip(probs, z, strict=True)]
    total = sum(q)
    return [x / total for x in q]


def fit_mean(pdf: Sequence[tuple[float, float]], score: float) -> list[float]:
    """The distribution of largest likelihood whose mean outcome is ``score`` (in (0, 1))."""
    return tilt(pdf, [a - score for a, _ in pdf])


#: Steps of the fixed point of :func:`fit_t` before the direct search takes over, and the
#: largest change of a probability at which it has settled (fishtest: 10 steps, 1e-9; below
#: about 1e-11 the tilt's rounding keeps the iterates moving).
FIXED_POINT_STEPS = 100
FIXED_POINT_TOLERANCE = 1e-10


def fit_t(pdf: Sequence[tuple[float, float]], t: float) -> list[float]:
    """The distribution of largest likelihood whose t-value ``(mu - 1/2) / sigma`` is ``t``.

    The fixed point of fishtest's ``MLE_t_value`` (Van den Bergh, "Normalized Elo: practical
    considerations", section 4.1): from the **uniform** distribution, tilt the empirical one
    with the ``d_i`` of the current ``mu`` and ``sigma`` until it stops moving. Started
    from the empirical distribution instead, a record of all-equal pairs has ``sigma`` near 0
    and no tilt exists. Where the fixed point has no tilt or does not settle (fishtest then
    raises), :func:`fit_t_search` finds the constrained maximum directly.
    """
    outcomes = [a for a, _ in pdf]
    q = [1 / len(pdf)] * len(pdf)
    for _ in range(FIXED_POINT_STEPS):
        mu, sigma = moments(list(zip(outcomes, q, strict=True)))
        if not sigma > 0:
            break
        d = [a - 0.5 - (t * sigma / 2) * (1 + ((a - mu) / sigma) ** 2) for a in outcomes]
        try:
            new = tilt(pdf, d)
        except Infeasible:
            break
        change = max(abs(x - y) for x, y in zip(new, q, strict=True))
        q = new
        if change < FIXED_POINT_TOLERANCE:
            return _polish(pdf, t, q, change)
    return fit_t_search(pdf, t)


def _polish(
    pdf: Sequence[tuple[float, float]], t: float, q: list[float], change: float
) -> list[float]:
    """A few more steps of :func:`fit_t`'s fixed point once it has settled, while they still
    move it (to 1e-15): the LLR of a record of N pairs moves by about N times the change, so at
    200 000 pairs a change of 1e-11 is 2e-6 of LLR."""
    outcomes = [a for a, _ in pdf]
    for _ in range(10):
        if change <= 1e-15:
            break
        mu, sigma = moments(list(zip(outcomes, q, strict=True)))
        d = [a - 0.5 - (t * sigma / 2) * (1 + ((a - mu) / sigma) ** 2) for a in outcomes]
        try:
            new = tilt(pdf, d)
        except Infeasible:
            break
        new_change = max(abs(x - y) for x, y in zip(new, q, strict=True))
        if new_change >= change:  # rounding: it no longer converges
            break
        q, change = new, new_change
    return q


def _moment_vertices(outcomes: Sequence[float], mean: float, second: float) -> list[list[float]]:
    """The distributions on at most three of ``outcomes`` with the given mean and second moment
    ``E[a^2]`` (the vertices of the polytope of all such distributions): for each three
    outcomes, the solution of the 3 x 3 system by Lagrange's formula, kept if non-negative."""
    vertices = []
    n = len(outcomes)
    for trio in itertools.combinations(range(n), 3):
        q = [0.0] * n
        for i in trio:
            j, k = (x for x in trio if x != i)
            aj, ak, ai = outcomes[j], outcomes[k], outcomes[i]
            q[i] = (second - (aj + ak) * mean + aj * ak) / ((ai - aj) * (ai - ak))
        if min(q) >= 0:
            vertices.append(q)
    return vertices


def fit_moments(pdf: Sequence[tuple[float, float]], mean: float, var: float) -> list[float] | None:
    """The distribution of largest likelihood (maximal ``sum p_i log q_i``) with the given mean
    and variance, or None if no distribution with every probability positive has them.

    Solved in the primal, where no probability is computed by cancellation: an interior start
    (the average of the polytope's vertices, :func:`_moment_vertices`, positive wherever any
    feasible distribution is), then Newton steps within the constraints along the null space of
    the moment equations (for equally spaced outcomes, spanned by the third differences) until
    the Newton decrement is below 1e-24. Three outcomes: the vertex is the answer."""
    outcomes = [a for a, _ in pdf]
    probs = [p for _, p in pdf]
    vertices = _moment_vertices(outcomes, mean, var + mean * mean)
    if not vertices:
        return None
    n = len(outcomes)
    q = [sum(v[i] for v in vertices) / len(vertices) for i in range(n)]
    if min(q) <= 0:
        return None
    # The third differences (-1, 3, -3, 1) at each offset: orthogonal to 1, a and a^2.
    basis = [[0.0] * k + [-1.0, 3.0, -3.0, 1.0] + [0.0] * (n - 4 - k) for k in range(n - 3)]
    if not basis:
        return q

    def value(x: Sequence[float]) -> float:
        return sum(p * math.log(xi) for p, xi in zip(probs, x, strict=True))

    current = value(q)
    for _ in range(200):
        w = [p / x for p, x in zip(probs, q, strict=True)]
        g = [sum(u[i] * w[i] for i in range(n)) for u in basis]
        h = [[sum(u[i] * v[i] * w[i] / q[i] for i in range(n)) for v in basis] for u in basis]
        step = _solve(h, g)
        decrement = sum(a * b for a, b in zip(g, step, strict=True))
        if not decrement > 1e-24:
            break
        direction = [sum(step[k] * basis[k][i] for k in range(len(basis))) for i in range(n)]
        accepted: tuple[list[float], float] | None = None
        size = 1.0
        while accepted is None and size > 1e-15:
            trial = [x + size * d for x, d in zip(q, direction, strict=True)]
            if min(trial) > 0 and value(trial) >= current - 1e-15 * abs(current):
                accepted = trial, value(trial)
            size /= 2
        if accepted is None:
            break
        q, current = accepted
    return q


def _solve(matrix: Sequence[Sequence[float]], rhs: Sequence[float]) -> list[float]:
    """``matrix^-1 rhs`` for a small symmetric positive definite matrix (Gaussian elimination)."""
    n = len(rhs)
    a = [[*row, rhs[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        if a[col][col] == 0:
            return [0.0] * n
        for r in range(col + 1, n):
            factor = a[r][col] / a[col][col]
            for c in range(col, n + 1):
                a[r][c] -= factor * a[col][c]
    x = [0.0] * n
    for r in reversed(range(n)):
        x[r] = (a[r][n] - sum(a[r][c] * x[c] for c in range(r + 1, n))) / a[r][r]
    return x


def feasible_means(outcomes: Sequence[float], t: float) -> list[tuple[float, float]]:
    """The open intervals of means ``m`` for which some distribution with every probability
    positive on ``outcomes`` (equally spaced on [0, 1]) has mean ``m`` and t-value ``t``
    (``t != 0``), i.e. variance ``v = ((m - 1/2) / t)^2``: exactly those with
    ``(m - a_k)(a_(k+1) - m) < v < m (1 - m)`` for the neighbours ``a_k <= m < a_(k+1)`` (the
    point ``(0, 0)`` inside the hull of the points ``(a_i - m, (a_i - m)^2 - v)``)."""
    inv = 1 / (t * t)
    # Both conditions are quadratics in m within one cell [a_k, a_(k+1)]: split it at their
    # roots and keep the pieces whose midpoints meet both.
    half = (0.5, 1.0) if t > 0 else (0.0, 0.5)
    intervals: list[tuple[float, float]] = []
    for a, b in itertools.pairwise(outcomes):
        lo, hi = max(a, half[0]), min(b, half[1])
        if lo >= hi:
            continue
        cuts = {lo, hi}
        # v - (m - a)(b - m) = inv (m - 1/2)^2 + m^2 - (a + b) m + a b
        # m (1 - m) - v      = -(1 + inv) m^2 + (1 + inv) m - inv / 4
        for c2, c1, c0 in ((inv + 1, -inv - a - b, inv / 4 + a * b), (-1 - inv, 1 + inv, -inv / 4)):
            disc = c1 * c1 - 4 * c2 * c0
            if disc >= 0:
                for root in (
                    (-c1 - math.sqrt(disc)) / (2 * c2),
                    (-c1 + math.sqrt(disc)) / (2 * c2),
                ):
                    if lo < root < hi:
                        cuts.add(root)
        points = sorted(cuts)
        for left, right in itertools.pairwise(points):
            m = (left + right) / 2
            v = inv * (m - 0.5) ** 2
            if (m - a) * (b - m) < v < m * (1 - m):
                if intervals and intervals[-1][1] == left:
                    intervals[-1] = (intervals[-1][0], right)
                else:
                    intervals.append((left, right))
    return intervals


def _two_point_means(outcomes: Sequence[float], t: float) -> list[float]:
    """The means of the distributions on two of ``outcomes`` with t-value ``t``: with weight
    ``w`` on ``a_j`` and ``1 - w`` on ``a_i < a_j`` (``c = a_i - 1/2``, ``d = a_j - a_i``),
    ``c + d w = t d sqrt(w (1 - w))``, a quadratic in ``w``. The profile of
    :func:`fit_t_search` has its narrow peaks near these means (the fit puts nearly all its
    mass on two outcomes), so they are scanned too."""
    means = []
    for ai, aj in itertools.combinations(outcomes, 2):
        c, d = ai - 0.5, aj - ai
        qa, qb, qc = d * d * (1 + t * t), 2 * c * d - t * t * d * d, c * c
        disc = qb * qb - 4 * qa * qc
        if disc < 0:
            continue
        for w in ((-qb - math.sqrt(disc)) / (2 * qa), (-qb + math.sqrt(disc)) / (2 * qa)):
            if 0 < w < 1 and (c + d * w) * t > 0:
                means.append(ai + d * w)
    return means


#: Where :func:`fit_t_search` first looks in an interval of feasible means: fractions of its
#: width, geometric towards both ends (a maximum may sit very near one).
_SCAN = sorted(
    {10.0**-k for k in range(1, 10)}
    | {1 - 10.0**-k for k in range(1, 10)}
    | {i / 64 for i in range(1, 64)}
    | {0.5 * 10.0 ** (-k / 2) for k in range(1, 18, 2)}
    | {1 - 0.5 * 10.0 ** (-k / 2) for k in range(1, 18, 2)}
)


def fit_t_search(pdf: Sequence[tuple[float, float]], t: float) -> list[float]:
    """:func:`fit_t` by a direct search: for each feasible mean ``m`` (with ``sigma = (m -
    1/2) / t``) the fit with that mean and variance (:func:`fit_moments`), and the ``m`` of
    largest likelihood (a scan of each feasible interval at the fractions ``_SCAN`` and at the
    means of two-point fits, :func:`_two_point_means`, then a
    golden-section search between the neighbours of each local maximum of the scan). A search,
    not a proof: a peak of the profile between two scan points would be missed (run alone on
    the 2086 normalized cases of the fishtest data it finds fishtest's LLR to 1e-6 on all but
    the one where fishtest's own fit is off by 1.6e-6). ``t = 0`` is the fit of mean 1/2.
    Raises ``Infeasible`` if no mean is feasible (never for outcomes spanning [0, 1] and a
    finite ``t``)."""
    if t == 0:
        return fit_mean(pdf, 0.5)
    outcomes = [a for a, _ in pdf]
    probs = [p for _, p in pdf]
    best_q: list[float] | None = None
    best = -math.inf

    def loglik(m: float) -> float:
        nonlocal best_q, best
        q = fit_moments(pdf, m, ((m - 0.5) / t) ** 2)
        if q is None:
            return -math.inf
        value = sum(p * math.log(x) for p, x in zip(probs, q, strict=True))
        if value > best:
            best_q, best = q, value
        return value

    ratio = (math.sqrt(5) - 1) / 2
    peaks = _two_point_means(outcomes, t)
    for left, right in feasible_means(outcomes, t):
        inner = {left + (right - left) * u for u in _SCAN} | {m for m in peaks if left < m < right}
        grid = [left, *sorted(inner), right]
        values = [-math.inf, *(loglik(m) for m in grid[1:-1]), -math.inf]
        # A golden-section search between the neighbours of every local maximum of the scan
        # (the profile may have two: mass moved to either of two outcomes).
        for k in range(1, len(grid) - 1):
            if not values[k] > -math.inf or values[k] < max(values[k - 1], values[k + 1]):
                continue
            lo, hi = grid[k - 1], grid[k + 1]
            x1, x2 = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
            f1, f2 = loglik(x1), loglik(x2)
            while hi - lo > 1e-12 * max(1e-3, abs(hi - 0.5)):
                if f1 >= f2:
                    hi, x2, f2 = x2, x1, f1
                    x1 = hi - ratio * (hi - lo)
                    f1 = loglik(x1)
                else:
                    lo, x1, f1 = x1, x2, f2
                    x2 = lo + ratio * (hi - lo)
                    f2 = loglik(x2)
    if best_q is None:
        raise Infeasible(f"no fit found with t-value {t}")
    return best_q
