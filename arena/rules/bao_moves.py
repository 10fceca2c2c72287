"""Executing the candidate moves of one Bao position, and the takasia test.

Source: ``docs/rules/bao-la-kete.md`` 4 (candidates of each class, ``#4-legal-moves``),
6.1 (namua capture, namua takata, the nyumba tax; the six-seed kuu through the tax hook),
6.2 (mtaji moves), 6.4 (the front-row rule K-9 at the start pit) and 7 step 4 (takasia,
K-6). The order in which classes are
tried and their fallbacks (K-16) are decided in ``bao.py``; the laps themselves are run by
``bao_sowing.sow_move``.

A raw result is kept for every legal candidate, so that applying the chosen move does not
sow again: ``(code, mover's pits, opponent's pits, mover's house, opponent's house, seeds in
hand, is_takata, captured the priority pit)``, pits in relative order (rules 4.2).
"""

from __future__ import annotations

from collections.abc import Callable

from .bao_sowing import (
    ENDED,
    NEEDS_CHOICE,
    NO_CHOICE,
    SAFARI,
    STOP,
    WON,
    capture_landings,
    has_capture_candidate,
    sow_move,
)
from .base import Move

RawResult = tuple[int, list[int], list[int], bool, bool, int, bool, bool]
#: The signature of ``sow_move`` without its tracing arguments.
Sow = Callable[
    [list[int], list[int], int, int, int, bool, bool, bool, bool, int, int, int],
    tuple[int, bool, bool, int, bool],
]
#: Seeds lifted by the namua tax from a nyumba holding n seeds, and whether it is destroyed.
TaxRule = Callable[[int], tuple[int, bool]]
_LEGAL_CODES = (ENDED, WON)
_CHOICES = (NO_CHOICE, STOP, SAFARI)
_BOTH = (1, -1)


class MoveRunner:
    """Executes candidate moves of one position for ``bao._Bao._generate``; records legal ones."""

    __slots__ = (
        "house_me",
        "house_opp",
        "me",
        "opp",
        "priority",
        "sow",
        "stop",
        "tax_rule",
        "tokens",
    )

    def __init__(
        self,
        tax_rule: TaxRule,
        tokens: tuple[tuple[tuple[Move, Move, Move], ...], ...],
        me: tuple[int, ...],
        opp: tuple[int, ...],
        house_me: bool,
        house_opp: bool,
        stop: int,
        priority: int,
        sow: Sow = sow_move,
    ) -> None:
        self.tax_rule = tax_rule
        self.tokens = tokens
        self.me = me
        self.opp = opp
        self.house_me = house_me
        self.house_opp = house_opp
        self.stop = stop
        self.priority = priority
        #: ``sow_move``, or a wrapper that records a trace (``bao_trace.Recorder``).
        self.sow = sow

    @property
    def house_functional(self) -> bool:
        """The mover's nyumba is owned and holds 6 or more (bao-la-kete.md 2, K-2)."""
        return self.house_me and self.me[4] >= 6

    def namua_capture(
        self, out: dict[Move, RawResult], i: int, d: int, choices: tuple[int, ...] = _CHOICES
    ) -> None:
        """Namua capture at front pit ``i`` entering at the kichwa of direction ``d`` (6.1).

        ``choices``: the nyumba choices to try, in order (a trace runs the one of its token).
        """
        slot = self.tokens[i][0 if d == 1 else 1]
        for choice in choices:
            mine = list(self.me)
            theirs = list(self.opp)
            mine[i] += 1
            code, hm, ho, hand, prio = self.sow(
                mine,
                theirs,
                i,
                0,
                d,
                True,
                True,
                self.house_me,
                self.house_opp,
                choice,
                -1,
                self.priority,
            )
            if code == NEEDS_CHOICE:
                continue  # the token exists only in its completed forms "s" and "c"
            if code in _LEGAL_CODES:
                out[slot[choice]] = (code, mine, theirs, hm, ho, hand, False, prio)
            if choice == NO_CHOICE:
                return

    def namua_takata(
        self, out: dict[Move, RawResult], p: int, directions: tuple[int, ...] = _BOTH
    ) -> None:
        """Namua takata from front pit ``p`` in each of ``directions`` (6.1, not the tax)."""
        for d in directions:
            mine = list(self.me)
            seeds = mine[p] + 1
            mine[p] = 0
            house = self.house_me and p != 4
            self._takata(out, p, d, mine, seeds, house, True)

    def namua_tax(self, out: dict[Move, RawResult], directions: tuple[int, ...] = _BOTH) -> None:
        """The nyumba tax in each of ``directions`` (6.1; Bao la Kete D1 via ``tax_rule``)."""
        lifted, destroyed = self.tax_rule(self.me[4])
        for d in directions:
            mine = list(self.me)
            mine[4] += 1 - lifted
            self._takata(out, 4, d, mine, lifted, self.house_me and not destroyed, True)

    def mtaji_move(self, out: dict[Move, RawResult], p: int, d: int, capture: bool) -> None:
        """Mtaji move from pit ``p`` in direction ``d`` (6.2)."""
        mine = list(self.me)
        seeds = mine[p]
        mine[p] = 0
        house = self.house_me and p != 4
        if capture:
            theirs = list(self.opp)
            code, hm, ho, hand, prio = self.sow(
                mine,
                theirs,
                (p + d) & 15,
                seeds,
                d,
                True,
                False,
                house,
                self.house_opp,
                NO_CHOICE,
                -1,
                self.priority,
            )
            if code in _LEGAL_CODES:
                out[self.tokens[p][0 if d == 1 else 1][0]] = (
                    code,
                    mine,
                    theirs,
                    hm,
                    ho,
                    hand,
                    False,
                    prio,
                )
        else:
            self._takata(out, p, d, mine, seeds, house, False)

    def _takata(
        self,
        out: dict[Move, RawResult],
        p: int,
        d: int,
        mine: list[int],
        seeds: int,
        house: bool,
        namua: bool,
    ) -> None:
        # K-9: lifting the last occupied front pit and sowing out of the front row.
        if ((p == 7 and d == 1) or (p == 0 and d == -1)) and not any(mine[:8]):
            return
        theirs = list(self.opp)  # a takata never changes it, but the result owns its lists
        code, hm, ho, _, _ = self.sow(
            mine,
            theirs,
            (p + d) & 15,
            seeds,
            d,
            False,
            namua,
            house,
            self.house_opp,
            NO_CHOICE,
            self.stop,
            -1,
        )
        if code == ENDED:
            out[self.tokens[p][0 if d == 1 else 1][0]] = (
                code,
                mine,
                theirs,
                hm,
                ho,
                0,
                True,
                False,
            )


def takasia_target(mine: list[int], theirs: list[int], house_theirs: bool) -> int:
    """The opponent pit marked after a takata (bao-la-kete.md 7 step 4, K-6), or -1.

    ``mine``/``theirs``: the mover's and the opponent's pits after the move (relative).
    """
    if has_capture_candidate(theirs, mine):
        return -1
    targets = {7 - landing for _, _, landing in capture_landings(mine, theirs)}
    if len(targets) != 1:
        return -1
    (target,) = targets
    front = theirs[:8]
    if target == 4 and house_theirs and theirs[4] >= 6:
        return -1
    if sum(1 for seeds in front if seeds) == 1:
        return -1
    if theirs[target] >= 2 and sum(1 for seeds in front if seeds >= 2) == 1:
        return -1
    return target
