"""What a run prints and writes: the progress line, the final summary, the ``--json`` summary.

Every figure comes from the service's arithmetic: the SPRT's LLR, bounds, decision and Elo
estimates from ``ratings.stats.sprt`` (the version tests' code), the ratings table of three or
more engines from the service's rating method (``ratings.stats.methods.DEFAULT_METHOD``) and
the table of ``python -m ratings.stats.whr fit``. The summary of two engines is laid out as
fastchess lays out its own (``Elo: ... [low, high]``, ``Ptnml(0-2): [...]``, ``LLR: ... (...%)
(lower, upper) [elo0, elo1]``, ``SPRT ([elo0, elo1]) completed - H1 was accepted``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ratings.stats.sprt import (
    Decision,
    Model,
    SprtParameters,
    SprtResult,
    estimate,
    interval_note,
    sprt,
)

from .tally import Tally

if TYPE_CHECKING:
    from ratings.stats.whr.fit import RatingFit

# The rating fit (numpy, scipy: over a second to import on a busy machine) is imported where
# it is used, for three or more engines only: a two-engine run starts without it.

RULE = "-" * 50


@dataclass(frozen=True)
class Estimate:
    """The first engine's Elo against the second, with its 95% interval and LOS, in the units
    of ``model``: from the pentanomial counts once a pair is complete, else the W/D/L."""

    elo: float | None
    low: float | None
    high: float | None
    los: float | None

    @property
    def half_width(self) -> float | None:
        if self.low is None or self.high is None:
            return None
        return (self.high - self.low) / 2


def counts(tally: Tally) -> list[int]:
    """The counts the estimates use: the pentanomial once any pair is complete (as version
    tests count), else the trinomial ``[losses, draws, wins]``."""
    return list(tally.pentanomial) if sum(tally.pentanomial) else tally.trinomial


def elo_estimate(tally: Tally, model: Model = Model.LOGISTIC) -> Estimate:
    """``ratings.stats.sprt.estimate`` over ``counts(tally)``."""
    return Estimate(*estimate(counts(tally), model))


def sprt_result(tally: Tally, params: SprtParameters) -> SprtResult:
    """``ratings.stats.sprt.sprt`` over the pentanomial counts (game pairs, as version
    tests count them)."""
    w, d, loss = tally.pair_wdl
    return sprt(tally.pentanomial, params, wdl=(w, d, loss))


def _llr(r: SprtResult) -> str:
    return "-" if r.llr is None else _num(r.llr, 2)


def _num(value: float, digits: int) -> str:
    """``value`` rounded to ``digits`` places, ``0`` for a value that rounds to zero (no ``-0``)."""
    return f"{round(value, digits) + 0.0:.{digits}f}"


def _pm(e: Estimate, digits: int = 2) -> str:
    """``elo [low, high]`` (the 95% interval, ``unbounded`` for an end that is None), as
    ``python -m ratings.stats.sprt`` prints it; ``-`` without an estimate."""
    if e.elo is None:
        return "-"
    ends = ["unbounded" if x is None else _num(x, digits) for x in (e.low, e.high)]
    return f"{_num(e.elo, digits)} [{ends[0]}, {ends[1]}]"


def _duration(seconds: float) -> str:
    if not math.isfinite(seconds) or seconds < 0:
        return "-"
    s = round(seconds)
    if s >= 3600:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    return f"{s // 60}m{s % 60:02d}s"


def llr_percent(result: SprtResult) -> float | None:
    """How far the LLR went towards the bound on its side, in % (negative towards H0); None
    while the LLR is unknown."""
    if result.llr is None:
        return None
    if result.llr >= 0:
        return 100 * result.llr / result.upper
    return -100 * result.llr / result.lower


def progress_line(
    tally: Tally,
    total: int,
    played: int,
    elapsed_s: float,
    params: SprtParameters | None,
) -> str:
    """The status in one line: games done of ``total``, and for two engines W/D/L, the
    pentanomial, Elo with its 95% interval from the pentanomial counts (``Elo after the first
    pair`` until a pair is complete: one basis throughout), the LLR within its bounds; games
    per second
    (``played`` games in ``elapsed_s``: resumed games count in the totals, not in the rate)
    and the time left at that rate."""
    rate = played / elapsed_s if elapsed_s > 0 else 0.0
    parts = [f"games {tally.games}/{total}"]
    if len(tally.names) == 2:
        w, d, loss = tally.wdl
        parts.append(f"W/D/L {w}/{d}/{loss}")
        parts.append(f"ptnml [{', '.join(str(c) for c in tally.pentanomial)}]")
        if sum(tally.pentanomial):
            parts.append(
                f"Elo {_pm(Estimate(*estimate(list(tally.pentanomial), Model.LOGISTIC)), 1)}"
            )
        else:
            parts.append("Elo after the first pair")
        if params is not None:
            r = sprt_result(tally, params)
            parts.append(f"LLR {_llr(r)} ({r.lower:.2f}, {r.upper:.2f})")
    parts.append(f"{rate:.2f} games/s")
    left = (total - tally.games) / rate if rate > 0 else math.inf
    parts.append(f"left {_duration(left)}")
    return "  ".join(parts)


def pair_summary(tally: Tally, heading: str, params: SprtParameters | None) -> list[str]:
    """The fastchess-style block of a two-engine run (module docstring)."""
    w, d, loss = tally.wdl
    played = w + d + loss
    elo = elo_estimate(tally, Model.LOGISTIC)
    nelo = elo_estimate(tally, Model.NORMALIZED)
    p = tally.pentanomial
    # Pairs won over pairs lost (fastchess's PairsRatio); "-" while none was lost.
    pairs_ratio = f"{(p[3] + p[4]) / (p[0] + p[1]):.2f}" if p[0] + p[1] else "-"
    lines = [
        RULE,
        f"Results of {heading}:",
        f"Elo: {_pm(elo)}, nElo: {_pm(nelo)}",
        f"LOS: {_percent(elo.los)}, DrawRatio: {_ratio(d, played)}, PairsRatio: {pairs_ratio}",
        f"Games: {played}, Wins: {w}, Losses: {loss}, Draws: {d}, Points: {tally.points():.1f} "
        f"({_ratio(tally.points(), played)})",
        f"Ptnml(0-2): [{', '.join(str(c) for c in p)}]",
    ]
    if params is not None:
        r = sprt_result(tally, params)
        percent = llr_percent(r)
        reached = "-" if percent is None else f"{percent:.1f}%"
        lines.append(
            f"LLR: {_llr(r)} ({reached}) ({r.lower:.2f}, {r.upper:.2f}) "
            f"[{params.elo0:.2f}, {params.elo1:.2f}]"
        )
        if r.llr_note:
            lines.append(f"LLR note: {r.llr_note}")
    lines.append(RULE)
    return lines


def sprt_verdict(tally: Tally, params: SprtParameters) -> str:
    """``SPRT ([elo0, elo1]) completed - H0 was accepted`` (or H1), or that it is undecided."""
    r = sprt_result(tally, params)
    bounds = f"[{params.elo0:.2f}, {params.elo1:.2f}]"
    if r.decision is Decision.CONTINUE:
        return f"SPRT ({bounds}) not decided: LLR {_llr(r)} in ({r.lower:.2f}, {r.upper:.2f})"
    return f"SPRT ({bounds}) completed - {r.decision} was accepted"


def termination_lines(tally: Tally) -> list[str]:
    """One line per engine: how many games it lost by each engine fault (time forfeits,
    illegal moves, crashes, ...) and how many of its games were aborted."""
    width = max(len(n) for n in tally.names)
    lines = ["Terminations charged to each engine:"]
    for name in tally.names:
        charged = tally.terminations[name]
        text = ", ".join(f"{k} {v}" for k, v in sorted(charged.items())) or "none"
        lines.append(f"  {name:<{width}}  {text}")
    return lines


def rating_fit(tally: Tally) -> RatingFit[str]:
    """The service's rating method fitted to every game with a result."""
    from ratings.stats.methods import DEFAULT_METHOD, get_method

    return get_method(DEFAULT_METHOD).fit(tally.results)


def unrated(tally: Tally, fit: RatingFit[str]) -> list[str]:
    """Engines without a finished game (left out of the fit: named in the table)."""
    seen = {r.engine for r in fit.ratings} | {e.engine for e in fit.excluded}
    return [n for n in tally.names if n not in seen]


def ratings_lines(tally: Tally) -> list[str]:
    """The ratings table of ``python -m ratings.stats.whr fit`` over the run's games."""
    from ratings.stats.whr.cli import ratings_table

    fit = rating_fit(tally)
    return ratings_table(fit, unrated(tally, fit)).rstrip("\n").split("\n")


def summary_json(
    tally: Tally, params: SprtParameters | None, *, stopped: str, engines: list[str]
) -> dict[str, Any]:
    """The ``--json`` summary. With ``--sprt``: the object of ``python -m ratings.stats.sprt
    --json`` for the run's pentanomial counts (``SprtResult.to_dict()``: ``games`` (those of
    the counted pairs), ``wdl``, ``pentanomial``, ``llr``, ``lower``, ``upper``, ``decision``,
    ``elo``, ``ci_low``, ``ci_high``, ``los``, ``ci_note``, ``llr_note``). Without: the same
    keys, the estimates of ``ratings.stats.sprt.estimate`` over ``counts(tally)`` (logistic),
    the SPRT's null. With three or more engines the pairwise keys (``games``, ``wdl``,
    ``pentanomial``, the estimates and ``ci_note``) are null. Then
    ``games_played`` (every game, aborted and lone ones too), ``terminations`` (engine name ->
    termination -> games), ``engines``, ``stopped`` (why the run ended: ``finished``,
    ``sprt``, ``interrupted``, ``failures``, ``error``) and, for three or more engines,
    ``ratings`` (the object of ``python -m ratings.stats.whr fit --json``)."""
    out: dict[str, Any]
    if params is not None:
        out = sprt_result(tally, params).to_dict()
    else:
        used = counts(tally)
        est = Estimate(*estimate(used, Model.LOGISTIC))
        paired = sum(tally.pentanomial) > 0
        out = {
            "games": sum(used) * (2 if paired else 1),
            "wdl": list(tally.pair_wdl if paired else tally.wdl),
            "pentanomial": list(tally.pentanomial),
            "llr": None,
            "lower": None,
            "upper": None,
            "decision": None,
            "elo": est.elo,
            "ci_low": est.low,
            "ci_high": est.high,
            "los": est.los,
            "ci_note": interval_note(used, Model.LOGISTIC),
            "llr_note": "no --sprt",
        }
    if len(engines) != 2:
        from ratings.stats.whr.cli import ratings_json

        # The pairwise figures would be of the first pairing alone: null (the ratings cover
        # every game).
        for key in ("games", "wdl", "pentanomial", "elo", "ci_low", "ci_high", "los", "ci_note"):
            out[key] = None
        fit = rating_fit(tally)
        out["ratings"] = ratings_json(fit, unrated(tally, fit))
    out["games_played"] = tally.games
    out["terminations"] = {n: dict(sorted(c.items())) for n, c in tally.terminations.items()}
    out["engines"] = list(engines)
    out["stopped"] = stopped
    return out


def _percent(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.2f} %"


def _ratio(x: float, n: int) -> str:
    return "-" if n == 0 else f"{100 * x / n:.2f} %"
