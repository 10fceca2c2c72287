"""Sequential probability ratio test (SPRT) for version tests: "is the new engine better?".

Pure arithmetic on counts (standard library only), used by the version-test service and by the
command line ``python -m ratings.stats.sprt``. Written from the published formulas of the
generalized SPRT as used by fishtest (M. Van den Bergh, "GSPRT approximating the SPRT", and his
notes on the pentanomial model and normalized Elo); no code was copied.

Counts, always from the **new** version's side:

- *pentanomial*: ``(n0, n1, n2, n3, n4)``, the number of game pairs (two games from one start
  position, colours swapped) whose pair score was 0, 1/2, 1, 3/2, 2 points. A pair is one
  observation; its outcome is the pair score divided by 2, in ``{0, 1/4, 1/2, 3/4, 1}``.
- *trinomial*: ``(losses, draws, wins)`` of single games, outcomes ``{0, 1/2, 1}``.

Before anything is fitted, a zero count is replaced by 0.001 (so that every outcome keeps some
probability and the fits and estimates stay finite); ``N`` is the sum of those counts.

The log-likelihood ratio: with the empirical distribution ``p`` over the outcomes ``a_i``, and
``q0``, ``q1`` the distributions of largest likelihood (maximal ``sum p_i log q_i``) under the
constraint of each hypothesis, ``LLR = N * sum p_i log(q1_i / q0_i)``. Both constrained fits have
the form ``q_i = p_i / (1 + lambda * d_i)`` (a Lagrange multiplier ``lambda`` chosen so that the
``q_i`` sum to 1), where

- *logistic* bounds use the expectation statistic: the hypothesis is a mean score ``s`` with
  ``s = 1 / (1 + 10^(-elo/400))``, and ``d_i = a_i - s``;
- *normalized* bounds use the t-value statistic ``t = (mu - 1/2) / sigma`` of the fitted
  distribution, and ``d_i = a_i - 1/2 - (t * sigma / 2) * (1 + ((a_i - mu) / sigma)^2)``, with
  ``mu`` and ``sigma`` those of ``q`` itself (solved by fixed-point iteration). Normalized Elo is
  per game as fishtest defines it: ``t = nElo / (800 / ln 10)`` for trinomial counts and
  ``t = sqrt(2) * nElo / (800 / ln 10)`` for pentanomial counts.

The test stops when the LLR leaves ``[log(beta / (1 - alpha)), log((1 - beta) / alpha)]``: below,
``H0`` is accepted (the new version is not better by ``elo1``); above, ``H1``.

Estimates: ``mu`` and ``sigma`` of the empirical distribution, standard error
``sigma / sqrt(N)``; the Elo estimate maps ``mu`` (logistic: ``-400 log10(1/mu - 1)``;
normalized: ``(mu - 1/2) / sigma`` in nElo), and the 95% interval maps ``mu -+ 1.96 * se`` the
same way. The likelihood of superiority is ``Phi((mu - 1/2) / se)``, the normal approximation of
the probability that the new version's true score exceeds 1/2.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from enum import StrEnum

#: Normalized-Elo scale: one unit of t is 800 / ln 10 (about 347.4) nElo.
NELO_PER_T = 800 / math.log(10)
#: What replaces a zero count before the fit.
ZERO_COUNT = 1e-3
#: Two-sided 95% normal quantile.
Z95 = 1.959963984540054


class Model(StrEnum):
    """How ``elo0`` and ``elo1`` are meant: logistic Elo, or normalized Elo (nElo)."""

    LOGISTIC = "logistic"
    NORMALIZED = "normalized"


class Decision(StrEnum):
    """What the LLR says after the last observation."""

    H0 = "H0"
    H1 = "H1"
    CONTINUE = "continue"


class SprtInputError(ValueError):
    """Bad SPRT parameters or counts. ``code`` is stable: ``invalid_sprt_bounds`` (``elo0 >=
    elo1`` or not finite), ``invalid_sprt_error_rate`` (``alpha`` or ``beta`` outside (0, 0.5)),
    ``invalid_sprt_counts`` (a negative or non-integral count, or the wrong number of them)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class SprtParameters:
    """The hypotheses of one test. ``elo0 < elo1`` in the units of ``model``; ``alpha`` (false
    H1) and ``beta`` (false H0) in (0, 0.5). Raises :class:`SprtInputError`."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: Model = Model.LOGISTIC

    def __post_init__(self) -> None:
        if not (math.isfinite(self.elo0) and math.isfinite(self.elo1)) or self.elo0 >= self.elo1:
            raise SprtInputError(
                "invalid_sprt_bounds", f"need finite elo0 < elo1, got {self.elo0} and {self.elo1}"
            )
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0 < value < 0.5:
                raise SprtInputError(
                    "invalid_sprt_error_rate", f"{name} must be in (0, 0.5), got {value}"
                )
        object.__setattr__(self, "model", Model(self.model))

    @property
    def lower(self) -> float:
        """The LLR at or below which H0 is accepted: ``log(beta / (1 - alpha))``."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """The LLR at or above which H1 is accepted: ``log((1 - beta) / alpha)``."""
        return math.log((1 - self.beta) / self.alpha)


@dataclass(frozen=True)
class SprtResult:
    """The figures of a test for given counts. ``elo``, ``ci_low`` and ``ci_high`` are in the
    units of the model (Elo or nElo) and are ``None`` while no pair (game) has been counted;
    ``los`` is in [0, 1]."""

    llr: float
    lower: float
    upper: float
    decision: Decision
    elo: float | None
    ci_low: float | None
    ci_high: float | None
    los: float | None


def _pdf(counts: Sequence[int]) -> tuple[float, list[tuple[float, float]]]:
    """``(N, [(outcome, probability), ...])`` for 3 (L, D, W) or 5 (pentanomial) counts."""
    if len(counts) not in (3, 5):
        raise SprtInputError(
            "invalid_sprt_counts",
            f"need 3 (trinomial) or 5 (pentanomial) counts, got {len(counts)}",
        )
    for count in counts:
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise SprtInputError(
                "invalid_sprt_counts", f"counts must be whole numbers >= 0, got {count!r}"
            )
    filled = [float(c) if c > 0 else ZERO_COUNT for c in counts]
    total = sum(filled)
    step = 1 / (len(counts) - 1)
    return total, [(i * step, c / total) for i, c in enumerate(filled)]


def _moments(pdf: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """Mean and standard deviation of a distribution ``[(outcome, probability), ...]``."""
    mu = sum(a * p for a, p in pdf)
    var = sum(p * (a - mu) ** 2 for a, p in pdf)
    return mu, math.sqrt(var)


def _tilt(pdf: Sequence[tuple[float, float]], d: Sequence[float]) -> list[float]:
    """``q_i = p_i / (1 + lambda d_i)`` with ``lambda`` such that the ``q_i`` sum to 1, i.e. the
    root of ``f(lambda) = sum p_i d_i / (1 + lambda d_i)`` (strictly decreasing) on the interval
    where every ``1 + lambda d_i`` is positive. Raises ``ValueError`` when every ``d_i`` has one
    sign (the constraint lies outside the outcomes' range)."""
    d_max, d_min = max(d), min(d)
    if not (d_max > 0 > d_min):
        raise ValueError("the hypothesis lies outside the range of the outcomes")
    lo, hi = -1 / d_max, -1 / d_min
    probs = [p for _, p in pdf]
    for _ in range(200):
        mid = (lo + hi) / 2
        f = sum(p * di / (1 + mid * di) for p, di in zip(probs, d, strict=True))
        if f > 0:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-15 * max(1.0, abs(mid)):
            break
    lam = (lo + hi) / 2
    return [p / (1 + lam * di) for p, di in zip(probs, d, strict=True)]


def _fit_mean(pdf: Sequence[tuple[float, float]], score: float) -> list[float]:
    """The distribution of largest likelihood whose mean outcome is ``score``."""
    return _tilt(pdf, [a - score for a, _ in pdf])


def _fit_t(pdf: Sequence[tuple[float, float]], t: float) -> list[float]:
    """The distribution of largest likelihood whose t-value ``(mu - 1/2) / sigma`` is ``t``
    (fixed-point iteration on ``mu`` and ``sigma``, starting from the empirical ones)."""
    q = [p for _, p in pdf]
    outcomes = [a for a, _ in pdf]
    for _ in range(100):
        mu, sigma = _moments(list(zip(outcomes, q, strict=True)))
        d = [a - 0.5 - (t * sigma / 2) * (1 + ((a - mu) / sigma) ** 2) for a in outcomes]
        new = _tilt(pdf, d)
        if max(abs(x - y) for x, y in zip(new, q, strict=True)) < 1e-13:
            return new
        q = new
    return q


def _t_per_nelo(pentanomial: bool) -> float:
    """t units per nElo: sqrt(2) / (800 / ln 10) for pairs, 1 / (800 / ln 10) for games."""
    return (math.sqrt(2) if pentanomial else 1.0) / NELO_PER_T


def logistic_score(elo: float) -> float:
    """Expected score of a player ``elo`` logistic Elo stronger: ``1 / (1 + 10^(-elo/400))``."""
    return 1 / (1 + 10 ** (-elo / 400))


def logistic_elo(score: float) -> float:
    """Inverse of :func:`logistic_score`: ``-400 log10(1/score - 1)`` for score in (0, 1)."""
    return -400 * math.log10(1 / score - 1)


def llr(counts: Sequence[int], params: SprtParameters) -> float:
    """The generalized log-likelihood ratio of H1 against H0 for the counts (see the module
    docstring). 0.0 while nothing has been counted. Raises :class:`SprtInputError`."""
    total, pdf = _pdf(counts)
    if sum(counts) == 0:
        return 0.0
    if params.model is Model.LOGISTIC:
        q0 = _fit_mean(pdf, logistic_score(params.elo0))
        q1 = _fit_mean(pdf, logistic_score(params.elo1))
    else:
        per = _t_per_nelo(len(counts) == 5)
        q0 = _fit_t(pdf, params.elo0 * per)
        q1 = _fit_t(pdf, params.elo1 * per)
    return total * sum(p * math.log(b / a) for (_, p), a, b in zip(pdf, q0, q1, strict=True))


def estimate(
    counts: Sequence[int], model: Model
) -> tuple[float | None, float | None, float | None, float | None]:
    """``(elo, ci_low, ci_high, los)`` for the counts: the point estimate and 95% interval in
    the model's units and the likelihood of superiority; all ``None`` with no counts."""
    total, pdf = _pdf(counts)
    if sum(counts) == 0:
        return None, None, None, None
    mu, sigma = _moments(pdf)
    se = sigma / math.sqrt(total)
    los = 0.5 * (1 + math.erf((mu - 0.5) / (se * math.sqrt(2))))
    low, high = mu - Z95 * se, mu + Z95 * se
    if Model(model) is Model.LOGISTIC:
        # The interval's ends are clamped inside (0, 1), where the logistic inverse is finite.
        eps = 1e-9
        return (
            logistic_elo(mu) + 0.0,  # no "-0.0" for an even record
            logistic_elo(min(max(low, eps), 1 - eps)),
            logistic_elo(min(max(high, eps), 1 - eps)),
            los,
        )
    scale = 1 / (sigma * _t_per_nelo(len(counts) == 5))
    return (mu - 0.5) * scale + 0.0, (low - 0.5) * scale, (high - 0.5) * scale, los


def sprt(counts: Sequence[int], params: SprtParameters) -> SprtResult:
    """Every figure of a test for the counts: LLR, bounds, decision and estimates."""
    value = llr(counts, params)
    if value >= params.upper:
        decision = Decision.H1
    elif value <= params.lower:
        decision = Decision.H0
    else:
        decision = Decision.CONTINUE
    elo, low, high, los = estimate(counts, params.model)
    return SprtResult(value, params.lower, params.upper, decision, elo, low, high, los)


# --- command line -------------------------------------------------------------------------------


def _parse_counts(text: str, n: int, what: str) -> list[int]:
    parts = text.split(",")
    if len(parts) != n:
        raise argparse.ArgumentTypeError(f"{what} needs {n} comma-separated counts, got {text!r}")
    try:
        values = [int(p) for p in parts]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what} counts must be whole numbers: {text!r}") from None
    if any(v < 0 for v in values):
        raise argparse.ArgumentTypeError(f"{what} counts must be >= 0: {text!r}")
    return values


def _rounded(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m ratings.stats.sprt``: the figures of a test for given counts. Exit status 0,
    or 2 with a one-line error for bad input."""
    parser = argparse.ArgumentParser(
        prog="python -m ratings.stats.sprt",
        description="GSPRT figures for given counts (from the new version's side).",
    )
    parser.add_argument("--elo0", type=float, required=True, help="H0 bound")
    parser.add_argument("--elo1", type=float, required=True, help="H1 bound (> elo0)")
    parser.add_argument("--alpha", type=float, default=0.05, help="false H1 rate, (0, 0.5)")
    parser.add_argument("--beta", type=float, default=0.05, help="false H0 rate, (0, 0.5)")
    parser.add_argument("--model", choices=[m.value for m in Model], required=True)
    counts = parser.add_mutually_exclusive_group(required=True)
    counts.add_argument(
        "--pentanomial",
        type=lambda t: _parse_counts(t, 5, "--pentanomial"),
        metavar="N0,N1,N2,N3,N4",
        help="game pairs scoring 0, 1/2, 1, 3/2, 2",
    )
    counts.add_argument(
        "--trinomial",
        type=lambda t: _parse_counts(t, 3, "--trinomial"),
        metavar="L,D,W",
        help="games lost, drawn, won",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    try:
        params = SprtParameters(args.elo0, args.elo1, args.alpha, args.beta, Model(args.model))
        observed = args.pentanomial if args.pentanomial is not None else args.trinomial
        result = sprt(observed, params)
    except SprtInputError as error:
        parser.error(str(error))
    if args.json:
        payload = asdict(result)
        payload["decision"] = str(result.decision)
        print(json.dumps(payload))
        return 0
    unit = "Elo" if params.model is Model.LOGISTIC else "nElo"
    kind = "pentanomial" if args.pentanomial is not None else "W/D/L"
    shown = observed if args.pentanomial is not None else observed[::-1]
    print(
        f"LLR {result.llr:.3f} ({result.lower:.3f}, {result.upper:.3f}) "
        f"[{params.elo0:g}, {params.elo1:g}] {params.model}: {result.decision}"
    )
    print(f"{kind} {', '.join(str(c) for c in shown)}")
    if result.elo is None:
        print(f"{unit}: no games yet")
    else:
        print(
            f"{unit} {_rounded(result.elo, 2)} [{_rounded(result.ci_low, 2)}, "
            f"{_rounded(result.ci_high, 2)}] (95%), LOS {_rounded(result.los, 4)}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
