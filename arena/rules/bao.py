"""Bao la Kiswahili and Bao la Kete: move generation, move execution, takasia and results.

Sources: ``docs/rules/bao-la-kete.md`` (the whole 4 x 8 game, as Bao la Kete plays it)
sections 4 (legal move classes and their fallbacks, ``#4-legal-moves``), 6.1-6.2 (executing
namua and mtaji moves, the nyumba tax and the six-seed kuu), 7 (after the move: bao hamna,
takasia, the hizi zetu priority, ``#7-after-the-move``), 8 (the end) and 9 (the decisions
K-1..K-16, L-1..L-4); ``docs/rules/bao-la-kiswahili.md`` 2 and 3 (what Zanzibar Bao does
differently: the hooks of ``BaoLaKiswahili``); ``docs/rules/README.md`` (cited as "rules n")
7.3 (validity tiers), 8 (never-ending moves, via ``bao_sowing``; A-2, A-3) and 9 (results,
the win in the middle of a move, A-5). The lap mechanics live in ``bao_sowing``, the
notation in ``bao_board``.

Every candidate token is executed once when the legal move list is built (rules 6);
the raw results are kept in a one-entry cache per variant, so ``apply`` of a legal move
finishes that result (reserves, takasia, side, ply) without sowing again.

Edge-case decisions (beyond the spec's own):

* ``outcome``: a position with an empty front row is a ``bao_hamna`` loss for its owner; if
  both front rows are empty (only in hand-made positions) the player to move loses, with no
  seeds in hand. Otherwise the seeds in the winner's hand are derived from the position as
  ``64 - seeds`` when the winner is the player who just moved (rules 9.2: the only position
  with fewer than 64 seeds), else 0.
* A takasia'd pit may not start a takata in the mtaji stage, the Kete kuu-first step D2 included
  (the kuu can never be marked in play; a hand-made position marking it loses the step).
* Bao la Kete hizi zetu priority is applied whenever the mark stands on the opponent's pit,
  in either stage (in play it exists only in mtaji); a takasia'd player's mark is carried
  over to the marking player's move after any reply that did not win at once.
"""

from __future__ import annotations

from typing import ClassVar

from .bao_board import (
    NO_MARK,
    SQUARE_INDEX,
    SQUARES,
    START_TEXT,
    TOKEN,
    TOTAL_SEEDS,
    BaoPosition,
    expected_reserves,
    mark_square,
    parse_bpn,
    parse_token,
)
from .bao_moves import MoveRunner, RawResult, Sow, takasia_target
from .bao_sowing import (
    NO_CHOICE,
    SAFARI,
    STOP,
    WON,
    capture_landings,
    has_capture_candidate,
    sow_move,
)
from .bao_trace import Recorder, build_trace
from .base import (
    BAO_HAMNA,
    NO_LEGAL_MOVE,
    NORTH,
    PLY_CAP,
    REPETITION,
    SOUTH,
    IllegalMoveError,
    InvalidPositionError,
    Move,
    Outcome,
    Position,
    Variant,
    VariantId,
)
from .terminations import Termination
from .trace import SowingTrace

#: Token suffix -> the nyumba choice of a namua capture (rules 6.1).
_CHOICE_OF_SUFFIX = {"": NO_CHOICE, "s": STOP, "c": SAFARI}


class _Bao(Variant):
    """What Bao la Kiswahili and Bao la Kete share (L-1: every Kiswahili rule applies to Kete
    unless a D-rule overrides it). Subclasses supply the differences as small hooks."""

    default_ply_cap = 1000
    #: rules 7.3 (validity): seeds an owned nyumba holds at least.
    min_house_seeds: ClassVar[int]
    #: rules 7.3 (validity): may the mark stand on the pit of the player not to move?
    foreign_mark_allowed: ClassVar[bool]

    def __init__(self) -> None:
        # One-entry cache: (position, sorted moves, token -> raw result). Replaced as a whole
        # in one assignment, so concurrent readers always see a consistent triple.
        self._cache: tuple[BaoPosition, list[Move], dict[Move, RawResult]] | None = None
        self._start = self.parse_position(START_TEXT)

    # ------------------------------------------------------------------ notation

    def initial_position(self) -> BaoPosition:
        """The start position of rules 4.3 (both Bao games)."""
        return self._start

    def parse_move(self, token: str) -> Move:
        """Check ``^[a-h][1-4][+-][sc]?$`` (rules 6.1); raises ``InvalidMoveError``."""
        return parse_token(token)

    def parse_position(self, text: str, *, strict: bool = False) -> BaoPosition:
        """Parse BPN (rules 7.1).

        Raises ``InvalidPositionError`` if a rule for every text (1-4) is broken, and with
        ``strict=True`` also if an invariant of reachable positions is broken (seed total,
        side/ply parity, reserves per ply, ply 0 only at the start, where a mark can stand).
        """
        position = parse_bpn(
            text,
            min_house_seeds=self.min_house_seeds,
            foreign_mark_allowed=self.foreign_mark_allowed,
        )
        if strict:
            self._check_reachable(position)
        return position

    def _check_reachable(self, position: BaoPosition) -> None:
        """rules 7.3, invariants of reachable positions; raises ``InvalidPositionError``."""
        side_index = 0 if position.side == SOUTH else 1
        seeds = position.seeds
        if seeds != TOTAL_SEEDS and not (
            seeds < TOTAL_SEEDS and position.front_row_empty(side_index)
        ):
            raise InvalidPositionError(
                f"the position holds {seeds} seeds, not {TOTAL_SEEDS} (fewer only after a win"
                " in the middle of a move, when the loser to move has an empty front row)"
            )
        if (position.ply % 2 == 0) != (position.side == SOUTH):
            raise InvalidPositionError(
                f"side {position.side} cannot be to move at ply {position.ply} (South moves at"
                " even plies)"
            )
        want = expected_reserves(position.ply)
        if position.reserves != want:
            raise InvalidPositionError(
                f"reserves {position.reserves[0]}:{position.reserves[1]} do not follow ply"
                f" {position.ply} (expected {want[0]}:{want[1]})"
            )
        if position.ply == 0 and position.repetition_key != self._start.repetition_key:
            raise InvalidPositionError("ply 0 is only the start position")
        mark = position.mark
        if mark < 0:
            return
        owner, index = mark >> 4, mark & 15
        pits = position.pits[owner]
        square = mark_square(mark)
        if position.stage != "m":
            raise InvalidPositionError(f"a mark ({square}) exists only in the mtaji stage")
        if pits[index] == 0:
            raise InvalidPositionError(f"the marked pit {square} is empty")
        if index == 4 and position.houses[owner] and pits[4] >= 6:
            raise InvalidPositionError(f"the marked pit {square} is a functional nyumba")
        me = position.pits[side_index]
        opp = position.pits[1 - side_index]
        if owner == side_index:
            if has_capture_candidate(me, opp):
                raise InvalidPositionError(
                    f"takasia mark {square}, but the side to move has a capture candidate"
                )
        elif not any(7 - landing == index for _, _, landing in capture_landings(me, opp)):
            raise InvalidPositionError(
                f"priority mark {square}, but no capture candidate of the side to move"
                " ends its first lap facing it"
            )

    # ------------------------------------------------------------------ legal moves

    def legal_moves(self, position: Position) -> list[Move]:
        """Every legal token in ``position``, sorted (rules 6); empty if the game is over.

        Raises ``InvalidPositionError`` if ``position`` is not a ``BaoPosition``.
        """
        return list(self._legal(position)[1])

    def _legal_set(self, position: Position) -> dict[Move, RawResult]:
        """The cached token -> raw result dict of ``position`` (``Variant._legal_set``)."""
        return self._legal(position)[2]

    def _legal(self, position: Position) -> tuple[BaoPosition, list[Move], dict[Move, RawResult]]:
        """``(position, sorted legal moves, raw results)``; the first item is ``position`` itself,
        typed as a ``BaoPosition`` (callers use it to skip a second type check).

        Raises ``InvalidPositionError`` if ``position`` is not a ``BaoPosition``.
        """
        cache = self._cache
        if cache is not None and cache[0] is position:
            return cache
        if not isinstance(position, BaoPosition):
            raise InvalidPositionError(f"not a Bao position: {position!r}")
        results = self._generate(position)
        cache = (position, sorted(results), results)
        self._cache = cache
        return cache

    def _generate(self, position: BaoPosition) -> dict[Move, RawResult]:
        """bao-la-kete.md 4: the first class of moves that has a legal move."""
        si = 0 if position.side == SOUTH else 1
        me = position.pits[si]
        opp = position.pits[1 - si]
        if not any(me[:8]) or not any(opp[:8]):
            return {}  # bao hamna: the game is over
        ctx = self._runner(position, si, me, opp)
        if position.reserves[si] > 0:
            return self._namua_moves(ctx)
        return self._mtaji_moves(ctx)

    def _runner(
        self,
        position: BaoPosition,
        si: int,
        me: tuple[int, ...],
        opp: tuple[int, ...],
        sow: Sow = sow_move,
    ) -> MoveRunner:
        """The ``MoveRunner`` of ``position`` for the mover ``si`` (0 South, 1 North), whose
        pits are ``me`` and the opponent's ``opp``; ``sow`` plays the laps."""
        mark = position.mark
        stop = mark & 15 if mark >= 0 and mark >> 4 == si else -1
        priority = mark & 15 if mark >= 0 and mark >> 4 != si else -1
        return MoveRunner(
            self._tax_lift,
            TOKEN[si],
            me,
            opp,
            position.houses[si],
            position.houses[1 - si],
            stop,
            priority,
            sow,
        )

    def _namua_moves(self, ctx: MoveRunner) -> dict[Move, RawResult]:
        me, opp = ctx.me, ctx.opp
        out: dict[Move, RawResult] = {}
        # 4.1 capture moves: kimbi pits have their forced kichwa only (K-13).
        for i in range(8):
            if me[i] and opp[7 - i]:
                if i < 2:
                    ctx.namua_capture(out, i, 1)
                elif i > 5:
                    ctx.namua_capture(out, i, -1)
                else:
                    ctx.namua_capture(out, i, 1)
                    ctx.namua_capture(out, i, -1)
        if out:
            return self._prioritised(out)
        # 4.1 takata moves with their fallbacks (K-16).
        if ctx.house_functional:
            for i in range(8):
                if i != 4 and me[i]:
                    ctx.namua_takata(out, i)
            if not out:
                ctx.namua_tax(out)
            return out
        for i in range(8):
            if me[i] >= 2:
                ctx.namua_takata(out, i)
        if not out:
            for i in range(8):
                if me[i] == 1:
                    ctx.namua_takata(out, i)
        return out

    def _mtaji_moves(self, ctx: MoveRunner) -> dict[Move, RawResult]:
        me = ctx.me
        out: dict[Move, RawResult] = {}
        for p, d, _ in capture_landings(me, ctx.opp):
            ctx.mtaji_move(out, p, d, True)
        if out:
            return self._prioritised(out)
        if self._house_first(ctx, out):
            return out
        # 4.2 takata step 1: front pits (K-11), never the takasia'd pit.
        for p in range(8):
            if me[p] >= 2 and p != ctx.stop:
                ctx.mtaji_move(out, p, 1, False)
                ctx.mtaji_move(out, p, -1, False)
        if out:
            return out
        # Step 2: back pits only when no front takata is legal.
        for p in range(8, 16):
            if me[p] >= 2:
                ctx.mtaji_move(out, p, 1, False)
                ctx.mtaji_move(out, p, -1, False)
        return out

    # Hooks for the Bao la Kete differences (D1-D3); Bao la Kiswahili behaviour by default.

    def _tax_lift(self, house_seeds: int) -> tuple[int, bool]:
        """Seeds lifted by the namua tax from a nyumba holding ``house_seeds`` before the
        reserve seed, and whether the nyumba is destroyed (bao-la-kete.md 6.1: 2, no)."""
        return 2, False

    def _house_first(self, ctx: MoveRunner, out: dict[Move, RawResult]) -> bool:
        """Bao la Kete D2 (bao-la-kete.md 4.2 step 2); Bao la Kiswahili has none (K-1)."""
        return False

    def _prioritised(self, captures: dict[Move, RawResult]) -> dict[Move, RawResult]:
        """Bao la Kete D3 capture priority; Bao la Kiswahili keeps every capture (K-8)."""
        return captures

    def _carried_mark(self, position: BaoPosition, side_index: int) -> int:
        """The mark left after the mover's move before takasia is judged (section 7 step 3:
        Bao la Kiswahili clears it)."""
        return NO_MARK

    # ------------------------------------------------------------------ applying moves

    def _apply_legal(self, position: Position, move: Move) -> BaoPosition:
        """The position after the legal ``move`` (bao-la-kete.md 7 steps 1-5).

        Raises ``IllegalMoveError`` if ``move`` is not legal in ``position``, and
        ``InvalidPositionError`` if ``position`` is not a ``BaoPosition``.
        """
        position, _, results = self._legal(position)  # the same object, typed BaoPosition
        raw = results.get(move)
        if raw is None:
            raise IllegalMoveError(f"{move} is not legal in {position.to_text()}")
        code, mine, theirs, house_me, house_opp, _, takata, _ = raw
        si = 0 if position.side == SOUTH else 1
        res_s, res_n = position.reserves
        namua = (res_s if si == 0 else res_n) > 0
        if namua:
            if si == 0:
                res_s -= 1
            else:
                res_n -= 1
        mark = NO_MARK
        if code != WON:  # the final position of a win mid-move carries no mark
            mark = self._carried_mark(position, si)
            # 7 step 4 / K-7: takasia only after a mtaji takata that leaves both reserves 0.
            if takata and not namua and res_s == 0 and res_n == 0:
                target = takasia_target(mine, theirs, house_opp)
                if target >= 0:
                    mark = (1 - si) * 16 + target
        if si == 0:
            pits = (tuple(mine), tuple(theirs))
            houses = (house_me, house_opp)
            side = NORTH
        else:
            pits = (tuple(theirs), tuple(mine))
            houses = (house_opp, house_me)
            side = SOUTH
        return BaoPosition(pits, side, (res_s, res_n), houses, mark, position.ply + 1)

    # ------------------------------------------------------------------ traces

    def trace(self, position: Position, move: Move | str) -> SowingTrace:
        """Every lift, drop, capture, kichwa and nyumba rule of the legal ``move`` in order
        (``arena.rules.trace``). The move is played again by the same code as ``apply``,
        recording its events; ``apply`` itself records nothing.

        Raises ``InvalidMoveError``, ``IllegalMoveError``, ``InvalidPositionError`` (not a
        ``BaoPosition``) and ``TraceTooLongError`` (hand-made huge counts only).
        """
        token = self.parse_move(move)
        position, _, results = self._legal(position)
        raw = results.get(token)
        if raw is None:
            raise IllegalMoveError(f"{token} is not legal in {position.to_text()}")
        si = 0 if position.side == SOUTH else 1
        recorder = Recorder()
        ctx = self._runner(position, si, position.pits[si], position.pits[1 - si], recorder)
        _, pit = SQUARE_INDEX[token[:2]]
        d = 1 if token[2] == "+" else -1
        out: dict[Move, RawResult] = {}
        takata = raw[6]
        tax = False
        if position.reserves[si] == 0:
            ctx.mtaji_move(out, pit, d, not takata)
        elif not takata:
            ctx.namua_capture(out, pit, d, (_CHOICE_OF_SUFFIX[token[3:]],))
        elif pit == 4 and ctx.house_functional:  # 6.1: the tax, the only takata from it
            tax = True
            ctx.namua_tax(out, (d,))
        else:
            ctx.namua_takata(out, pit, (d,))
        return build_trace(position, token, pit, tax, recorder.events)

    # ------------------------------------------------------------------ results

    def outcome(self, position: Position) -> Outcome | None:
        """``bao_hamna`` if a front row is empty (its owner loses), ``no_legal_move`` if the
        player to move has none (he loses), else None (bao-la-kete.md 8, rules 9).

        Raises ``InvalidPositionError`` if ``position`` is not a ``BaoPosition``.
        """
        if not isinstance(position, BaoPosition):
            raise InvalidPositionError(f"not a Bao position: {position!r}")
        to_move = 0 if position.side == SOUTH else 1
        empty_mover = position.front_row_empty(to_move)
        empty_other = position.front_row_empty(1 - to_move)
        if empty_mover and empty_other:
            return Outcome(SQUARE_SIDES[1 - to_move], BAO_HAMNA)  # hand-made positions only
        if empty_mover:
            # The player who just moved won; a win mid-move keeps seeds in his hand.
            hand = max(0, TOTAL_SEEDS - position.seeds)
            return Outcome(SQUARE_SIDES[1 - to_move], BAO_HAMNA, seeds_in_hand=hand)
        if empty_other:
            return Outcome(SQUARE_SIDES[to_move], BAO_HAMNA)
        if not self._legal(position)[1]:
            return Outcome(SQUARE_SIDES[1 - to_move], NO_LEGAL_MOVE)
        return None

    def limit_outcome(self, position: Position, reason: str) -> Outcome:
        """A draw with ``reason`` (``repetition`` or ``ply_cap``, rules 9.1).

        Raises ``ValueError`` for another reason code.
        """
        if reason not in (REPETITION, PLY_CAP):
            raise ValueError(f"not a game-limit reason: {reason!r}")
        return Outcome(None, Termination(reason))


SQUARE_SIDES = (SOUTH, NORTH)


class BaoLaKiswahili(_Bao):
    """Bao la Kiswahili (Zanzibar Bao), ``docs/rules/bao-la-kiswahili.md``."""

    id = VariantId.BAO_LA_KISWAHILI
    aliases = ("kiswahili", "zanzibar")
    name = "Bao la Kiswahili"
    min_house_seeds = 5
    foreign_mark_allowed = False


class BaoLaKete(_Bao):
    """Bao la Kete (Lamu Bao), ``docs/rules/bao-la-kete.md``: Kiswahili plus three rules."""

    id = VariantId.BAO_LA_KETE
    aliases = ("kete", "lamu")
    name = "Bao la Kete"
    min_house_seeds = 6
    foreign_mark_allowed = True

    def _tax_lift(self, house_seeds: int) -> tuple[int, bool]:
        # D1: a kuu holding exactly 6 before the reserve seed is emptied (all 7) and destroyed.
        if house_seeds == 6:
            return 7, True
        return 2, False

    def _house_first(self, ctx: MoveRunner, out: dict[Move, RawResult]) -> bool:
        # D2 (4.2 step 2): while the kuu is owned, a legal takata from it takes precedence.
        if ctx.house_me and ctx.stop != 4:
            ctx.mtaji_move(out, 4, 1, False)
            ctx.mtaji_move(out, 4, -1, False)
        return bool(out)

    def _prioritised(self, captures: dict[Move, RawResult]) -> dict[Move, RawResult]:
        # D3 / L-4: captures that take the marked pit somewhere in the move, if any do.
        chosen = {move: raw for move, raw in captures.items() if raw[7]}
        return chosen or captures

    def _carried_mark(self, position: BaoPosition, side_index: int) -> int:
        # D3: a mark against the mover survives his move, now as the marking player's priority.
        mark = position.mark
        if mark >= 0 and mark >> 4 == side_index:
            return mark
        return NO_MARK


__all__ = ["SQUARES", "BaoLaKete", "BaoLaKiswahili", "BaoPosition", "takasia_target"]
