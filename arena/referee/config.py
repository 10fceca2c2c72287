"""Time controls and referee settings (docs/referee.md, "Timeouts and clocks")."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .transport import DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_STDOUT_BYTES


class TimeControlError(ValueError):
    """A time control text that does not parse (``"10+0.1"``, ``"5"``, ``"movetime=200"``)."""


_FISCHER = re.compile(r"^(\d+(?:\.\d+)?)(?:\+(\d+(?:\.\d+)?))?$")
_MOVETIME = re.compile(r"^movetime=(\d+)$")


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
        increment) or ``"movetime=200"`` (ms). Raises ``TimeControlError``."""
        raw = str(text).strip()
        m = _MOVETIME.match(raw)
        if m:
            movetime = int(m.group(1))
            if movetime <= 0:
                raise TimeControlError(f"movetime must be positive in {text!r}")
            return cls(movetime_ms=movetime)
        m = _FISCHER.match(raw)
        if not m:
            raise TimeControlError(
                f"bad time control {text!r}: expected '<base s>+<increment s>' such as "
                "'10+0.1', or 'movetime=<ms>'"
            )
        base = round(float(m.group(1)) * 1000)
        inc = round(float(m.group(2) or 0) * 1000)
        if base <= 0:
            raise TimeControlError(f"base time must be positive in {text!r}")
        return cls(base_ms=base, increment_ms=inc)

    def __str__(self) -> str:
        if self.movetime_ms is not None:
            return f"movetime={self.movetime_ms}"
        return f"{_seconds(self.base_ms)}+{_seconds(self.increment_ms)}"


def _seconds(ms: int) -> str:
    return f"{ms // 1000}" if ms % 1000 == 0 else f"{ms / 1000:g}"


def _default_sandbox() -> Any:
    try:
        from engines.sandbox import SandboxConfig
    except ImportError:  # the sandbox module is optional for protocol-only use
        return None
    return SandboxConfig()


@dataclass(frozen=True)
class RefereeConfig:
    """Referee settings. Times in ms.

    ``handshake_timeout_ms``: from ``bep`` to ``bepok``. ``ready_timeout_ms``: from ``isready``
    to ``readyok`` (liveness ping before every move; also the budget of a resync).
    ``grace_ms``: added to the remaining clock before a ``time_forfeit`` (pipe and scheduling
    latency, not thinking time). ``ply_cap``/``repetitions``: game limits (None: the variant's
    defaults, README 6.3). ``max_line_bytes``/``max_stdout_bytes``: stdout caps
    (``output_limit``). ``quit_timeout_ms``: how long an engine may take to exit after ``quit``
    before it is killed. ``engine_options``: ``setoption`` values sent before each game to every
    engine that declared that option. ``seed_option``: an engine that declares an option of
    this name gets a per-game seed derived from the match seed (reproducible, varied matches
    of randomised engines); None disables it. ``starter``/``transport_factory``: how engines are
    started and connected (default: ``engines.sandbox.start_engine`` and ``PipeTransport``; tests
    swap them).
    """

    sandbox: Any = field(default_factory=_default_sandbox)
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
    starter: Callable[..., Any] | None = None
    transport_factory: Callable[..., Any] | None = None

    def __post_init__(self) -> None:
        for name in ("handshake_timeout_ms", "ready_timeout_ms", "quit_timeout_ms"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive")
        if self.grace_ms < 0:
            raise ValueError("grace_ms must be >= 0")
