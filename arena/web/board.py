"""Turn a position text (BPN or KPN, ``docs/rules/README.md`` 7) into rows of cells to draw.

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


# --------------------------------------------------------------------------- SVG board

#: Pit spacing and radius of the drawn board (SVG user units).
CELL = 64
RADIUS = 26
MARGIN_X = 130  # room beside the board for the seeds in hand / banks
MARGIN_Y = 30
#: Where each player's nyumba stands (rules 4.2: relative pit 4 is e2 for South, d3 North).
NYUMBA_SQUARES = {"e2": 0, "d3": 1}


@dataclass(frozen=True)
class SvgPit:
    """One pit or hole to draw: ``square`` (``"e2"``), centre ``x``/``y``, ``count`` (seeds),
    ``classes`` (CSS: ``south``/``north``, ``nyumba``, ``owned``, ``reserved-s``/``reserved-n``,
    ``marked``)."""

    square: str
    x: int
    y: int
    count: str
    classes: str


@dataclass(frozen=True)
class SvgBoard:
    """A position drawn as SVG by ``svg_board``: ``kind`` ``"bao"`` (4 x 8) or ``"kingulu"``
    (2 x 6); ``hands``: ``(south, north)`` seeds in hand (Bao reserves) or banks (Kingulu),
    labelled by ``hand_label``; ``side``: the player to move."""

    kind: str
    width: int
    height: int
    pits: tuple[SvgPit, ...]
    file_labels: tuple[tuple[int, str], ...]
    rank_labels: tuple[tuple[int, int], ...]
    divider_y: int
    hands: tuple[str, str]
    hand_label: str
    side: str
    hand_y: tuple[int, int]


def svg_board(text: str) -> SvgBoard | None:
    """The drawing of a BPN (4 ranks) or KPN (2 ranks) text, or None if it is not a board.

    Only the notation is read (rules 7.3): counts and reservation suffixes, the side to
    move, Bao's reserves and nyumba flags, Kingulu's banks. No rule is applied.
    """
    board = board_from_text(text)
    if board is None or len(board.rows) not in (2, 4):
        return None
    kind = "bao" if len(board.rows) == 4 else "kingulu"
    rest = board.rest.split()
    side = rest[0] if rest else ""
    split = rest[1].split(":") if len(rest) > 1 else []
    hands = (split[0], split[1]) if len(split) == 2 else ("", "")
    houses = rest[3] if kind == "bao" and len(rest) > 3 else "--"
    mark = rest[4] if kind == "bao" and len(rest) > 4 else "-"
    ranks = len(board.rows)
    gap = 18  # between the two players' halves
    pits = []
    for r, row in enumerate(board.rows):
        y = MARGIN_Y + CELL // 2 + r * CELL + (gap if row.south else 0)
        for f, cell in enumerate(row.cells):
            square = f"{board.files[f]}{row.rank}"
            count = cell.rstrip("sn")
            classes = ["pit", "south" if row.south else "north"]
            if kind == "bao" and square in NYUMBA_SQUARES:
                classes.append("nyumba")
                if houses[NYUMBA_SQUARES[square] :][:1] == "H":
                    classes.append("owned")
            if cell.endswith("s"):
                classes.append("reserved-s")
            elif cell.endswith("n"):
                classes.append("reserved-n")
            if square == mark:
                classes.append("marked")
            pits.append(
                SvgPit(square, MARGIN_X + CELL // 2 + f * CELL, y, count, " ".join(classes))
            )
    width = 2 * MARGIN_X + len(board.files) * CELL
    bottom = MARGIN_Y + ranks * CELL + gap
    return SvgBoard(
        kind=kind,
        width=width,
        height=bottom + 28,
        pits=tuple(pits),
        file_labels=tuple(
            (MARGIN_X + CELL // 2 + f * CELL, name) for f, name in enumerate(board.files)
        ),
        rank_labels=tuple(
            (MARGIN_Y + CELL // 2 + r * CELL + (gap if row.south else 0), row.rank)
            for r, row in enumerate(board.rows)
        ),
        divider_y=MARGIN_Y + (ranks // 2) * CELL + gap // 2,
        hands=hands,
        hand_label="in hand" if kind == "bao" else "bank",
        side=side,
        hand_y=(bottom - CELL // 2, MARGIN_Y + CELL // 2),
    )
