"""The one termination vocabulary of the service: how a game of a match ended.

Source: ``docs/rules/README.md`` 9.1 for the rules endings (the rules engine's
``Outcome.reason`` is one of them); the referee endings are the service's own (contracts,
"Termination vocabulary"). Records, the API and logs all use these strings. It lives in the
rules package, the lowest pure layer, so the rules engine (also mounted into the sandbox for
Python engines) and every layer above read the same enum; ``arena.terminations`` is its name in
the service.

Every engine fault (``time_forfeit`` .. ``cpu_limit``) loses the game for that engine and
wins it for the opponent. ``aborted`` is our fault (the sandbox could not start, the referee
was interrupted): no winner and the game is not rated.
"""

from __future__ import annotations

from enum import StrEnum


class Termination(StrEnum):
    """How a game ended; each member is its stable code (``Termination.SCORE == "score"``)."""

    # Rules endings (rules 9).
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
    CPU_LIMIT = "cpu_limit"  # all its processes used more CPU time than its budget
    # A person's ending (games against people, docs/play.md): the person gave up. Never
    # rated: people's games are casual.
    RESIGNATION = "resignation"
    # Infrastructure ending: not the engine's fault.
    ABORTED = "aborted"


# The members by their short names, for ``from arena import terminations as T; T.CRASH``.
BAO_HAMNA = Termination.BAO_HAMNA
NO_LEGAL_MOVE = Termination.NO_LEGAL_MOVE
SCORE = Termination.SCORE
REPETITION = Termination.REPETITION
PLY_CAP = Termination.PLY_CAP
TIME_FORFEIT = Termination.TIME_FORFEIT
ILLEGAL_MOVE = Termination.ILLEGAL_MOVE
INVALID_OUTPUT = Termination.INVALID_OUTPUT
CRASH = Termination.CRASH
STALL = Termination.STALL
HANDSHAKE_FAILED = Termination.HANDSHAKE_FAILED
OUTPUT_LIMIT = Termination.OUTPUT_LIMIT
MEMORY_LIMIT = Termination.MEMORY_LIMIT
CPU_LIMIT = Termination.CPU_LIMIT
RESIGNATION = Termination.RESIGNATION
ABORTED = Termination.ABORTED

RULES_TERMINATIONS: tuple[Termination, ...] = (BAO_HAMNA, NO_LEGAL_MOVE, SCORE, REPETITION, PLY_CAP)
ENGINE_FAULTS: tuple[Termination, ...] = (
    TIME_FORFEIT,
    ILLEGAL_MOVE,
    INVALID_OUTPUT,
    CRASH,
    STALL,
    HANDSHAKE_FAILED,
    OUTPUT_LIMIT,
    MEMORY_LIMIT,
    CPU_LIMIT,
)
TERMINATIONS: tuple[Termination, ...] = tuple(Termination)

#: Terminations whose games count for ratings: everything but ``aborted``.
RATED_TERMINATIONS: frozenset[Termination] = frozenset(RULES_TERMINATIONS + ENGINE_FAULTS)


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
