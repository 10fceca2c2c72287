"""The sowing trace of a Bao Kingulu move, built from the events ``kingulu._sow_move``
records while it plays it.

Source: ``docs/rules/bao-kingulu.md`` 3 (lifting and sowing counterclockwise, reserved holes
as sinks G-1, rules 1-5 at a lap's end: reserved hole, capture by opposition, kuweka mtoto
with its penultimate seed G-4/G-5, relay) and G-6 (a lap of 12 or more seeds also sows its
emptied start hole). The decisions were taken by ``_sow_move``; this module moves the seeds on
a copy of the board in the events' order and writes one ``Step`` per seed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from .base import NORTH, SOUTH
from .trace import (
    ANTICLOCKWISE,
    BANK,
    CAPTURE,
    END,
    LIFT,
    MTOTO,
    SOW,
    Lap,
    SowingTrace,
    StepWriter,
)

if TYPE_CHECKING:
    from .kingulu import KinguluPosition

#: Event kinds of a traced ``_sow_move`` (see its docstring).
T_LAP: Final = "lap"
T_RESERVED: Final = "reserved"
T_CAPTURE: Final = "capture"
T_MTOTO: Final = "mtoto"

_SIDES = (SOUTH, NORTH)


def build_trace(
    position: KinguluPosition,
    move: str,
    events: Sequence[tuple[str, int, int, int]],  # Kingulu sows anticlockwise only (rules 5)
    square_of_ring: Sequence[str],
) -> SowingTrace:
    """The ``SowingTrace`` of ``move`` in ``position`` from its recorded ``events``.

    ``square_of_ring``: square names by ring index. Raises ``TraceTooLongError`` past
    ``trace.MAX_STEPS`` steps.
    """
    board = list(position.board)
    banks = list(position.banks)
    owners = position.owners  # reservations cannot change before the move's last step
    mover = 0 if position.side == SOUTH else 1
    sq = square_of_ring
    w = StepWriter()
    last = 0
    ended = "empty"
    for kind, a, b, c in events:
        if kind == T_LAP:
            pos, seeds, last = a, b, c
            w.reserve_room(seeds + 1)
            board[pos] -= seeds
            w.hand = seeds
            w.add(LIFT, sq[pos], board[pos], seeds=seeds, rule="relay" if w.laps else "")
            k = pos
            for _ in range(seeds):
                k = k + 1 if k < 11 else 0
                w.hand -= 1
                owner = owners[k]
                if owner:  # G-1: the seed goes straight to the owner's bank
                    banks[owner - 1] += 1
                    w.add(BANK, sq[k], board[k], side=_SIDES[owner - 1], bank=banks[owner - 1])
                else:
                    board[k] += 1
                    w.add(SOW, sq[k], board[k])
            w.laps.append(Lap(sq[pos], seeds, sq[last]))
        elif kind == T_RESERVED:
            ended = "reserved"
        elif kind == T_CAPTURE:
            facing, taken = a, b
            side = _SIDES[mover]
            board[facing] = 0
            banks[mover] += taken
            w.add(CAPTURE, sq[facing], 0, seeds=taken, side=side, bank=banks[mover])
            board[last] -= 1
            banks[mover] += 1
            w.add(CAPTURE, sq[last], board[last], seeds=1, side=side, bank=banks[mover])
        elif kind == T_MTOTO:
            moved_from = b
            w.add(MTOTO, sq[last], board[last], side=_SIDES[mover])
            if moved_from >= 0:  # the lap's penultimate seed joins the new mtoto (rule 3)
                board[moved_from] -= 1
                w.hand = 1
                w.add(LIFT, sq[moved_from], board[moved_from], seeds=1, rule="mtoto")
                board[last] += 1
                w.hand = 0
                w.add(SOW, sq[last], board[last], rule="mtoto")
            ended = "mtoto"
    w.add(END, sq[last], board[last], rule=ended)
    return w.finish(str(move), position.side, ANTICLOCKWISE)


__all__ = ["T_CAPTURE", "T_LAP", "T_MTOTO", "T_RESERVED", "build_trace"]
