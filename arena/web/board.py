"""Turn a position text (BPN or KPN, ``shared/rules/README.md`` 5) into rows of cells to draw.

Only the board field is read (the first space-separated field: ranks from the top, ``/``
between ranks, ``,`` between cells), so one function serves both notations; the rules engine
is not needed to draw a stored position. A text that does not look like a board gives no rows.
"""

from __future__ import annotations

from dataclasses import dataclass

FILES = "abcdefgh"


@dataclass(frozen=True)
class BoardRow:
    """One rank (rows run top of the board first): its number and cells.

    Cells are seed counts, e.g. ``6``, ``4s``.
    """

    rank: int
    cells: tuple[str, ...]
    south: bool  # South's side of the board (ranks 1-2 of 4, rank 1 of 2)


@dataclass(frozen=True)
class Board:
    files: tuple[str, ...]
    rows: tuple[BoardRow, ...]
    rest: str  # the fields after the board (side, reserves or banks, ...)


def board_from_text(text: str) -> Board | None:
    """The board of a BPN/KPN text, or None if its first field is not ``cells/cells/...``."""
    head, _, rest = text.strip().partition(" ")
    ranks = [r.split(",") for r in head.split("/")] if head else []
    if len(ranks) < 2 or len({len(r) for r in ranks}) != 1 or len(ranks[0]) > len(FILES):
        return None
    width = len(ranks[0])
    south_ranks = len(ranks) // 2
    rows = tuple(
        BoardRow(
            rank=len(ranks) - i,
            cells=tuple(c.strip() for c in r),
            south=len(ranks) - i <= south_ranks,
        )
        for i, r in enumerate(ranks)
    )
    return Board(files=tuple(FILES[:width]), rows=rows, rest=rest)
