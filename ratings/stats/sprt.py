"""Sequential probability ratio test (SPRT) for version tests: "is the new engine better?".

Pure arithmetic on counts (standard library only), used by the version-test service and by the
command line ``python -m ratings.stats.sprt``. Written from the published formulas of the
generalized SPRT as used by fishtest (M. Van den Bergh, "GSPRT approximating the SPRT", and his
notes on the pentanomial model and normalized Elo) and fishtest's ``LLRcalc``; no code was
copied. ``tests/ratings/test_sprt_fishtest.py`` compares the LLR and the estimates with
fishtest's own on 300 count vectors (docs/version-tests.md, "The statistics").

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
  ``mu`` and ``sigma`` those of ``q`` itself: a fixed point started from the uniform
  distribution, as fishtest's; where it finds no tilt or does not settle (fishtest raises), a
  direct search of the same constrained maximum (``ratings.stats.sprt_fits``). Normalized Elo is
  per game as fishtest defines it: ``t = nElo / (800 / ln 10)`` for trinomial counts and
  ``t = sqrt(2) * nElo / (800 / ln 10)`` for pentanomial counts.

The LLR is finite for every record and every pair of finite bounds, 0 for no counts.

The test stops when the LLR leaves ``[log(beta / (1 - alpha)), log((1 - beta) / alpha)]``: below,
``H0`` is accepted (the new version is not better by ``elo1``); above, ``H1``.

Estimates: ``mu`` and ``sigma`` of the empirical distribution, standard error
``sigma / sqrt(N)``; the Elo estimate maps ``mu`` (logistic: ``-400 log10(1/mu - 1)``;
normalized: ``(mu - 1/2) / sigma`` in nElo), and the 95% interval maps ``mu -+ 1.96 * se`` the
same way; a logistic end whose score reaches 0 or 1 is unbounded (None, ``ci_note``). The
likelihood of superiority is ``Phi((mu - 1/2) / se)``, the normal approximation of the
probability that the new version's true score exceeds 1/2.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NoReturn

from ratings.stats import sprt_fits as fits

#: Normalized-Elo scale: one unit of t is 800 / ln 10 (about 347.4) nElo.
NELO_PER_T = 800 / math.log(10)
#: What replaces a zero count before the fit.
ZERO_COUNT = 1e-3
#: Two-sided 95% normal quantile.
Z95 = 1.959963984540054
#: The largest |elo0| and |elo1| the service's version tests and ``bao-match --sprt`` accept,
#: in the model's unit (Elo or nElo): beyond it a hypothesis says nothing a test can use, and
#: logistic bounds far beyond it have scores that round to 0 or 1 (the LLR is then None, with
#: ``llr_note``). A policy of the callers: ``SprtParameters`` itself takes any finite bounds.
BOUND_LIMIT = 1000


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
    """The figures of a test for given counts.

    ``games``: the games counted (two a pair); ``wdl``: their ``(wins, draws, losses)`` when
    known (always for trinomial counts), ``pentanomial``: the pair counts (None for trinomial
    counts). ``llr`` is None only if it could not be computed (``llr_note`` says why; the
    decision is then ``continue``). ``elo``, ``ci_low`` and ``ci_high`` are in the units of the
    model (Elo or nElo) and are None while nothing has been counted; an end of the 95% interval
    is also None when it is unbounded (logistic Elo, the score's interval reaching 0 or 1),
    with ``ci_note`` saying so. ``los`` is in [0, 1].
    """

    games: int
    wdl: tuple[int, int, int] | None
    pentanomial: tuple[int, int, int, int, int] | None
    llr: float | None
    lower: float
    upper: float
    decision: Decision
    elo: float | None
    ci_low: float | None
    ci_high: float | None
    los: float | None
    ci_note: str | None = None
    llr_note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The figures as JSON values, the object ``python -m ratings.stats.sprt --json``
        prints: ``games``, ``wdl`` (``[W, D, L]`` or null), ``pentanomial`` (five counts or
        null), ``llr`` (null with ``llr_note``), ``lower``, ``upper``, ``decision``
        (``"H0"``, ``"H1"``, ``"continue"``), ``elo``, ``ci_low``, ``ci_high`` (null when
        unbounded, with ``ci_note``), ``los``, ``ci_note``, ``llr_note``. Nothing is rounded."""
        return {
            "games": self.games,
            "wdl": None if self.wdl is None else list(self.wdl),
            "pentanomial": None if self.pentanomial is None else list(self.pentanomial),
            "llr": self.llr,
            "lower": self.lower,
            "upper": self.upper,
            "decision": str(self.decision),
            "elo": self.elo,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "los": self.los,
            "ci_note": self.ci_note,
            "llr_note": self.llr_note,
        }


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


def _t_per_nelo(pentanomial: bool) -> float:
    """t units per nElo: sqrt(2) / (800 / ln 10) for pairs, 1 / (800 / ln 10) for games."""
    return (math.sqrt(2) if pentanomial else 1.0) / NELO_PER_T


def logistic_score(elo: float) -> float:
    """Expected score of a player ``elo`` logistic Elo stronger: ``1 / (1 + 10^(-elo/400))``."""
    return 1 / (1 + 10 ** (-elo / 400))


def logistic_elo(score: float) -> float:
    """Inverse of :func:`logistic_score`: ``-400 log10(1/score - 1)`` for score in (0, 1)."""
    return -400 * math.log10(1 / score - 1)


def _score_offsets(pdf: Sequence[tuple[float, float]], elo: float) -> list[float]:
    """``a_i - s`` for the logistic score ``s`` of ``elo``, from whichever of ``s`` and
    ``1 - s`` is the smaller (``e / (1 + e)``, ``e = 10^(-|elo|/400)``, which underflows
    instead of overflowing): a bound of thousands of Elo puts ``s`` within 1e-16 of 1, where
    ``a_i - s`` computed from ``s`` would lose the top outcome's distance, and with it the LLR."""
    e = 10 ** (-abs(elo) / 400)
    small = e / (1 + e)
    if elo >= 0:
        return [(a - 1) + small for a, _ in pdf]
    return [a - small for a, _ in pdf]


def llr(counts: Sequence[int], params: SprtParameters) -> float:
    """The generalized log-likelihood ratio of H1 against H0 for the counts (see the module
    docstring): finite for every record and every pair of finite bounds, and 0.0 while nothing
    has been counted. Raises :class:`SprtInputError` for bad counts; ``ArithmeticError`` only
    if no constrained fit is found (not seen on any record; :func:`sprt` reports it as a
    note)."""
    total, pdf = _pdf(counts)
    if sum(counts) == 0:
        return 0.0
    try:
        if params.model is Model.LOGISTIC:
            q0 = fits.tilt(pdf, _score_offsets(pdf, params.elo0))
            q1 = fits.tilt(pdf, _score_offsets(pdf, params.elo1))
        else:
            per = _t_per_nelo(len(counts) == 5)
            q0 = fits.fit_t(pdf, params.elo0 * per)
            q1 = fits.fit_t(pdf, params.elo1 * per)
    except fits.Infeasible as exc:
        raise ArithmeticError(str(exc)) from None
    value = total * sum(p * math.log(b / a) for (_, p), a, b in zip(pdf, q0, q1, strict=True))
    if not math.isfinite(value):
        raise ArithmeticError(f"the LLR is not finite ({value})")
    return value


def estimate(
    counts: Sequence[int], model: Model
) -> tuple[float | None, float | None, float | None, float | None]:
    """``(elo, ci_low, ci_high, los)`` for the counts: the point estimate and 95% interval in
    the model's units and the likelihood of superiority; all None with no counts. A logistic
    interval end is None when the score's interval reaches 0 or 1 (no finite Elo there:
    unbounded, see :func:`interval_note`)."""
    total, pdf = _pdf(counts)
    if sum(counts) == 0:
        return None, None, None, None
    mu, sigma = fits.moments(pdf)
    se = sigma / math.sqrt(total)
    los = 0.5 * (1 + math.erf((mu - 0.5) / (se * math.sqrt(2))))
    low, high = mu - Z95 * se, mu + Z95 * se
    if Model(model) is Model.LOGISTIC:
        return (
            logistic_elo(mu) + 0.0,  # no "-0.0" for an even record
            logistic_elo(low) if low > 0 else None,
            logistic_elo(high) if high < 1 else None,
            los,
        )
    scale = 1 / (sigma * _t_per_nelo(len(counts) == 5))
    return (mu - 0.5) * scale + 0.0, (low - 0.5) * scale, (high - 0.5) * scale, los


def interval_note(counts: Sequence[int], model: Model) -> str | None:
    """Why an end of the 95% interval of :func:`estimate` is None (unbounded), or None."""
    total, pdf = _pdf(counts)
    if sum(counts) == 0 or Model(model) is not Model.LOGISTIC:
        return None
    mu, sigma = fits.moments(pdf)
    se = sigma / math.sqrt(total)
    low, high = mu - Z95 * se, mu + Z95 * se
    ends = [name for name, open_end in (("lower", low <= 0), ("upper", high >= 1)) if open_end]
    if not ends:
        return None
    reached = " and ".join(x for x, hit in (("0", low <= 0), ("1", high >= 1)) if hit)
    return (
        f"{' and '.join(ends)} end{'s' if len(ends) > 1 else ''} unbounded: the score's 95% "
        f"interval [{low:.4f}, {high:.4f}] reaches {reached}, where logistic Elo is infinite"
    )


def sprt(
    counts: Sequence[int],
    params: SprtParameters,
    *,
    wdl: tuple[int, int, int] | None = None,
) -> SprtResult:
    """Every figure of a test for the counts (3: L, D, W; 5: pentanomial): LLR, bounds,
    decision and estimates. ``wdl``: the ``(wins, draws, losses)`` of pentanomial counts'
    games, if known (reported only). Raises :class:`SprtInputError` for bad counts; an LLR
    that cannot be computed is None with ``llr_note`` (decision ``continue``), never an
    exception."""
    _pdf(counts)  # checks the counts
    note = None
    try:
        value: float | None = llr(counts, params)
    except ArithmeticError as exc:
        value, note = None, f"the LLR could not be computed: {exc}"
    if value is not None and value >= params.upper:
        decision = Decision.H1
    elif value is not None and value <= params.lower:
        decision = Decision.H0
    else:
        decision = Decision.CONTINUE
    elo, low, high, los = estimate(counts, params.model)
    pentanomial = len(counts) == 5
    return SprtResult(
        games=sum(counts) * (2 if pentanomial else 1),
        wdl=(counts[2], counts[1], counts[0]) if not pentanomial else wdl,
        pentanomial=tuple(counts) if pentanomial else None,  # type: ignore[arg-type]
        llr=value,
        lower=params.lower,
        upper=params.upper,
        decision=decision,
        elo=elo,
        ci_low=low,
        ci_high=high,
        los=los,
        ci_note=interval_note(counts, params.model),
        llr_note=note,
    )


def check_bound_limit(params: SprtParameters) -> None:
    """Raise :class:`SprtInputError` (``invalid_sprt_bounds``) when ``elo0`` or ``elo1`` lies
    outside ``[-BOUND_LIMIT, BOUND_LIMIT]`` (in the unit of ``params.model``)."""
    if max(abs(params.elo0), abs(params.elo1)) > BOUND_LIMIT:
        raise SprtInputError(
            "invalid_sprt_bounds",
            f"the bounds must lie in [-{BOUND_LIMIT}, {BOUND_LIMIT}] {params.model} Elo, "
            f"got {params.elo0:g} and {params.elo1:g}",
        )


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


def _shown(value: float | None, digits: int) -> str:
    """A figure of the text output: rounded, or "unbounded" for an interval end that is None."""
    return "unbounded" if value is None else f"{round(value, digits) + 0.0:g}"  # no "-0"


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr (no usage block), exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def _wdl(text: str) -> tuple[int, int, int]:
    wins, draws, losses = _parse_counts(text, 3, "--wdl")
    return wins, draws, losses


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m ratings.stats.sprt``: the figures of a test for given counts, as text or
    (``--json``) as the object of :meth:`SprtResult.to_dict`. Exit status 0, or 2 with a
    one-line error on stderr for bad input (never a traceback); a reader that goes away
    (``| head -1``) ends it quietly (status 0)."""
    try:
        status = _main(argv)
        sys.stdout.flush()
    except BrokenPipeError:
        # Nothing more can be written; point stdout at /dev/null so the interpreter's own
        # flush at exit does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return status


def _main(argv: Sequence[str] | None) -> int:
    parser = _Parser(
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
    parser.add_argument(
        "--wdl", type=_wdl, metavar="W,D,L", help="with --pentanomial: its games won, drawn, lost"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.wdl is not None and args.pentanomial is None:
        parser.error("--wdl goes with --pentanomial (--trinomial counts are the W/D/L)")
    observed = args.pentanomial if args.pentanomial is not None else args.trinomial
    try:
        params = SprtParameters(args.elo0, args.elo1, args.alpha, args.beta, Model(args.model))
        result = sprt(observed, params, wdl=args.wdl)
    except SprtInputError as error:
        parser.error(str(error))
    if args.json:
        print(json.dumps(result.to_dict()))
        return 0
    unit = "Elo" if params.model is Model.LOGISTIC else "nElo"
    shown_llr = "n/a" if result.llr is None else f"{round(result.llr, 3) + 0.0:.3f}"
    print(
        f"LLR {shown_llr} ({result.lower:.3f}, {result.upper:.3f}) "
        f"[{params.elo0:g}, {params.elo1:g}] {params.model}: {result.decision}"
    )
    if result.pentanomial is not None:
        print(f"pentanomial {', '.join(str(c) for c in result.pentanomial)}")
    if result.wdl is not None:
        print(f"W/D/L {', '.join(str(c) for c in result.wdl)}")
    if result.elo is None:
        print(f"{unit}: no games yet")
    else:
        print(
            f"{unit} {_shown(result.elo, 2)} [{_shown(result.ci_low, 2)}, "
            f"{_shown(result.ci_high, 2)}] (95%), LOS {_shown(result.los, 4)}"
        )
    for note in (result.llr_note, result.ci_note):
        if note:
            print(f"note: {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
