"""The 4 x 8 Bao board: squares, relative ring indices, move tokens and the BPN position value.

Source: ``docs/rules/README.md`` (cited as "rules n") 4 (squares, ring index, start:
``#4-the-4-x-8-board``), 6.1 (move tokens), 7.1 and 7.3 (BPN and its two validity tiers:
``#7-position-notation``) and 9.2 (the final position of a game won in the middle of a
move). Shared by Bao la Kiswahili and Bao la Kete; the rules that
differ between the two (the nyumba threshold of validity rule 4, where a mark may stand) are
parameters of ``parse_bpn`` supplied by the variant classes in ``bao.py``.

Representation: each player's 16 pits are a tuple in *relative* ring order (rules 4.2:
``0..7`` front row from the owner's left, ``8..15`` back row from his right), so the sowing
code never needs to know whose pits it sows. A mark is one int: ``owner * 16 + index`` with
owner 0 = South, 1 = North, or ``NO_MARK``.

Edge-case decisions:

* Fields may be separated by any run of whitespace; the canonical text uses single spaces.
* A seed count or reserve with more than ``MAX_DIGITS`` digits is rejected as an
  ``InvalidPositionError`` (a service guard against absurd input, no game comes near it).
  Any smaller count is accepted: sowing handles large counts arithmetically.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from .base import NORTH, SOUTH, InvalidMoveError, InvalidPositionError, Move

NO_MARK = -1
#: Longest decimal number accepted in a BPN count field.
MAX_DIGITS = 9
#: Seeds in a full game (rules 4.3): 32 per player.
TOTAL_SEEDS = 64
START_RESERVE = 22
SIDES = (SOUTH, NORTH)
FILES = "abcdefgh"


def _square(owner: int, index: int) -> str:
    """Square name of relative pit ``index`` (0..15) of ``owner`` (0 South, 1 North), rules 4.2."""
    if owner == 0:
        return f"{FILES[index]}2" if index < 8 else f"{FILES[15 - index]}1"
    return f"{FILES[7 - index]}3" if index < 8 else f"{FILES[index - 8]}4"


#: SQUARES[owner][index] -> square name.
SQUARES: tuple[tuple[str, ...], tuple[str, ...]] = (
    tuple(_square(0, i) for i in range(16)),
    tuple(_square(1, i) for i in range(16)),
)
#: square name -> (owner, relative index).
SQUARE_INDEX: dict[str, tuple[int, int]] = {
    SQUARES[o][i]: (o, i) for o in (0, 1) for i in range(16)
}

#: Every syntactically valid token (rules 6.1 regex ``^[a-h][1-4][+-][sc]?$``) -> its Move.
_TOKENS: dict[str, Move] = {
    f"{f}{r}{d}{c}": Move(f"{f}{r}{d}{c}")
    for f in FILES
    for r in "1234"
    for d in "+-"
    for c in ("", "s", "c")
}
#: TOKEN[owner][index][dir_slot][choice_slot]: dir_slot 0 = "+", 1 = "-"; choice 0 none, 1 s, 2 c.
TOKEN: tuple[tuple[tuple[tuple[Move, Move, Move], ...], ...], ...] = tuple(
    tuple(
        tuple(
            (
                _TOKENS[SQUARES[o][i] + d],
                _TOKENS[SQUARES[o][i] + d + "s"],
                _TOKENS[SQUARES[o][i] + d + "c"],
            )
            for d in "+-"
        )
        for i in range(16)
    )
    for o in (0, 1)
)


def parse_token(token: object) -> Move:
    """The ``Move`` for a token string matching ``^[a-h][1-4][+-][sc]?$`` exactly (rules 6.1).

    Raises ``InvalidMoveError`` for anything else (wrong type, case, spacing, trailing newline).
    """
    move = _TOKENS.get(token) if isinstance(token, str) else None
    if move is None:
        raise InvalidMoveError(
            f"{token!r} is not a Bao move token (expected square, '+' or '-', optional 's'/'c',"
            " e.g. 'f2-' or 'c2+s')"
        )
    return move


#: ``BaoPosition.to_text``: the four ranks of 8 counts, then side, reserves, stage, houses,
#: mark and ply.
_BPN_FORMAT = "/".join([",".join(["%d"] * 8)] * 4) + " %s %d:%d %s %s %s %d"
_HOUSES_TEXT = {
    (s, n): ("H" if s else "-") + ("H" if n else "-") for s in (True, False) for n in (True, False)
}


def mark_square(mark: int) -> str:
    """The BPN mark field for an encoded mark (``"-"`` for ``NO_MARK``)."""
    return "-" if mark < 0 else SQUARES[mark >> 4][mark & 15]


class BaoPosition(NamedTuple):
    """A Bao la Kiswahili / Bao la Kete position (rules 7.1), an immutable hashable value.

    ``pits``: ``(south, north)``, each 16 seed counts in relative ring order (rules 4.2).
    ``side``: ``"S"`` or ``"N"``, the player to move. ``reserves``: ``(south, north)`` seeds
    still in hand. ``houses``: ``(south_owned, north_owned)`` nyumba/kuu ownership.
    ``mark``: ``owner * 16 + relative index`` of the marked front pit, or ``NO_MARK``.
    ``ply``: moves played since the start position.
    """

    pits: tuple[tuple[int, ...], tuple[int, ...]]
    side: str
    reserves: tuple[int, int]
    houses: tuple[bool, bool]
    mark: int
    ply: int

    @property
    def repetition_key(self) -> tuple[object, ...]:
        """Every BPN field except ``ply`` (rules 7, 9.1)."""
        return tuple(self[:5])

    @property
    def stage(self) -> str:
        """``"n"`` (namua / nemo) while any reserve is positive, else ``"m"`` (mtaji)."""
        return "n" if self.reserves[0] or self.reserves[1] else "m"

    @property
    def seeds(self) -> int:
        """Seeds on the board plus both reserves (64 in play, less after a win mid-move)."""
        return sum(self.pits[0]) + sum(self.pits[1]) + self.reserves[0] + self.reserves[1]

    def front_row_empty(self, owner: int) -> bool:
        """Whether ``owner``'s (0 South, 1 North) front row holds no seed (bao hamna)."""
        return not any(self.pits[owner][:8])

    def to_text(self) -> str:
        """Canonical BPN: ``<rank4>/<rank3>/<rank2>/<rank1> <side> <resS>:<resN> <stage>
        <houses> <mark> <ply>`` (rules 7.1)."""
        # One %-format of every field (the referee writes this text for every ply).
        south, north = self.pits
        res_s, res_n = self.reserves
        return _BPN_FORMAT % (
            *north[8:16],
            *north[7::-1],
            *south[0:8],
            *south[15:7:-1],
            self.side,
            res_s,
            res_n,
            "n" if res_s or res_n else "m",
            _HOUSES_TEXT[self.houses],
            mark_square(self.mark),
            self.ply,
        )

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return f"BaoPosition({self.to_text()!r})"


START_TEXT = "0,0,0,0,0,0,0,0/0,2,2,6,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 S 22:22 n HH - 0"
_NUMBER = re.compile(rf"[0-9]{{1,{MAX_DIGITS}}}")


def _count(text: str, what: str) -> int:
    if not _NUMBER.fullmatch(text):
        raise InvalidPositionError(
            f"{what} must be a non-negative integer of at most {MAX_DIGITS} digits, got {text!r}"
        )
    return int(text)


def parse_bpn(text: object, *, min_house_seeds: int, foreign_mark_allowed: bool) -> BaoPosition:
    """Parse BPN text and check the validity rules of rules 7.3.

    ``min_house_seeds``: seeds an owned nyumba needs (5 Kiswahili, 6 Kete; rule 4).
    ``foreign_mark_allowed``: whether a mark may stand on a pit of the player not to move
    (Bao la Kete hizi zetu priority; rule 3 forbids it in Bao la Kiswahili).
    Raises ``InvalidPositionError`` naming the broken rule.
    """
    if not isinstance(text, str):
        raise InvalidPositionError(f"a position must be BPN text, got {type(text).__name__}")
    fields = text.split()
    if len(fields) != 7:
        raise InvalidPositionError(
            f"BPN needs 7 space-separated fields (board side reserves stage houses mark ply),"
            f" got {len(fields)}: {text!r}"
        )
    board_f, side, res_f, stage, houses_f, mark_f, ply_f = fields
    ranks = board_f.split("/")
    if len(ranks) != 4:
        raise InvalidPositionError(f"the board needs 4 ranks separated by '/', got {len(ranks)}")
    rows: list[list[int]] = []
    for rank_no, rank in zip((4, 3, 2, 1), ranks, strict=True):
        cells = rank.split(",")
        if len(cells) != 8:
            raise InvalidPositionError(f"rank {rank_no} needs 8 seed counts, got {len(cells)}")
        rows.append([_count(c, f"seed count in rank {rank_no}") for c in cells])
    r4, r3, r2, r1 = rows
    south = tuple(r2 + r1[::-1])
    north = tuple(r3[::-1] + r4)
    if side not in SIDES:
        raise InvalidPositionError(f"side to move must be 'S' or 'N', got {side!r}")
    res_parts = res_f.split(":")
    if len(res_parts) != 2:
        raise InvalidPositionError(f"reserves must be '<south>:<north>', got {res_f!r}")
    res_s = _count(res_parts[0], "South's reserve")
    res_n = _count(res_parts[1], "North's reserve")
    if len(houses_f) != 2 or any(c not in "H-" for c in houses_f):
        raise InvalidPositionError(f"houses must be two characters 'H' or '-', got {houses_f!r}")
    ply = _count(ply_f, "ply")
    if mark_f == "-":
        mark = NO_MARK
    else:
        where = SQUARE_INDEX.get(mark_f)
        if where is None or where[1] >= 8:
            raise InvalidPositionError(
                f"mark must be '-' or a front-row square (rank 2 or 3), got {mark_f!r}"
            )
        mark = where[0] * 16 + where[1]
    # Rule 2: the stage field is redundant and must agree with the reserves.
    want_stage = "n" if res_s + res_n > 0 else "m"
    if stage not in ("n", "m"):
        raise InvalidPositionError(f"stage must be 'n' or 'm', got {stage!r}")
    if stage != want_stage:
        raise InvalidPositionError(
            f"stage {stage!r} disagrees with reserves {res_s}:{res_n} (expected {want_stage!r})"
        )
    side_index = 0 if side == SOUTH else 1
    # Rule 3: in Bao la Kiswahili a mark is a takasia on a pit of the side to move.
    if mark >= 0 and mark >> 4 != side_index and not foreign_mark_allowed:
        raise InvalidPositionError(
            f"the mark {mark_f} must be on a pit of the side to move ({side}) in this variant"
        )
    # Rule 4: an owned nyumba holds enough seeds.
    owned = (houses_f[0] == "H", houses_f[1] == "H")
    for owner, pits in ((0, south), (1, north)):
        if owned[owner] and pits[4] < min_house_seeds:
            raise InvalidPositionError(
                f"{SIDES[owner]}'s nyumba {SQUARES[owner][4]} is marked owned (H) but holds"
                f" {pits[4]} seeds (at least {min_house_seeds} needed)"
            )
    return BaoPosition((south, north), side, (res_s, res_n), owned, mark, ply)


def expected_reserves(ply: int) -> tuple[int, int]:
    """Reserves of a position reached in play after ``ply`` moves (rules 7.3 invariants)."""
    return max(0, START_RESERVE - (ply + 1) // 2), max(0, START_RESERVE - ply // 2)
