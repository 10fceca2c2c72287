"""The one termination vocabulary of the service: how a game of a match ended.

Source: ``shared/rules/README.md`` 6.4 for the rules endings (equal to
``arena.rules.RULES_REASONS``); the referee endings are the service's own (contracts,
"Termination vocabulary"). Records, the API and logs all use these strings.

Every engine fault (``time_forfeit`` .. ``memory_limit``) loses the game for that engine and
wins it for the opponent. ``aborted`` is our fault (the sandbox could not start, the referee
was interrupted): no winner and the game is not rated.
"""

from __future__ import annotations

# Rules endings (README 6.4), same strings as arena.rules.base.
BAO_HAMNA = "bao_hamna"
NO_LEGAL_MOVE = "no_legal_move"
SCORE = "score"
REPETITION = "repetition"
PLY_CAP = "ply_cap"

# Referee endings: engine faults, charged to the engine that committed them.
TIME_FORFEIT = "time_forfeit"  # no bestmove before its clock (+ grace) ran out
ILLEGAL_MOVE = "illegal_move"  # a well-formed token not in legal_moves
INVALID_OUTPUT = "invalid_output"  # not a valid reply where a reply was expected
CRASH = "crash"  # the process exited or was killed by a signal (detail says which)
STALL = "stall"  # no readyok to the liveness ping in time
HANDSHAKE_FAILED = "handshake_failed"  # no complete bep ... bepok exchange in time
OUTPUT_LIMIT = "output_limit"  # a line too long, or too much stdout / stderr
MEMORY_LIMIT = "memory_limit"  # all its processes plus its tmpfs held more than the memory cap

# Infrastructure ending: not the engine's fault.
ABORTED = "aborted"

RULES_TERMINATIONS: tuple[str, ...] = (BAO_HAMNA, NO_LEGAL_MOVE, SCORE, REPETITION, PLY_CAP)
ENGINE_FAULTS: tuple[str, ...] = (
    TIME_FORFEIT,
    ILLEGAL_MOVE,
    INVALID_OUTPUT,
    CRASH,
    STALL,
    HANDSHAKE_FAILED,
    OUTPUT_LIMIT,
    MEMORY_LIMIT,
)
TERMINATIONS: tuple[str, ...] = RULES_TERMINATIONS + ENGINE_FAULTS + (ABORTED,)

#: Terminations whose games count for ratings: everything but ``aborted``.
RATED_TERMINATIONS: frozenset[str] = frozenset(RULES_TERMINATIONS + ENGINE_FAULTS)


def is_rated(code: str) -> bool:
    """Whether a game ended with ``code`` counts for Elo (False for ``aborted``).

    Raises ``ValueError`` for a string that is not one of ``TERMINATIONS``.
    """
    if code not in TERMINATIONS:
        raise ValueError(f"unknown termination {code!r}; known: {', '.join(TERMINATIONS)}")
    return code in RATED_TERMINATIONS


def is_engine_fault(code: str) -> bool:
    """Whether ``code`` is a fault of one engine (the opponent wins the game)."""
    return code in ENGINE_FAULTS
