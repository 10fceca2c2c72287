"""Bao sowing core: laps, relays, captures, the nyumba stop/safari and never-ending moves.

Source: ``docs/rules/bao-la-kete.md`` 3 (lap mechanics), 4.2 (the mtaji capture
candidate test), 5 (capture procedure, ``#5-captures``), 6.3 (lap-end loop), 6.4 (front-row
rule K-9) and ``docs/rules/README.md`` (cited as "rules n") 8 (the 10,000-lap bound, lap
states: ``#8-moves-that-never-end``), 9.2 (A-5, win in the middle of a move). Shared by both
4 x 8 variants; it works on one player's pits ``me`` and the opponent's pits ``opp``, both
lists of 16 counts in relative ring order (rules 4.2), mutated in place.

Edge-case decisions and implementation notes:

* Laps are counted from 1; the namua reserve seed is not a lap. A move that would start lap
  10,001 is never-ending (rules 8). From lap ``RECORD_FROM`` on, the lap state (all pits of
  both players, next pit, seeds in hand, direction, both house flags) is kept in a set, and a
  repeat stops the move early with the same verdict (every real move is far shorter, the
  known never-ending ones cycle within 120 laps).
* A lap of 16 or more seeds is sown arithmetically (``n // 16`` to every pit, then the
  remainder), so absurd test positions cannot make one lap slow.
* The front-row rule K-9 is checked only right after a lift: drops only add seeds, so the
  mover's front row can only become empty when the first drop after lifting the last
  occupied front pit lands in the back row (a kichwa sown outwards).
"""

from __future__ import annotations

from typing import Final

#: Result codes of ``sow_move``.
ENDED: Final = 0  # the move ended normally
NEVER_ENDING: Final = 1  # rules 8: illegal
FRONT_ROW_EMPTIED: Final = 2  # a takata emptied the mover's front row (K-9): illegal
WON: Final = 3  # a capture emptied the opponent's front row: the move stops there
NEEDS_CHOICE: Final = 4  # a namua capture lap ended in the owned nyumba and no choice was given

#: rules 8: a move may use up to this many laps.
MAX_LAPS: Final = 10_000
#: Lap from which lap states are recorded for the early cycle verdict.
RECORD_FROM: Final = 200

#: Event kinds recorded in a ``sow_move`` trace (see its docstring).
T_LAP: Final = "lap"
T_CAPTURE: Final = "capture"
T_WON: Final = "won"
T_NYUMBA_STOP: Final = "nyumba_stop"
T_SAFARI: Final = "safari"
T_TAKASIA_STOP: Final = "takasia_stop"
T_NYUMBA_RELAY: Final = "nyumba_relay"

NO_CHOICE: Final = 0
STOP: Final = 1  # token suffix "s"
SAFARI: Final = 2  # token suffix "c"


def sow_move(
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
    trace: list[tuple[object, ...]] | None = None,
    record_from: int = RECORD_FROM,
) -> tuple[int, bool, bool, int, bool]:
    """Play the rest of a move whose first lap is ``n`` seeds sown from pit ``pos``.

    ``me``/``opp``: the mover's and the opponent's 16 pits (relative indices), mutated in place.
    ``n == 0`` means: no lap to sow first, the move continues at the lap end in pit ``pos``
    (used for the first namua capture, where the reserve seed was put into ``pos``).
    ``d``: +1 clockwise, -1 anticlockwise. ``capture``: capture mode (6.3 step 2).
    ``namua``: the mover's reserve was positive at the start (nyumba stop, 6.3 step 3).
    ``house_me``/``house_opp``: nyumba ownership. ``choice``: ``NO_CHOICE``, ``STOP`` or
    ``SAFARI`` for the nyumba choice point. ``stop_pit``: the mover's takasia'd pit or -1
    (ends a takata lap, 6.3 step 4). ``priority_pit``: the opponent's pit whose capture is
    recorded (Bao la Kete hizi zetu), or -1.

    Returns ``(code, house_me, house_opp, seeds_in_hand, priority_captured)``; ``code`` is
    one of ``ENDED``, ``NEVER_ENDING``, ``FRONT_ROW_EMPTIED``, ``WON`` (``seeds_in_hand`` >=
    1), ``NEEDS_CHOICE``.

    ``trace``: a list that receives the move's events for ``bao_trace`` (``(LAP, pos, n, d)``
    before each lap, ``(CAPTURE, last, target, taken, kichwa, d, house_opp)`` (kichwa -1
    after a win), ``(WON,)``,
    ``(NYUMBA_STOP,)``, ``(SAFARI,)``, ``(TAKASIA_STOP,)``, ``(NYUMBA_RELAY,)``); a relay and
    an ending in an empty pit are implied. None (the default) records nothing.
    ``record_from``: the lap after which laps are looked at one by one (for the lap-state
    set, and for the trace: a tracing caller passes 0), so an untraced move pays nothing
    for tracing.
    """
    takata = not capture
    laps = 0
    seen: set[tuple[object, ...]] | None = None
    priority_captured = False
    last = pos
    while True:
        if n:
            # ---- one lap: n seeds from pos in direction d
            laps += 1
            if laps > record_from:
                if trace is not None:
                    trace.append((T_LAP, pos, n, d))
                if laps > RECORD_FROM:
                    if laps > MAX_LAPS:
                        return NEVER_ENDING, house_me, house_opp, 0, priority_captured
                    state = (tuple(me), tuple(opp), pos, n, d, house_me, house_opp)
                    if seen is None:
                        seen = {state}
                    elif state in seen:
                        return NEVER_ENDING, house_me, house_opp, 0, priority_captured
                    else:
                        seen.add(state)
            if n < 16:
                if d == 1:
                    end = pos + n
                    if end <= 16:
                        for i in range(pos, end):
                            me[i] += 1
                        last = end - 1
                    else:
                        for i in range(pos, 16):
                            me[i] += 1
                        end -= 16
                        for i in range(end):
                            me[i] += 1
                        last = end - 1
                else:
                    start = pos - n + 1
                    if start >= 0:
                        for i in range(start, pos + 1):
                            me[i] += 1
                        last = start
                    else:
                        for i in range(pos + 1):
                            me[i] += 1
                        start += 16
                        for i in range(start, 16):
                            me[i] += 1
                        last = start
            else:
                rounds, rest = divmod(n, 16)
                for i in range(16):
                    me[i] += rounds
                i = pos
                for _ in range(rest):
                    me[i] += 1
                    i = (i + d) & 15
                last = (pos + d * (n - 1)) & 15
        # ---- lap end in `last` (6.3)
        seeds = me[last]
        if seeds == 1:
            return ENDED, house_me, house_opp, 0, priority_captured
        if capture and last < 8:
            target = 7 - last
            taken = opp[target]
            if taken:
                opp[target] = 0
                if target == 4:
                    house_opp = False
                if target == priority_pit:
                    priority_captured = True
                if not any(opp[:8]):
                    if trace is not None:
                        trace.append((T_CAPTURE, last, target, taken, -1, d, house_opp))
                        trace.append((T_WON,))
                    return WON, house_me, house_opp, taken, priority_captured
                # 5 step 3: kimbi force the kichwa (and direction), central pits keep it.
                if last < 2:
                    d = 1
                elif last > 5:
                    d = -1
                pos = 0 if d == 1 else 7
                n = taken
                if trace is not None:
                    trace.append((T_CAPTURE, last, target, taken, pos, d, house_opp))
                continue
        if namua and last == 4 and house_me and seeds >= 6:
            if takata or choice == STOP:
                if trace is not None:
                    trace.append((T_NYUMBA_STOP,))
                return ENDED, house_me, house_opp, 0, priority_captured
            if choice == NO_CHOICE:
                return NEEDS_CHOICE, house_me, house_opp, 0, priority_captured
            # SAFARI: relay from the nyumba below, which destroys it.
            if trace is not None:
                trace.append((T_SAFARI,))
        if takata and last == stop_pit:
            if trace is not None:
                trace.append((T_TAKASIA_STOP,))
            return ENDED, house_me, house_opp, 0, priority_captured
        # ---- relay
        me[last] = 0
        if last == 4:
            if trace is not None and house_me:
                trace.append((T_NYUMBA_RELAY,))
            house_me = False
        pos = (last + d) & 15
        if takata and pos > 7 and last < 8 and not any(me[:8]):
            return FRONT_ROW_EMPTIED, house_me, house_opp, 0, priority_captured
        n = seeds


def capture_landings(
    me: list[int] | tuple[int, ...], opp: list[int] | tuple[int, ...]
) -> list[tuple[int, int, int]]:
    """Mtaji capture candidates of the player owning ``me`` (bao-la-kete.md 4.2).

    Returns ``(pit, direction, landing pit)`` for every pit with 2..15 seeds whose first lap
    ends in an occupied own front pit facing an occupied opponent pit. No simulation.
    """
    found = []
    for p in range(16):
        n = me[p]
        if 2 <= n <= 15:
            landing = (p + n) & 15
            if landing < 8 and me[landing] and opp[7 - landing]:
                found.append((p, 1, landing))
            landing = (p - n) & 15
            if landing < 8 and me[landing] and opp[7 - landing]:
                found.append((p, -1, landing))
    return found


def has_capture_candidate(
    me: list[int] | tuple[int, ...], opp: list[int] | tuple[int, ...]
) -> bool:
    """Whether ``capture_landings(me, opp)`` is non-empty (cheaper: stops at the first)."""
    for p in range(16):
        n = me[p]
        if 2 <= n <= 15:
            landing = (p + n) & 15
            if landing < 8 and me[landing] and opp[7 - landing]:
                return True
            landing = (p - n) & 15
            if landing < 8 and me[landing] and opp[7 - landing]:
                return True
    return False
