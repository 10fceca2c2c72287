"""The numerics of the rating fit (pure): the Newton maximisation of the log-likelihood and the
sandwich variances of the ratings, on sparse matrices.

Both matrices are graph Laplacians over the engines of a strongly connected group, one weight
per pair of engines that met: the information ``H`` (weights ``beta^2 n E (1 - E)``) and the
variance of the score ``J`` (weights ``beta^2 n V``, ``V`` the variance of one game's score
under the draw model, ``ratings.stats.whr.draws``). Both are singular along the common shift
only; every solve grounds one engine (drops its row and column: any solution differs from
the pseudo-inverse's by a constant, which no contrast sees) and factorises the rest with
SuperLU (or, when the pool is so well mixed that the factor fills in anyway, dense Cholesky:
``Grounded``), and the covariance is never formed: the variance of each engine's rating
relative to the reference comes from solves in blocks of ``_BLOCK`` columns.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import numpy.typing as npt
from scipy.linalg import cho_factor, cho_solve
from scipy.sparse import csc_array, diags_array
from scipy.sparse.linalg import SuperLU, splu
from scipy.special import expit, log_expit

from ratings.stats.whr.draws import score_variance

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
#: A Laplacian: dense up to ``_DENSE_ENGINES`` engines, sparse above (``Pairs.laplacian``).
Matrix = FloatArray | csc_array

BETA = math.log(10.0) / 400.0  # natural-log odds per Elo point
_MAX_ITERATIONS = 200
_TOLERANCE = 1e-7  # Elo: stop when no rating moves more than this
# Elo: the most one Newton step may move a rating. Far from the maximum (an engine with
# lopsided results) a full step can overshoot by thousands of Elo into a region where every
# p (1 - p) underflows (seen in ``python -m ladder.simulate simulate --players 40 --matches
# 3000 --seed 18``); a shorter step in the same direction still climbs the concave
# log-likelihood.
_MAX_STEP = 400.0
_BLOCK = 128  # right-hand sides per solve when computing every engine's variance
_DENSE_ENGINES = 1000  # Grounded: at most this many engines, a dense factor
_DENSE_SHARE = 0.05  # Grounded: a dense factor above this share of non-zero entries


@dataclass(frozen=True)
class Pairs:
    """The games of ``m`` engines aggregated per unordered pair: ``i[k] < j[k]`` (positions
    0..m-1) met ``n[k]`` times and ``i[k]`` scored ``s[k]`` points."""

    m: int
    i: IntArray
    j: IntArray
    n: FloatArray
    s: FloatArray

    def expected(self, r: FloatArray) -> FloatArray:
        """The expected score of ``i`` against ``j`` per pair at ratings ``r`` (Elo)."""
        result: FloatArray = expit(BETA * (r[self.i] - r[self.j]))
        return result

    @cached_property
    def _flat(self) -> tuple[IntArray, IntArray, IntArray]:
        """The positions of ``(i, j)``, ``(j, i)`` and the diagonal in a flattened m x m array
        (computed once: a fit builds a Laplacian per Newton step)."""
        m = self.m
        return self.i * m + self.j, self.j * m + self.i, np.arange(m) * (m + 1)

    def laplacian(self, weight: FloatArray) -> Matrix:
        """The Laplacian with ``weight`` per pair (m x m): a dense array up to
        ``_DENSE_ENGINES`` engines (``Grounded`` factorises those dense anyway, and building
        the sparse form cost more than the factor at 500 engines), sparse above."""
        degree = np.bincount(self.i, weights=weight, minlength=self.m) + np.bincount(
            self.j, weights=weight, minlength=self.m
        )
        if self.m <= _DENSE_ENGINES:
            # One entry per pair and side: no sums, the same numbers as the sparse form.
            upper, lower, diagonal = self._flat
            dense = np.zeros(self.m * self.m)
            negative = -weight
            dense[upper] = negative
            dense[lower] = negative
            dense[diagonal] = degree
            return dense.reshape(self.m, self.m)
        off = csc_array(
            (np.concatenate([-weight, -weight]),
             (np.concatenate([self.i, self.j]), np.concatenate([self.j, self.i]))),
            shape=(self.m, self.m),
        )  # fmt: skip
        return csc_array(off + diags_array(degree, format="csc"))

    def log_likelihood(self, r: FloatArray) -> float:
        x = BETA * (r[self.i] - r[self.j])
        up = log_expit(x)
        # ln(1 - E) = ln E - x: one logarithm per pair, not two.
        return float(np.sum(self.s * up + (self.n - self.s) * (up - x)))

    def gradient(self, r: FloatArray, expected: FloatArray | None = None) -> FloatArray:
        """The gradient of the log-likelihood at ``r`` (Elo^-1); ``expected``: the pairs'
        expected scores at ``r`` if the caller has them (``expected(r)``)."""
        g = BETA * (self.s - self.n * (self.expected(r) if expected is None else expected))
        up = np.bincount(self.i, weights=g, minlength=self.m).astype(np.float64)
        down = np.bincount(self.j, weights=g, minlength=self.m).astype(np.float64)
        result: FloatArray = up - down
        return result

    def information(self, r: FloatArray, expected: FloatArray | None = None) -> Matrix:
        """Minus the Hessian of the log-likelihood at ``r`` (Elo^-2; ``expected`` as for
        ``gradient``)."""
        p = self.expected(r) if expected is None else expected
        return self.laplacian(BETA**2 * self.n * p * (1.0 - p))


class Grounded:
    """A Laplacian ``L`` factorised with engine ``ground``'s row and column dropped.

    ``solve(B)`` returns ``X`` with ``L X = B`` and ``X[ground] = 0`` for right-hand sides
    ``B`` (m x k) whose columns sum to zero.

    A pool where most pairs met (a round robin; 10^5 games among 500 versions) fills in its
    factor almost completely, and SuperLU is then several times slower than LAPACK's
    Cholesky on the same numbers (2.6 s against 0.3 s for the whole fit in
    ``bench_ratings.py``): above ``_DENSE_SHARE`` of non-zero entries, or up to a thousand
    engines, the reduced matrix is factorised dense (its size, never the covariance's, which
    is only ever taken ``_BLOCK`` columns at a time). A sparse pool (a ladder's neighbours)
    keeps SuperLU.
    """

    def __init__(self, laplacian: Matrix, ground: int) -> None:
        m = laplacian.shape[0]
        self.m, self.ground = m, ground
        self.keep = np.flatnonzero(np.arange(m) != ground)
        self._lu: SuperLU | None = None
        self._cho: tuple[FloatArray, bool] | None = None
        if m < 2:
            return
        reduced: Matrix
        if isinstance(laplacian, np.ndarray):
            reduced = laplacian[np.ix_(self.keep, self.keep)]
        else:
            reduced = csc_array(laplacian[self.keep][:, self.keep])
        diagonal = reduced.diagonal()
        scale = float(np.mean(diagonal)) if np.mean(diagonal) > 0 else 1.0
        # Numerically singular (some p (1 - p) underflowed, ratings thousands of Elo apart):
        # a ridge on the scale of the matrix's own entries keeps the solve finite.
        ridge = 1e-9 * scale
        if isinstance(reduced, np.ndarray) or reduced.nnz > _DENSE_SHARE * (m - 1) ** 2:
            dense = reduced if isinstance(reduced, np.ndarray) else reduced.toarray()
            try:
                self._cho = cho_factor(dense, check_finite=False)
            except np.linalg.LinAlgError:
                self._cho = cho_factor(dense + ridge * np.eye(m - 1), check_finite=False)
            return
        try:
            self._lu = splu(reduced)
        except RuntimeError:
            self._lu = splu(csc_array(reduced + diags_array(np.full(m - 1, ridge))))

    def solve(self, rhs: FloatArray) -> FloatArray:
        out = np.zeros(rhs.shape)
        part = np.ascontiguousarray(rhs[self.keep])
        if self._cho is not None:
            out[self.keep] = cho_solve(self._cho, part, check_finite=False)
        elif self._lu is not None:
            out[self.keep] = self._lu.solve(part)
        return out


def ground_of(pairs: Pairs) -> int:
    """The engine to ground: the one with the most games (the best-conditioned reduced
    matrix)."""
    games = np.bincount(pairs.i, weights=pairs.n, minlength=pairs.m) + np.bincount(
        pairs.j, weights=pairs.n, minlength=pairs.m
    )
    return int(np.argmax(games)) if pairs.m else 0


def maximise(pairs: Pairs) -> tuple[FloatArray, int]:
    """Newton's method with step halving from equal ratings; returns the maximum-likelihood
    ratings (Elo, mean 0) and the steps taken. The pairs' engines must form one strongly
    connected group of "scored against" (else the maximum is infinite)."""
    r = np.zeros(pairs.m)
    if pairs.m < 2:
        return r, 0
    ground = ground_of(pairs)
    value = pairs.log_likelihood(r)
    for iteration in range(1, _MAX_ITERATIONS + 1):
        expected = pairs.expected(r)
        grad = pairs.gradient(r, expected)
        step = Grounded(pairs.information(r, expected), ground).solve(grad[:, None])[:, 0]
        step -= step.mean()
        t = min(1.0, _MAX_STEP / max(float(np.max(np.abs(step), initial=0.0)), 1e-300))
        while True:
            candidate = r + t * step
            new_value = pairs.log_likelihood(candidate)
            if new_value >= value - 1e-12 * abs(value) or t < 1e-6:
                break
            t /= 2
        r, value = candidate - candidate.mean(), new_value
        if float(np.max(np.abs(t * step), initial=0.0)) < _TOLERANCE:
            return r, iteration
    return r, _MAX_ITERATIONS


class Errors:
    """The sandwich covariance ``H⁺ J H⁺`` of the fitted ratings (module docstring), for
    contrasts: ``variance(C)`` is ``diag(Cᵀ H⁺ J H⁺ C)`` (Elo²) for columns of ``C`` that sum to
    zero; ``engine_variances(w)`` the variance of each ``r_i - w·r``."""

    def __init__(self, pairs: Pairs, r: FloatArray, d0: float) -> None:
        e = pairs.expected(r)
        self.m = pairs.m
        self._h = Grounded(pairs.laplacian(BETA**2 * pairs.n * e * (1.0 - e)), ground_of(pairs))
        self._j = pairs.laplacian(BETA**2 * pairs.n * score_variance(e, d0))
        # Up to _DENSE_ENGINES engines the factor is dense anyway: the grounded covariance
        # G J G (G the grounded inverse of H, zero at the ground; m² floats, 8 MB at 1,000)
        # costs one solve of m columns and two products, after which every contrast's
        # variance is a lookup; the blocked solves below cost that for each list of
        # contrasts (the engines', then the neighbours' for the superiorities).
        self._covariance: FloatArray | None = None
        if isinstance(self._j, np.ndarray) and self.m > 1:
            g = self._h.solve(np.eye(self.m) - 1.0 / self.m)
            self._covariance = g.T @ self._j @ g

    def variance(self, contrasts: FloatArray) -> FloatArray:
        if self._covariance is not None:
            covariance = np.sum(contrasts * (self._covariance @ contrasts), axis=0)
            return np.maximum(covariance, 0.0)  # type: ignore[no-any-return]
        x = self._h.solve(contrasts)
        result: FloatArray = np.maximum(np.sum(x * (self._j @ x), axis=0), 0.0)
        return result

    def engine_variances(self, weights: FloatArray) -> FloatArray:
        if self._covariance is not None:
            c = self._covariance
            cw = c @ weights
            engines: FloatArray = np.maximum(np.diagonal(c) - 2.0 * cw + weights @ cw, 0.0)
            return engines
        out = np.empty(self.m)
        for start in range(0, self.m, _BLOCK):
            stop = min(start + _BLOCK, self.m)
            block = np.repeat(-weights[:, None], stop - start, axis=1)
            block[np.arange(start, stop), np.arange(stop - start)] += 1.0
            out[start:stop] = self.variance(block)
        return out

    def difference_variance(self, a: int, b: int) -> float:
        """The variance of ``r_a - r_b`` (Elo²)."""
        return float(self.difference_variances(np.array([a]), np.array([b]))[0])

    def difference_variances(self, a: IntArray, b: IntArray) -> FloatArray:
        """The variances of ``r_a[k] - r_b[k]`` (Elo²), ``_BLOCK`` contrasts per solve: a
        list of ``m`` versions costs ``m / _BLOCK`` solves, not ``m``."""
        if self._covariance is not None:
            c = self._covariance
            pairs: FloatArray = np.maximum(c[a, a] + c[b, b] - 2.0 * c[a, b], 0.0)
            return pairs
        out = np.empty(len(a))
        for start in range(0, len(a), _BLOCK):
            stop = min(start + _BLOCK, len(a))
            block = np.zeros((self.m, stop - start))
            columns = np.arange(stop - start)
            block[a[start:stop], columns] += 1.0
            block[b[start:stop], columns] -= 1.0
            out[start:stop] = self.variance(block)
        return out
