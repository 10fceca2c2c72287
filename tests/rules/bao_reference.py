"""A plain, slow reference of Bao la Kiswahili / Bao la Kete move generation and execution.

Written for the review tests straight from the rule text (``docs/rules/bao-la-kete.md`` 4-7,
and ``docs/rules/bao-la-kiswahili.md`` 2 for what Zanzibar Bao does differently), without
the engine's shortcuts: seeds are dropped one at a time, the front-row rule K-9 is checked
after every drop, never-ending moves are found by the 10,000-lap bound alone (no lap-state
set), and the takasia test re-derives every capture candidate. It shares no code with
``arena/rules/bao*.py`` except the ``BaoPosition`` value it returns, so that results compare
with ``==``.

Pits are relative ring indices (README 2.2), the mover's as ``me`` and the opponent's as
``opp``. Decisions the spec leaves to the engine are copied from ``arena/rules/bao.py``'s
docstring: a takasia'd kuu does not start the D2 step, and a Kete mark against the mover is
carried over after any reply that did not win at once.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.rules.bao_board import BaoPosition

MAX_LAPS = 10_000
_FILES = "abcdefgh"


def square(owner: int, index: int) -> str:
    """README 2.2 table: relative pit ``index`` of ``owner`` (0 South, 1 North) as a square."""
    if owner == 0:
        return f"{_FILES[index]}2" if index < 8 else f"{_FILES[15 - index]}1"
    return f"{_FILES[7 - index]}3" if index < 8 else f"{_FILES[index - 8]}4"


@dataclass
class Side:
    """The position seen by the mover."""

    owner: int
    me: list[int]
    opp: list[int]
    house_me: bool
    house_opp: bool
    namua: bool  # the mover's reserve is positive (2, stage of a move)
    stop: int  # the mover's takasia'd pit, or -1
    priority: int  # the opponent's pit under the Kete hizi zetu priority, or -1
    kete: bool


@dataclass
class Done:
    """A legal move's result (pits mutated copies)."""

    code: str  # "end" or "won"
    me: list[int]
    opp: list[int]
    house_me: bool
    house_opp: bool
    hand: int
    took_priority: bool
    takata: bool


def _sow(
    me: list[int],
    opp: list[int],
    house_me: bool,
    house_opp: bool,
    lap: tuple[int, int] | None,
    last: int,
    d: int,
    capture: bool,
    namua: bool,
    choice: str | None,
    stop: int,
    priority: int,
) -> tuple[str, bool, bool, int, bool]:
    """6.3 lap-end loop. ``lap``: (first pit, seeds) of the first lap, or None to start at the
    lap end in ``last`` (the first namua capture). Returns (code, houses, hand, priority)."""
    took = False
    laps = 0
    while True:
        if lap is not None:
            pos, n = lap
            laps += 1
            if laps > MAX_LAPS:
                return "never", house_me, house_opp, 0, took
            for _ in range(n):
                me[pos] += 1
                last = pos
                if not capture and not any(me[:8]):
                    return "k9", house_me, house_opp, 0, took
                pos = (pos + d) % 16
        if me[last] == 1:
            return "end", house_me, house_opp, 0, took
        target = 7 - last
        if capture and last < 8 and opp[target] > 0:
            taken, opp[target] = opp[target], 0
            house_opp = house_opp and target != 4
            took = took or target == priority
            if not any(opp[:8]):
                return "won", house_me, house_opp, taken, took
            if last < 2:
                d = 1
            elif last > 5:
                d = -1
            lap = (0 if d == 1 else 7, taken)
            continue
        if namua and last == 4 and house_me and me[4] >= 6:
            if not capture or choice == "s":
                return "end", house_me, house_opp, 0, took
            if choice is None:
                return "choice", house_me, house_opp, 0, took
        if not capture and last == stop:
            return "end", house_me, house_opp, 0, took
        n, me[last] = me[last], 0
        house_me = house_me and last != 4
        lap = ((last + d) % 16, n)


def _run(side: Side, kind: str, p: int, d: int, choice: str | None) -> Done | str:
    """Execute one candidate (6.1, 6.2); a ``Done`` or the reason it is not legal/complete."""
    me, opp = list(side.me), list(side.opp)
    house = side.house_me
    capture = kind in ("namua capture", "mtaji capture")
    lap: tuple[int, int] | None = None
    if kind == "namua capture":
        me[p] += 1
    elif kind == "tax":
        lifted = 7 if side.kete and me[4] == 6 else 2  # Bao la Kete D1
        house = house and lifted == 2
        me[4] += 1 - lifted
        lap = ((4 + d) % 16, lifted)
    else:
        if kind == "namua takata":
            me[p] += 1
        n, me[p] = me[p], 0
        house = house and p != 4
        lap = ((p + d) % 16, n)
        if not capture and not any(me[:8]) and lap[0] >= 8:
            return "k9"  # the lifted start pit held the last front seeds
    code, house_me, house_opp, hand, took = _sow(
        me,
        opp,
        house,
        side.house_opp,
        lap,
        p,
        d,
        capture,
        kind in ("namua capture", "namua takata", "tax"),
        choice,
        -1 if capture else side.stop,
        side.priority if capture else -1,
    )
    if code in ("end", "won"):
        return Done(code, me, opp, house_me, house_opp, hand, took, not capture)
    return code


def legal(side: Side) -> dict[str, Done]:
    """Token -> result for every legal move (bao-la-kiswahili.md 4, bao-la-kete.md D2, D3)."""
    me, opp = side.me, side.opp
    out: dict[str, Done] = {}
    if not any(me[:8]) or not any(opp[:8]):
        return out

    def add(kind: str, p: int, d: int) -> None:
        token = square(side.owner, p) + ("+" if d == 1 else "-")
        result = _run(side, kind, p, d, None)
        if result == "choice":
            for choice in "sc":
                completed = _run(side, kind, p, d, choice)
                if isinstance(completed, Done):
                    out[token + choice] = completed
        elif isinstance(result, Done):
            out[token] = result

    def prioritised() -> dict[str, Done]:
        chosen = {t: r for t, r in out.items() if r.took_priority}
        return chosen if side.priority >= 0 and chosen else out

    if side.namua:
        for i in range(8):
            if me[i] >= 1 and opp[7 - i] >= 1:
                for d in (1,) if i < 2 else (-1,) if i > 5 else (1, -1):
                    add("namua capture", i, d)
        if out:
            return prioritised()
        if side.house_me and me[4] >= 6:
            for i in range(8):
                if i != 4 and me[i] >= 1:
                    add("namua takata", i, 1)
                    add("namua takata", i, -1)
            if not out:
                add("tax", 4, 1)
                add("tax", 4, -1)
            return out
        for wanted in (lambda s: s >= 2, lambda s: s == 1):
            for i in range(8):
                if wanted(me[i]):
                    add("namua takata", i, 1)
                    add("namua takata", i, -1)
            if out:
                break
        return out
    for p in range(16):
        for d in (1, -1):
            if 2 <= me[p] <= 15:
                landing = (p + d * me[p]) % 16
                if landing < 8 and me[landing] >= 1 and opp[7 - landing] >= 1:
                    add("mtaji capture", p, d)
    if out:
        return prioritised()
    classes = [range(8), range(8, 16)]
    if side.kete and side.house_me and side.stop != 4:
        classes.insert(0, range(4, 5))
    for pits in classes:
        for p in pits:
            if me[p] >= 2 and p != side.stop:
                add("mtaji takata", p, 1)
                add("mtaji takata", p, -1)
        if out:
            break
    return out


def _capture_landings(me: list[int], opp: list[int]) -> set[int]:
    found = set()
    for p in range(16):
        for d in (1, -1):
            if 2 <= me[p] <= 15:
                landing = (p + d * me[p]) % 16
                if landing < 8 and me[landing] >= 1 and opp[7 - landing] >= 1:
                    found.add(landing)
    return found


def takasia(me: list[int], opp: list[int], house_opp: bool) -> int:
    """bao-la-kiswahili.md 7 step 4 with K-6: the opponent pit marked, or -1."""
    if _capture_landings(opp, me):
        return -1
    targets = {7 - landing for landing in _capture_landings(me, opp)}
    if len(targets) != 1:
        return -1
    (target,) = targets
    if target == 4 and house_opp and opp[4] >= 6:
        return -1
    if sum(1 for seeds in opp[:8] if seeds) == 1:
        return -1
    if opp[target] >= 2 and sum(1 for seeds in opp[:8] if seeds >= 2) == 1:
        return -1
    return target


def side_of(position: BaoPosition, kete: bool) -> Side:
    owner = 0 if position.side == "S" else 1
    mark = position.mark
    mine = mark >= 0 and mark >> 4 == owner
    return Side(
        owner,
        list(position.pits[owner]),
        list(position.pits[1 - owner]),
        position.houses[owner],
        position.houses[1 - owner],
        position.reserves[owner] > 0,
        mark & 15 if mine else -1,
        mark & 15 if mark >= 0 and not mine else -1,
        kete,
    )


def after(position: BaoPosition, kete: bool, done: Done) -> BaoPosition:
    """The position after a legal move (bao-la-kiswahili.md 7, bao-la-kete.md D3)."""
    side = side_of(position, kete)
    owner = side.owner
    reserves = list(position.reserves)
    if side.namua:
        reserves[owner] -= 1
    mark = -1
    if done.code != "won":
        if kete and side.stop >= 0:
            mark = position.mark
        if done.takata and not side.namua and reserves == [0, 0]:
            target = takasia(done.me, done.opp, done.house_opp)
            if target >= 0:
                mark = (1 - owner) * 16 + target
    pits = [tuple(done.me), tuple(done.opp)]
    houses = [done.house_me, done.house_opp]
    if owner == 1:
        pits.reverse()
        houses.reverse()
    return BaoPosition(
        (pits[0], pits[1]),
        "N" if owner == 0 else "S",
        (reserves[0], reserves[1]),
        (houses[0], houses[1]),
        mark,
        position.ply + 1,
    )
