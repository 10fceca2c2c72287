"""How much of an engine's text one game keeps (docs/referee.md, "Stored output").

Per game and engine the record keeps at most ``OUTPUT_KEEP_BYTES`` (64 KiB, counted in UTF-8
bytes, a newline per line) of each of: its ``info`` lines, its ignored lines, its stderr. What
comes past the cap is dropped where it is read, so a flood costs neither memory nor storage,
and one marker line says how much went (``cut_marker``: ``[… 12,345,678 bytes of info cut]``).
Lines are kept whole: the first line that does not fit, and every line after it, is cut.

Standard library only: the referee uses ``LineBudget`` while it reads; the recording service
and the replay readers use ``cap_stored_moves`` on the JSON form of the moves, so a record
from an older referee is held to the same cap.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

#: What one game keeps of each kind of an engine's text, in bytes (docs/protocol.md 1).
OUTPUT_KEEP_BYTES = 64 * 1024
#: The kinds of text, as the marker names them.
INFO = "info"
IGNORED = "ignored lines"
STDERR = "stderr"


def cut_marker(cut_bytes: int, what: str) -> str:
    """The line that stands for ``cut_bytes`` bytes of ``what`` past the cap:
    ``[… 12,345,678 bytes of info cut]``."""
    return f"[… {cut_bytes:,} bytes of {what} cut]"


def line_bytes(line: str) -> int:
    """The size of ``line`` as the cap counts it: its UTF-8 bytes and a newline."""
    # str.isascii is O(1) in CPython (a flag of the string): the common case costs no encode.
    return len(line) + 1 if line.isascii() else len(line.encode("utf-8", "replace")) + 1


class LineBudget:
    """``limit`` bytes of lines (``line_bytes``) of one engine in one game.

    ``keep(line)`` is True while the line fits; from the first line that does not, every line
    is refused and counted in ``cut`` (bytes), so what is kept is a prefix of what came.
    ``marked``: whether the marker line was placed (the game places it once)."""

    __slots__ = ("cut", "limit", "marked", "used")

    def __init__(self, limit: int = OUTPUT_KEEP_BYTES) -> None:
        if limit < 0:
            raise ValueError(f"limit must be >= 0, not {limit}")
        self.limit = limit
        self.used = 0
        self.cut = 0
        self.marked = False

    def keep(self, line: str) -> bool:
        """Count ``line``; True if it is to be kept."""
        n = line_bytes(line)
        if self.cut == 0 and self.used + n <= self.limit:
            self.used += n
            return True
        self.cut += n
        return False

    def keep_lines(self, lines: Sequence[str]) -> list[str]:
        """The prefix of ``lines`` that fits (all of them counted)."""
        return [line for line in lines if self.keep(line)]


def cap_text_tail(text: str, cut_bytes: int, what: str = STDERR) -> str:
    """``text`` (the kept tail of a longer text) preceded by the marker of the ``cut_bytes``
    before it, when there are any."""
    if cut_bytes <= 0:
        return text
    return f"{cut_marker(cut_bytes, what)}\n{text}"


def cap_stored_moves(
    moves: Sequence[dict[str, Any]], limit: int = OUTPUT_KEEP_BYTES
) -> list[dict[str, Any]]:
    """``moves`` (the JSON form, ``MoveRecord.to_dict``) with each side's ``info`` and
    ``ignored`` lines held to ``limit`` bytes per game (``LineBudget``), the marker line
    appended to the move where the cut began. Moves within the cap are returned as they are
    (the same dicts); a move that changes is a new dict. A record the referee capped already
    passes unchanged (``STORED_SLACK`` leaves room for its marker lines)."""
    budgets: dict[tuple[str, str], LineBudget] = {}
    marks: dict[tuple[str, str], int] = {}  # where each cut began: an index into ``out``
    out: list[dict[str, Any]] = []
    for move in moves:
        changed: dict[str, Any] = {}
        side = str(move.get("side", ""))
        for key in _STORED_KINDS:
            lines = move.get(key)
            if not lines or not isinstance(lines, list):
                continue
            budget = budgets.setdefault((side, key), LineBudget(limit + STORED_SLACK))
            before = budget.cut
            kept = budget.keep_lines([str(line) for line in lines])
            if budget.cut != before:
                changed[key] = kept
                marks.setdefault((side, key), len(out))
        out.append({**move, **changed} if changed else move)
    for (side, key), index in marks.items():
        move = out[index]
        move[key] = [*move[key], cut_marker(budgets[side, key].cut, _STORED_KINDS[key])]
    return out


#: The stored move keys the cap holds, and what their marker calls them.
_STORED_KINDS = {"info": INFO, "ignored": IGNORED}
#: Room over the cap in ``cap_stored_moves`` for the marker lines of a record the referee
#: capped already (a marker is under 60 bytes).
STORED_SLACK = 256
