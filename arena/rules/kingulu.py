"""Bao Kingulu (Ngulu two-row Bao) on the 2 x 6 board.

Source: ``docs/rules/bao-kingulu.md`` (sections 1-4, ``#3-a-move``; the decisions
G-1..G-10 in 5) with the shared conventions of ``docs/rules/README.md`` (cited as "rules n"):
board and ring index (5), move tokens (6.2), KPN position notation and its two validity
tiers (7.2, 7.3, A-6), never-ending moves (8, A-2), game limits and result codes (9).

Engine decisions and edge cases (all from the spec unless marked "ours"):

* Ring index ``0..5`` = a1..f1, ``6..11`` = f2..a2; sowing is ``k -> k+1 (mod 12)``; hole ``k``
  faces ``11 - k``. Positions store the 12 counts in ring order.
* Reserved holes (watoto) are sinks (G-1): a seed sown into one goes straight to the owner's
  bank; their own seeds never move. A lap ending in one ends the move (G-2).
* "Empty" and "occupied" are judged before the last seed of the lap (G-8): the last hole now
  holding 1 was empty. A wrap-around lap (12 or more seeds) also sows the emptied start hole
  (G-6), so a lap of exactly 12 seeds ends in its own, empty, start hole.
* Capture by opposition only into an own empty playable hole, never from a reserved or empty
  facing hole (G-3); the seed then stays.
* Kuweka mtoto on any lap: the opponent's unreserved hole that held exactly 3 becomes the
  mover's; the penultimate seed of the lap moves from the hole just before it, unless the lap
  sowed a single seed (G-5) or that hole is reserved (G-4).
* First-lap rule (rule 4): a first lap ending in an own playable occupied hole makes the move
  illegal; ending in an own hole the opponent has reserved is allowed (rule 1 comes first).
* Never-ending moves (6.2): a move whose 10,000th lap would be followed by another lap is
  illegal. Ours: from lap ``_RECORD_FROM`` on, the lap states (counts, next lifted hole, banks;
  reservations cannot change inside a move) are kept in a set and a repeat stops the
  simulation early; the verdict is the same as the 10,000-lap count.
* Counts of any size are sown arithmetically (whole circuits at once), so hostile positions
  with huge counts cost O(12) per lap and every legality question stays bounded. Ours:
  a count is at most ``MAX_DIGITS`` decimal digits; longer numbers are rejected as invalid
  text (Python refuses to convert very long numbers anyway).
* The game ends when the player to move has no legal move; scores are bank + own unreserved
  holes + holes reserved in the opponent's row (G-9). ``repetition``/``ply_cap`` endings are
  scored the same way (6.3). 24-24 is a draw.
"""

from __future__ import annotations

import re
from functools import lru_cache
from operator import itemgetter
from typing import ClassVar

from .base import (
    NORTH,
    PLY_CAP,
    REPETITION,
    SCORE,
    SOUTH,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    Move,
    Outcome,
    Position,
    Variant,
    VariantId,
)
from .kingulu_trace import T_CAPTURE, T_LAP, T_MTOTO, T_RESERVED, build_trace
from .terminations import Termination
from .trace import SowingTrace

#: Laps a move may use before it counts as never-ending (rules 8).
MAX_LAPS = 10_000
#: Longest decimal number accepted in a KPN field (ours: bounds the work a text can cause).
MAX_DIGITS = 18
#: Seeds in play (rules 5).
TOTAL_SEEDS = 48
#: Lap states are recorded from this lap on; shorter moves (all of them in play) allocate nothing.
_RECORD_FROM = 16

# Owner codes of a hole: 0 free, 1 reserved by South (rank 2 only), 2 by North (rank 1 only).
_FREE, _BY_SOUTH, _BY_NORTH = 0, 1, 2
_SUFFIX = {"": _FREE, "s": _BY_SOUTH, "n": _BY_NORTH}
_SUFFIX_OF = ("", "s", "n")

# Results of simulating one move.
_ENDED, _FIRST_LAP, _NEVER_ENDING = 0, 1, 2

# Ring index of the square named by a token, and back.
_FILES = "abcdef"
_RING_OF_SQUARE = {f"{f}1": i for i, f in enumerate(_FILES)} | {
    f"{f}2": 11 - i for i, f in enumerate(_FILES)
}
_SQUARE_OF_RING = tuple(sorted(_RING_OF_SQUARE, key=_RING_OF_SQUARE.__getitem__))
# KPN lists rank 2 a..f (ring 11..6), then rank 1 a..f (ring 0..5).
_TEXT_ORDER = (11, 10, 9, 8, 7, 6, 0, 1, 2, 3, 4, 5)
#: ``KinguluPosition.to_text``: the 12 cells (two ranks of 6), side, banks, ply.
_KPN_FORMAT = ",".join(["%s"] * 6) + "/" + ",".join(["%s"] * 6) + " %s %d:%d %d"
_IN_TEXT_ORDER = itemgetter(*_TEXT_ORDER)

_NUM = r"([0-9]+)"
_CELL = r"([0-9]+)([sn]?)"
_RANK = ",".join([_CELL] * 6)
_KPN_RE = re.compile(rf"{_RANK}/{_RANK} ([SN]) {_NUM}:{_NUM} {_NUM}")
#: Every token ``^[a-f][12]$`` -> its ``Move`` (``parse_move`` is one lookup per ply).
_MOVES = {square: Move(square) for square in _RING_OF_SQUARE}


class KinguluPosition:
    """A Bao Kingulu position (rules 7.2): an immutable, hashable value.

    ``board``: 12 seed counts in ring order (a1..f1, f2..a2). ``owners``: 12 codes in ring
    order, 0 free, 1 reserved by South, 2 reserved by North. ``banks``: ``(south, north)``.
    ``side``: ``"S"``/``"N"``; ``ply``: moves played. The constructor trusts its arguments;
    build positions from text with ``BaoKingulu.parse_position``.
    """

    __slots__ = ("_hash", "banks", "board", "owners", "ply", "side")

    board: tuple[int, ...]
    owners: tuple[int, ...]
    banks: tuple[int, int]
    side: str
    ply: int
    _hash: int  # hash of all fields, computed once: positions are dict keys in every search

    def __init__(
        self,
        board: tuple[int, ...],
        owners: tuple[int, ...],
        banks: tuple[int, int],
        side: str,
        ply: int,
    ) -> None:
        put = object.__setattr__
        put(self, "board", board)
        put(self, "owners", owners)
        put(self, "banks", banks)
        put(self, "side", side)
        put(self, "ply", ply)
        put(self, "_hash", hash((board, owners, banks, side, ply)))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("KinguluPosition is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("KinguluPosition is immutable")

    @property
    def repetition_key(self) -> tuple[object, ...]:
        """Every KPN field except ply (rules 7, 9.1)."""
        return (self.board, self.owners, self.banks, self.side)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, KinguluPosition):
            return NotImplemented
        return (
            self._hash == other._hash
            and self.board == other.board
            and self.owners == other.owners
            and self.banks == other.banks
            and self.side == other.side
            and self.ply == other.ply
        )

    def __hash__(self) -> int:
        return self._hash

    def to_text(self) -> str:
        """Canonical KPN, e.g. ``4,4,4,4,4,4/4,4,4,4,4,4 S 0:0 0``."""
        # One %-format of every field (the referee writes this text for every ply).
        cells: list[int | str] = list(_IN_TEXT_ORDER(self.board))
        if any(self.owners):  # reserved holes (a few at most) get their suffix
            for i, owner in enumerate(_IN_TEXT_ORDER(self.owners)):
                if owner:
                    cells[i] = f"{cells[i]}{_SUFFIX_OF[owner]}"
        return _KPN_FORMAT % (*cells, self.side, self.banks[0], self.banks[1], self.ply)

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return f"KinguluPosition({self.to_text()!r})"

    def count(self, square: str) -> int:
        """Seeds in ``square`` (``"a1"``..``"f2"``); ``KeyError`` for another name."""
        return self.board[_RING_OF_SQUARE[square]]

    def scores(self) -> tuple[int, int]:
        """``(south, north)``: bank + own unreserved holes + holes reserved in the other row.

        Source: G-9.
        """
        south, north = self.banks
        b, o = self.board, self.owners
        for k in range(12):
            owner = o[k]
            if owner == _BY_SOUTH or (owner == _FREE and k < 6):
                south += b[k]
            else:
                north += b[k]
        return south, north


def _sow_move(
    board: list[int],
    owners: list[int],
    banks: list[int],
    mover: int,
    start: int,
    trace: list[tuple[str, int, int, int]] | None = None,
) -> int:
    """Play the move that lifts ring hole ``start`` for ``mover`` (0 South, 1 North), in place.

    Returns ``_ENDED``, ``_FIRST_LAP`` (rule 4) or ``_NEVER_ENDING`` (rules 8); the lists
    are only meaningful after ``_ENDED``. ``trace`` collects the move's events (ring indices):
    ``(T_LAP, lifted hole, seeds, last hole)`` per lap, then at the end ``(T_RESERVED, last,
    0, 0)`` (rule 1), ``(T_CAPTURE, facing hole, seeds taken, last)`` (rule 2) or ``(T_MTOTO,
    last, hole the penultimate seed came from or -1, 0)`` (rule 3); a relay is implied.
    """
    own_lo = 6 * mover
    pos = start
    lap = 0
    seen: set[tuple[object, ...]] | None = None
    while True:
        lap += 1
        if lap > MAX_LAPS:
            return _NEVER_ENDING
        if lap >= _RECORD_FROM:
            # Reservations cannot change during a move (a reservation ends it), so counts,
            # banks and the lifted hole are the whole lap state.
            state = (tuple(board), pos, banks[0], banks[1])
            if seen is None:
                seen = {state}
            elif state in seen:
                return _NEVER_ENDING
            else:
                seen.add(state)
        seeds = board[pos]
        board[pos] = 0
        circuits, rest = divmod(seeds, 12)
        if circuits:
            for k in range(12):
                owner = owners[k]
                if owner:
                    banks[owner - 1] += circuits
                else:
                    board[k] += circuits
        k = pos
        for _ in range(rest):
            k = k + 1 if k < 11 else 0
            owner = owners[k]
            if owner:
                banks[owner - 1] += 1
            else:
                board[k] += 1
        last = (pos + seeds) % 12
        if trace is not None:
            trace.append((T_LAP, pos, seeds, last))
        if owners[last]:  # rule 1 (G-2)
            if trace is not None:
                trace.append((T_RESERVED, last, 0, 0))
            return _ENDED
        now = board[last]
        own = own_lo <= last < own_lo + 6
        if now == 1:  # rule 2: the last hole was empty
            if own:
                facing = 11 - last
                if not owners[facing] and board[facing]:
                    if trace is not None:
                        trace.append((T_CAPTURE, facing, board[facing], last))
                    banks[mover] += board[facing] + 1
                    board[facing] = 0
                    board[last] = 0
            return _ENDED
        if not own and now == 4:  # rule 3: kuweka mtoto
            owners[last] = mover + 1
            moved_from = -1
            if seeds >= 2:
                before = last - 1 if last else 11
                if not owners[before]:  # G-4: a banked seed cannot be taken back
                    board[before] -= 1
                    board[last] += 1
                    moved_from = before
            if trace is not None:
                trace.append((T_MTOTO, last, moved_from, 0))
            return _ENDED
        if own and lap == 1:  # rule 4
            return _FIRST_LAP
        pos = last  # rule 5: relay


@lru_cache(maxsize=8192)
def _successors(position: KinguluPosition) -> dict[str, KinguluPosition]:
    """Legal token -> resulting position, tokens in ASCII order (memoised: positions are values)."""
    mover = 0 if position.side == SOUTH else 1
    lo = 6 * mover
    board0, owners0, banks0 = position.board, position.owners, position.banks
    after_side = NORTH if mover == 0 else SOUTH
    found: dict[str, KinguluPosition] = {}
    for start in range(lo, lo + 6):
        if owners0[start] or not board0[start]:
            continue
        board = list(board0)
        owners = list(owners0)
        banks = list(banks0)
        if _sow_move(board, owners, banks, mover, start) == _ENDED:
            found[_SQUARE_OF_RING[start]] = KinguluPosition(
                tuple(board), tuple(owners), (banks[0], banks[1]), after_side, position.ply + 1
            )
    return {token: found[token] for token in sorted(found)}


def _parse_number(text: str, what: str, source: str) -> int:
    if len(text) > MAX_DIGITS:
        raise InvalidPositionError(f"{what} has more than {MAX_DIGITS} digits in {source!r}")
    return int(text)


class BaoKingulu(Variant):
    """Bao Kingulu (``docs/rules/bao-kingulu.md``): 2 x 6 holes, 48 seeds, kuweka mtoto."""

    id: ClassVar[VariantId] = VariantId.BAO_KINGULU
    aliases: ClassVar[tuple[str, ...]] = ("kingulu", "ngulu")
    name: ClassVar[str] = "Bao Kingulu"
    default_ply_cap: ClassVar[int] = 500

    def initial_position(self) -> KinguluPosition:
        """``4,4,4,4,4,4/4,4,4,4,4,4 S 0:0 0`` (rules 5)."""
        return KinguluPosition((4,) * 12, (0,) * 12, (0, 0), SOUTH, 0)

    def parse_position(self, text: str, *, strict: bool = False) -> KinguluPosition:
        """Parse KPN text (rules 7.2). Surrounding whitespace is ignored and numbers may have
        leading zeros (they are non-negative integers); ``to_text`` gives the canonical form.

        Raises ``InvalidPositionError`` for a first-tier violation (syntax, non-negative integer
        counts and banks, ``s`` only on rank 2 and ``n`` only on rank 1) and, with
        ``strict=True``, for a broken reachable-position invariant (48 seeds, side agrees with
        ply parity, ply 0 only at the start, reserved holes hold 4 or 5).
        """
        if not isinstance(text, str):
            raise InvalidPositionError(f"position text must be a string, not {type(text).__name__}")
        source = text.strip()
        match = _KPN_RE.fullmatch(source)
        if match is None:
            raise InvalidPositionError(
                f"not a KPN position (expected '<a2..f2>/<a1..f1> <S|N> <bankS>:<bankN> <ply>'): "
                f"{text!r}"
            )
        groups = match.groups()
        board = [0] * 12
        owners = [0] * 12
        for i, ring in enumerate(_TEXT_ORDER):
            count, suffix = groups[2 * i], groups[2 * i + 1]
            square = _SQUARE_OF_RING[ring]
            board[ring] = _parse_number(count, f"the count of {square}", source)
            owner = _SUFFIX[suffix]
            if owner == _BY_SOUTH and ring < 6:
                raise InvalidPositionError(f"{square} is on rank 1 and cannot be reserved by South")
            if owner == _BY_NORTH and ring >= 6:
                raise InvalidPositionError(f"{square} is on rank 2 and cannot be reserved by North")
            owners[ring] = owner
        side = groups[24]
        bank_s = _parse_number(groups[25], "South's bank", source)
        bank_n = _parse_number(groups[26], "North's bank", source)
        ply = _parse_number(groups[27], "ply", source)
        position = KinguluPosition(tuple(board), tuple(owners), (bank_s, bank_n), side, ply)
        if strict:
            self._check_reachable(position)
        return position

    def _check_reachable(self, position: KinguluPosition) -> None:
        total = sum(position.board) + sum(position.banks)
        if total != TOTAL_SEEDS:
            raise InvalidPositionError(
                f"{total} seeds on the board and in the banks, not {TOTAL_SEEDS}: {position}"
            )
        if (position.side == SOUTH) != (position.ply % 2 == 0):
            raise InvalidPositionError(f"{position.side} to move at ply {position.ply}: {position}")
        if position.ply == 0 and position != self.initial_position():
            raise InvalidPositionError(f"ply 0 but not the start position: {position}")
        for ring, owner in enumerate(position.owners):
            if owner and position.board[ring] not in (4, 5):
                raise InvalidPositionError(
                    f"reserved hole {_SQUARE_OF_RING[ring]} holds {position.board[ring]} seeds, "
                    f"not 4 or 5: {position}"
                )

    def parse_move(self, token: str) -> Move:
        """A token ``^[a-f][12]$`` (rules 6.2); raises ``InvalidMoveError`` otherwise."""
        move = _MOVES.get(token) if isinstance(token, str) else None
        if move is None:
            raise InvalidMoveError(f"not a Bao Kingulu move (expected a1..f2): {token!r}")
        return move

    def legal_moves(self, position: Position) -> list[Move]:
        """Legal tokens in ASCII order: the mover's playable non-empty holes whose move neither
        breaks the first-lap rule nor never ends (bao-kingulu.md 3). Empty when the game is over.

        Raises ``InvalidPositionError`` if ``position`` is not a ``KinguluPosition``.
        """
        return [Move(token) for token in _successors(_checked(position))]

    def _legal_set(self, position: Position) -> dict[str, KinguluPosition]:
        """The memoised token -> successor dict of ``position`` (``Variant._legal_set``)."""
        return _successors(_checked(position))

    def _apply_legal(self, position: Position, move: Move) -> KinguluPosition:
        return _successors(_checked(position))[move]

    def outcome(self, position: Position) -> Outcome | None:
        """``Outcome(winner, "score", scores=(south, north))`` when the player to move has no
        legal move (bao-kingulu.md 4), else None.

        Raises ``InvalidPositionError`` if ``position`` is not a ``KinguluPosition``.
        """
        checked = _checked(position)
        if _successors(checked):
            return None
        return self._scored(checked, SCORE)

    def limit_outcome(self, position: Position, reason: str) -> Outcome:
        """The scored result when ``repetition`` or ``ply_cap`` ends the game (rules 9.1).

        Raises ``ValueError`` for another reason code.
        """
        if reason not in (REPETITION, PLY_CAP):
            raise ValueError(f"not a game-limit reason: {reason!r}")
        return self._scored(_checked(position), Termination(reason))

    @staticmethod
    def _scored(position: KinguluPosition, reason: Termination) -> Outcome:
        south, north = position.scores()
        winner = SOUTH if south > north else NORTH if north > south else None
        return Outcome(winner, reason, scores=(south, north))

    def trace(self, position: Position, move: Move | str) -> SowingTrace:
        """Every lift, drop (into a hole or, through a reserved hole, a bank), capture and
        kuweka mtoto of the legal ``move`` in order (``arena.rules.trace``), recorded by the
        same code as ``apply``.

        Raises ``InvalidMoveError``, ``IllegalMoveError``, ``InvalidPositionError`` (not a
        ``KinguluPosition``) and ``TraceTooLongError`` (hand-made huge counts only).
        """
        token = self.parse_move(move)
        checked = _checked(position)
        if token not in _successors(checked):
            raise IllegalMoveError(f"{token} is not legal in {checked}")
        events: list[tuple[str, int, int, int]] = []
        mover = 0 if checked.side == SOUTH else 1
        _sow_move(
            list(checked.board),
            list(checked.owners),
            list(checked.banks),
            mover,
            _RING_OF_SQUARE[token],
            events,
        )
        return build_trace(checked, token, events, _SQUARE_OF_RING)

    def laps(self, position: KinguluPosition, move: Move | str) -> list[tuple[str, int, str]]:
        """The laps of a move as ``(lifted square, seeds, last square)``, the notation of the
        worked examples (``c1(4)->f2``), also for an illegal move (diagnostics): stops at the
        end, at a first-lap violation, or when the move is found never-ending. Raises
        ``InvalidMoveError``, or ``IllegalMoveError`` when the square is not a playable
        non-empty hole of the side to move.
        """
        token = self.parse_move(move)
        position = _checked(position)
        start = _RING_OF_SQUARE[token]
        mover = 0 if position.side == SOUTH else 1
        if (
            not (6 * mover <= start < 6 * mover + 6)
            or position.owners[start]
            or not position.board[start]
        ):
            raise IllegalMoveError(f"{token} is not a playable non-empty hole in {position}")
        events: list[tuple[str, int, int, int]] = []
        _sow_move(
            list(position.board), list(position.owners), list(position.banks), mover, start, events
        )
        return [
            (_SQUARE_OF_RING[a], n, _SQUARE_OF_RING[b]) for kind, a, n, b in events if kind == T_LAP
        ]


def _checked(position: object) -> KinguluPosition:
    if not isinstance(position, KinguluPosition):
        raise InvalidPositionError(f"not a Bao Kingulu position: {position!r}")
    return position
