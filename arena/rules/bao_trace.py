"""The sowing trace of a Bao move, built from the events ``bao_sowing.sow_move`` records
while it plays the move (``Recorder`` takes its place in a ``bao_moves.MoveRunner``).

Source: ``docs/rules/bao-la-kete.md`` 5 (capture procedure: the kichwa and its
direction), 6.1-6.3 (reserve seed, lifts, the tax and the six-seed kuu, lap-end loop: relay,
nyumba stop and safari, the takasia'd pit) and ``docs/rules/README.md`` 9.2 (A-5: a win in
the middle of a move keeps seeds in hand). Every decision (where a lap ends, whether it
captures, which kichwa, when the nyumba stops a move) was taken by the sowing code and is
only read here: this module moves seeds on a copy of the board in the order the events give
and writes one ``Step`` per seed, so the trace cannot disagree with ``apply``.
"""

from __future__ import annotations

from collections.abc import Sequence

from .bao_board import SQUARES, BaoPosition
from .bao_sowing import (
    T_CAPTURE,
    T_LAP,
    T_NYUMBA_RELAY,
    T_NYUMBA_STOP,
    T_SAFARI,
    T_TAKASIA_STOP,
    T_WON,
    sow_move,
)
from .base import SOUTH
from .trace import (
    ANTICLOCKWISE,
    CAPTURE,
    CLOCKWISE,
    END,
    KICHWA,
    LIFT,
    NYUMBA,
    RESERVE,
    SOW,
    Lap,
    SowingTrace,
    StepWriter,
)

T_START = "start"


class Recorder:
    """Stands in for ``sow_move`` in a ``MoveRunner`` that plays one move: records how the
    move starts (``(T_START, pits, pos, n, d, house)``: the mover's pits, first pit, seeds
    and direction of the first lap, and the nyumba flag, all after the reserve seed and the
    lift), then sows with ``sow_move`` recording its events in ``events``."""

    def __init__(self) -> None:
        self.events: list[tuple[object, ...]] = []

    def __call__(
        self,
        me: list[int],
        opp: list[int],
        pos: int,
        n: int,
        d: int,
        capture: bool,
        namua: bool,
        house_me: bool,
        house_opp: bool,
        choice: int,
        stop_pit: int,
        priority_pit: int,
    ) -> tuple[int, bool, bool, int, bool]:
        self.events.append((T_START, tuple(me), pos, n, d, house_me))
        return sow_move(
            me,
            opp,
            pos,
            n,
            d,
            capture,
            namua,
            house_me,
            house_opp,
            choice,
            stop_pit,
            priority_pit,
            self.events,
            0,
        )


def build_trace(
    position: BaoPosition, move: str, pit: int, tax: bool, events: Sequence[tuple[object, ...]]
) -> SowingTrace:
    """The ``SowingTrace`` of ``move`` played in ``position`` from the ``events`` of a
    ``Recorder``. ``pit``: the token's pit (relative index); ``tax``: the move is the namua
    nyumba tax (6.1).

    Raises ``TraceTooLongError`` past ``trace.MAX_STEPS`` steps.
    """
    si = 0 if position.side == SOUTH else 1
    me = list(position.pits[si])
    opp = list(position.pits[1 - si])
    mine, theirs = SQUARES[si], SQUARES[1 - si]
    house_opp = position.houses[1 - si]
    w = StepWriter()
    last = pit  # the mover's pit where the latest lap (or the reserve seed) ended
    origin = ""  # where the seeds of the next lap come from, for the lap notation
    relay_destroys = False
    ended = False
    for event in events:
        kind = event[0]
        if kind == T_START:
            after, first, house = event[1], event[3], event[5]
            assert isinstance(after, tuple) and isinstance(first, int)
            if position.reserves[si] > 0:  # 6.1 step 1: the reserve seed goes into the pit
                me[pit] += 1
                w.add(RESERVE, mine[pit], me[pit])
            if first:  # the lift (none before a namua capture)
                me[pit] = after[pit]
                w.hand = first
                origin = mine[pit]
                w.add(LIFT, mine[pit], me[pit], seeds=first)
                if tax:
                    w.add(NYUMBA, mine[pit], me[pit], rule="tax")
                if position.houses[si] and not house:
                    w.add(NYUMBA, mine[pit], me[pit], rule="destroyed")
        elif kind == T_LAP:
            pos, n, d = event[1], event[2], event[3]
            assert isinstance(pos, int) and isinstance(n, int) and isinstance(d, int)
            if w.hand == 0:  # nothing in hand: the lap is a relay from where the last one ended
                me[last] -= n
                w.hand = n
                origin = mine[last]
                w.add(LIFT, mine[last], me[last], seeds=n, rule="relay")
                if relay_destroys:
                    w.add(NYUMBA, mine[last], me[last], rule="destroyed")
                    relay_destroys = False
            w.reserve_room(n)
            for _ in range(n):
                me[pos] += 1
                w.hand -= 1
                w.add(SOW, mine[pos], me[pos])
                last = pos
                pos = (pos + d) & 15
            w.laps.append(Lap(origin, n, mine[last]))
        elif kind == T_CAPTURE:
            at, target, taken, kichwa, d, house_after = event[1:7]
            assert isinstance(at, int) and isinstance(target, int) and isinstance(taken, int)
            assert isinstance(kichwa, int) and isinstance(d, int)
            opp[target] = 0
            w.hand = taken
            origin = theirs[target]
            w.add(CAPTURE, theirs[target], 0, seeds=taken)
            if house_opp and not house_after:
                house_opp = False
                w.add(NYUMBA, theirs[target], 0, rule="captured")
            if kichwa >= 0:
                # bao-la-kete.md 5 step 3: a kimbi (0, 1, 6, 7) forces the kichwa.
                rule = "kimbi" if at < 2 or at > 5 else "direction"
                direction = "+" if d == 1 else "-"
                w.add(KICHWA, mine[kichwa], me[kichwa], direction=direction, rule=rule)
        elif kind == T_WON:
            w.add(END, mine[last], me[last], rule="won")
            ended = True
        elif kind == T_NYUMBA_STOP:
            w.add(NYUMBA, mine[last], me[last], rule="stop")
            w.add(END, mine[last], me[last], rule="nyumba")
            ended = True
        elif kind == T_SAFARI:
            w.add(NYUMBA, mine[last], me[last], rule="safari")
        elif kind == T_NYUMBA_RELAY:
            relay_destroys = True
        elif kind == T_TAKASIA_STOP:
            w.add(END, mine[last], me[last], rule="takasia")
            ended = True
    if not ended:
        w.add(END, mine[last], me[last], rule="empty")
    direction = CLOCKWISE if move[2] == "+" else ANTICLOCKWISE
    return w.finish(str(move), position.side, direction)


__all__ = ["Recorder", "build_trace"]
