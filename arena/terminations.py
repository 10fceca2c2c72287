"""The termination vocabulary under the service's name: everything of
``arena.rules.terminations`` (the one definition, kept in the pure rules package so sandboxed
Python engines see it too), for ``from arena import terminations as T; T.CRASH``."""

from __future__ import annotations

from arena.rules.terminations import (
    ABORTED,
    BAO_HAMNA,
    CPU_LIMIT,
    CRASH,
    ENGINE_FAULTS,
    HANDSHAKE_FAILED,
    ILLEGAL_MOVE,
    INVALID_OUTPUT,
    MEMORY_LIMIT,
    NO_LEGAL_MOVE,
    OUTPUT_LIMIT,
    PLY_CAP,
    RATED_TERMINATIONS,
    REPETITION,
    RESIGNATION,
    RULES_TERMINATIONS,
    SCORE,
    STALL,
    TERMINATIONS,
    TIME_FORFEIT,
    Termination,
    is_engine_fault,
    is_rated,
)

__all__ = [
    "ABORTED",
    "BAO_HAMNA",
    "CPU_LIMIT",
    "CRASH",
    "ENGINE_FAULTS",
    "HANDSHAKE_FAILED",
    "ILLEGAL_MOVE",
    "INVALID_OUTPUT",
    "MEMORY_LIMIT",
    "NO_LEGAL_MOVE",
    "OUTPUT_LIMIT",
    "PLY_CAP",
    "RATED_TERMINATIONS",
    "REPETITION",
    "RESIGNATION",
    "RULES_TERMINATIONS",
    "SCORE",
    "STALL",
    "TERMINATIONS",
    "TIME_FORFEIT",
    "Termination",
    "is_engine_fault",
    "is_rated",
]
