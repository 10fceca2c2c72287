"""Time controls and referee settings (docs/referee.md, "Timeouts and clocks")."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING

from .process import Starter, TransportFactory
from .transport import DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_STDOUT_BYTES
from .watchdog import CpuBudget

if TYPE_CHECKING:
    from engines.sandbox import SandboxConfig

log = logging.getLogger(__name__)

#: Default memory cap of one engine (all its processes and tmpfs), bytes: 1 GiB.
DEFAULT_MEMORY_CAP_BYTES = 1 << 30


class TimeControlError(ValueError):
    """A time control text that does not parse (``"10+0.1"``, ``"5"``, ``"movetime=200"``) or
    lies outside the allowed range (``TimeControl.parse``)."""


# ASCII digits only: ``\d`` would also accept full-width (U+FF11) and other Unicode digits.
_NUMBER = r"([0-9]{1,9}(?:\.[0-9]{1,9})?)"
_FISCHER = re.compile(rf"^{_NUMBER}(?:\+{_NUMBER})?$")
_MOVETIME = re.compile(r"^movetime=([0-9]{1,9})$")

#: Allowed ranges of a parsed time control, in ms. The lower bounds keep a game decided by the
#: engines' thinking rather than by the referee's per-move grace (``RefereeConfig.grace_ms``)
#: and pipe latency; the upper bounds are sanity limits (the worker's task time limit, see
#: ``arena.matches.limits``, usually refuses long clocks well below them).
MIN_BASE_MS = 1000
MAX_BASE_MS = 24 * 3600 * 1000
MAX_INCREMENT_MS = 3600 * 1000
MIN_MOVETIME_MS = 10
MAX_MOVETIME_MS = 3600 * 1000


def _shown(text: str) -> str:
    """``text`` quoted for an error message, cut short (the input may be arbitrarily long)."""
    raw = str(text)
    return repr(raw) if len(raw) <= 40 else repr(raw[:40]) + "..."


def _to_ms(seconds: str, what: str, text: str) -> int:
    """Whole milliseconds of a decimal number of seconds; finer values are refused rather than
    rounded (a clock silently different from the one asked for)."""
    ms = Decimal(seconds) * 1000
    if ms != ms.to_integral_value():
        raise TimeControlError(
            f"{what} {seconds} s in {_shown(text)} is finer than 1 ms: use at most 3 decimals"
        )
    return int(ms)


@dataclass(frozen=True)
class TimeControl:
    """A Fischer clock (``base_ms`` per game plus ``increment_ms`` after each move) or, when
    ``movetime_ms`` is set, a fixed budget per move (``go movetime``)."""

    base_ms: int = 0
    increment_ms: int = 0
    movetime_ms: int | None = None

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """``"10+0.1"`` (seconds + seconds: base 10000 ms, increment 100 ms), ``"60"`` (no
        increment) or ``"movetime=200"`` (ms). ASCII digits only; whole milliseconds only.

        Ranges: base 1 s to 86400 s, increment 0 to 3600 s, movetime 10 ms to 3600000 ms.
        Raises ``TimeControlError`` (unparseable, finer than 1 ms, or out of range; the
        message states the allowed range). The one parser of time controls: the referee, its
        CLI and the API all go through it.
        """
        raw = str(text).strip()
        m = _MOVETIME.match(raw)
        if m:
            movetime = int(m.group(1))
            if not MIN_MOVETIME_MS <= movetime <= MAX_MOVETIME_MS:
                raise TimeControlError(
                    f"movetime in {_shown(text)} must be {MIN_MOVETIME_MS} to {MAX_MOVETIME_MS} ms"
                )
            return cls(movetime_ms=movetime)
        m = _FISCHER.match(raw)
        if not m:
            raise TimeControlError(
                f"bad time control {_shown(text)}: expected '<base s>+<increment s>' such as "
                "'10+0.1', or 'movetime=<ms>'"
            )
        base = _to_ms(m.group(1), "base", text)
        inc = _to_ms(m.group(2) or "0", "increment", text)
        if not MIN_BASE_MS <= base <= MAX_BASE_MS:
            raise TimeControlError(
                f"base time in {_shown(text)} must be {_seconds(MIN_BASE_MS)} to "
                f"{_seconds(MAX_BASE_MS)} s"
            )
        if inc > MAX_INCREMENT_MS:
            raise TimeControlError(
                f"increment in {_shown(text)} must be 0 to {_seconds(MAX_INCREMENT_MS)} s"
            )
        return cls(base_ms=base, increment_ms=inc)

    def __str__(self) -> str:
        if self.movetime_ms is not None:
            return f"movetime={self.movetime_ms}"
        return f"{_seconds(self.base_ms)}+{_seconds(self.increment_ms)}"


def _seconds(ms: int) -> str:
    # Exact to the millisecond (``:g`` would round 86399.999 to 86400).
    return f"{ms // 1000}.{ms % 1000:03d}".rstrip("0").rstrip(".")


def _default_sandbox() -> SandboxConfig | None:
    try:
        from engines.sandbox import SandboxConfig
    except ImportError:  # the sandbox module is optional for protocol-only use
        return None
    return SandboxConfig()


@dataclass(frozen=True)
class RefereeConfig:
    """Referee settings. Times in ms.

    ``handshake_timeout_ms``: from ``bep`` to ``bepok``. ``ready_timeout_ms``: from the write of
    ``position``/``isready``/``go`` to ``readyok`` (every move: past it, ``stall``; also the
    budget of a resync). ``grace_ms``: how far a side's moves may overrun its clock in total,
    per game, before a ``time_forfeit`` (pipe and scheduling latency, not thinking time).
    ``ply_cap``/``repetitions``: game limits (None: the variant's defaults, rules 9.1).
    ``max_line_bytes``/``max_stdout_bytes``: stdout caps (``output_limit``).
    ``quit_timeout_ms``: how long an engine may take to exit after ``quit`` before it is killed.
    ``engine_options``: ``setoption`` values sent before each game to every engine that declared
    that option. ``seed_option``: an engine that declares an option of this name gets a per-game
    seed derived from the match seed (reproducible, varied matches of randomised engines); None
    disables it. ``sandbox``: the ``engines.sandbox.SandboxConfig`` engines start under (None,
    also where the sandbox module is missing: the starter is called without one).
    ``starter``/``transport_factory``: how engines are started and connected (``process.Starter``
    and ``process.TransportFactory``; default: ``engines.sandbox.start_engine`` and
    ``PipeTransport``; tests swap them).
    ``memory_cap_bytes``: the most memory one engine may hold, all its processes and its tmpfs
    together (``watchdog.EngineWatchdog`` samples it every ``memory_interval_ms``, 1 to 20, and
    kills it at the cap: ``memory_limit``); None: no cap. ``cpu_budget``: the CPU time one
    engine may use, all its processes together (``watchdog.CpuBudget``: ``allowance_s +
    factor * wall_s``; the watchdog kills it past it: ``cpu_limit``); None: no budget.
    ``on_metric``: called with
    ``("engine_start_seconds", s)`` after each engine start (spawn to handshake done) and
    ``("move_overhead_seconds", s)`` after each move (the ply's wall time minus the engine's
    ``go`` to ``bestmove``); the worker feeds them to Prometheus (``arena.metrics``).
    """

    sandbox: SandboxConfig | None = field(default_factory=_default_sandbox)
    handshake_timeout_ms: int = 5000
    ready_timeout_ms: int = 2000
    grace_ms: int = 50
    ply_cap: int | None = None
    repetitions: int | None = None
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    max_stdout_bytes: int = DEFAULT_MAX_STDOUT_BYTES
    quit_timeout_ms: int = 200
    engine_options: dict[str, str] = field(default_factory=dict)
    seed_option: str | None = "Seed"
    starter: Starter | None = None
    transport_factory: TransportFactory | None = None
    memory_cap_bytes: int | None = DEFAULT_MEMORY_CAP_BYTES
    memory_interval_ms: int = 20
    cpu_budget: CpuBudget | None = field(default_factory=CpuBudget)
    on_metric: Callable[[str, float], None] | None = None

    def __post_init__(self) -> None:
        if self.memory_cap_bytes is not None and self.memory_cap_bytes <= 0:
            raise ValueError("memory_cap_bytes must be positive (None: no cap)")
        if not 1 <= self.memory_interval_ms <= 20:
            raise ValueError("memory_interval_ms must be 1 to 20")

    def metric(self, name: str, seconds: float) -> None:
        """Report a measurement to ``on_metric``; its failures never disturb the game."""
        if self.on_metric is None:
            return
        try:
            self.on_metric(name, seconds)
        except Exception:
            log.exception("on_metric callback failed")
        for name in ("handshake_timeout_ms", "ready_timeout_ms", "quit_timeout_ms"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive")
        if self.grace_ms < 0:
            raise ValueError("grace_ms must be >= 0")
