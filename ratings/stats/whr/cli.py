"""Command line of the rating fit, for engine authors (as Ordo and BayesElo are)::

    python -m ratings.stats.whr fit FILE [--anchor NAME=RATING] [--json]

``FILE`` (``-`` for stdin) is CSV with the header line ``south,north,result`` and one game per
row, the result from South's side: ``1-0``, ``0-1`` or ``1/2-1/2``. A row with ``*``
(unfinished) is skipped with a warning on stderr; blank lines are ignored. A file that starts
with ``{`` is JSON lines instead: ``bao-match --out`` or ``GET /api/games/export/``. The fit is
``ratings.stats.whr.fit``: the pool mean is 1500, or ``--anchor NAME=RATING`` holds one engine
at a rating.

Output: a table sorted by rating (rank, engine, rating, 95% interval, games, points, score,
W-D-L, likelihood of superiority over the next row; ``?`` marks a provisional rating, ``>``
and ``<`` a rating that is only a lower or an upper bound, as in Ordo's lists), then the
engines not rated and why. ``--json`` prints instead::

    {"ratings": [{"name", "rating", "low", "high", "bound", "games", "points", "provisional",
                  "provisional_reason"}, ...],
     "excluded": [{"name", "reason"}, ...]}

ratings sorted best first, Elo values rounded to 0.1; ``bound`` is ``">"`` (``high`` is
null: unbounded), ``"<"`` (``low`` is null) or null. Exit codes: 0 success; 2 bad usage, an
unreadable file, a malformed row (the message names its line), an anchor that played no finished
game, or no rated engine at all (one line on stderr, never a traceback).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import NoReturn, TextIO

from ratings.stats.whr.fit import PROVISIONAL_GAMES, SOUTH_SCORE, RatingFit, fit

EXIT_USAGE = 2
HEADER = ["south", "north", "result"]
UNFINISHED = "*"
NO_FINISHED_GAME = "no finished game"


class UsageError(Exception):
    """Bad input or arguments: one line on stderr, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _anchor(text: str) -> tuple[str, float]:
    name, sep, value = text.rpartition("=")
    try:
        rating = float(value)
    except ValueError:
        rating = math.nan
    if not sep or not name.strip() or not math.isfinite(rating):
        raise argparse.ArgumentTypeError(f"expected NAME=RATING (e.g. search=1800), not {text!r}")
    return name.strip(), rating


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for ``--help`` tests and documentation)."""
    parser = _Parser(
        prog="python -m ratings.stats.whr",
        description="Whole-history maximum-likelihood Elo ratings.",
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    fit_cmd = commands.add_parser("fit", help="fit ratings to a CSV file of games")
    fit_cmd.add_argument(
        "file",
        metavar="FILE",
        help="CSV: south,north,result, or JSON lines of bao-match --out or the export "
        "(- for stdin)",
    )
    fit_cmd.add_argument(
        "--anchor", type=_anchor, metavar="NAME=RATING", help="hold NAME at RATING (Elo)"
    )
    fit_cmd.add_argument("--json", action="store_true", help="print JSON instead of a table")
    return parser


@dataclass(frozen=True)
class GameFile:
    """The finished games of a file and the names seen only in unfinished rows."""

    games: list[tuple[str, str, float]]
    unfinished_only: list[str]


def read_games(stream: TextIO, label: str, warn: TextIO) -> GameFile:
    """Parse the CSV game file (module docstring); ``label`` names it in messages.

    Raises ``UsageError`` naming the line of the first malformed row (or of a wrong header).
    A file whose first non-blank character is ``{`` is read as JSON lines instead
    (``read_game_lines``).
    """
    text = stream.read()
    if text.lstrip().startswith("{"):
        return read_game_lines(text, label, warn)
    stream = io.StringIO(text)
    games: list[tuple[str, str, float]] = []
    names: set[str] = set()
    seen: dict[str, None] = {}
    rows = _rows(stream, label)
    header = next(rows, None)
    if header is None or [f.strip() for f in header[1]] != HEADER:
        line = 1 if header is None else header[0]
        raise UsageError(f"{label}:{line}: expected the header line {','.join(HEADER)}")
    for line, fields in rows:
        if len(fields) != 3:
            raise UsageError(
                f"{label}:{line}: expected 3 fields (south,north,result), got {len(fields)}"
            )
        south, north, result = (f.strip() for f in fields)
        if not south or not north:
            raise UsageError(f"{label}:{line}: an engine name is empty")
        if south == north:
            raise UsageError(f"{label}:{line}: {south} cannot play itself")
        seen.update(dict.fromkeys((south, north)))
        if result == UNFINISHED:
            print(f"warning: {label}:{line}: unfinished game ({UNFINISHED}) skipped", file=warn)
            continue
        if result not in SOUTH_SCORE:
            raise UsageError(
                f"{label}:{line}: unknown result {result!r} "
                f"(expected 1-0, 0-1, 1/2-1/2 or {UNFINISHED})"
            )
        games.append((south, north, SOUTH_SCORE[result]))
        names.update((south, north))
    return GameFile(games, sorted(n for n in seen if n not in names))


def read_game_lines(text: str, label: str, warn: TextIO) -> GameFile:
    """Games as JSON lines: the ``--out`` file of ``bao-match`` or the body of ``GET
    /api/games/export/`` (``arena.matches.gameline``), of which ``south.engine``,
    ``north.engine`` and ``result`` are read (``bao-match``'s header line of settings is
    skipped). A game without a result of ``1-0``, ``0-1`` or
    ``1/2-1/2`` (aborted, unfinished) is skipped with a warning. Raises ``UsageError`` naming
    the line of the first one that is not such an object."""
    games: list[tuple[str, str, float]] = []
    seen: dict[str, None] = {}
    names: set[str] = set()
    for line, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
            if isinstance(data, dict) and "bao_match" in data and "south" not in data:
                continue  # the header line of a bao-match --out file: its settings
            south, north = str(data["south"]["engine"]), str(data["north"]["engine"])
            result = str(data["result"])
        except (ValueError, KeyError, TypeError) as exc:
            why = f"no {exc.args[0]!r} field" if isinstance(exc, KeyError) else str(exc)
            raise UsageError(f"{label}:{line}: not a game line ({why})") from None
        if south == north:
            raise UsageError(f"{label}:{line}: {south} cannot play itself")
        seen.update(dict.fromkeys((south, north)))
        if result not in SOUTH_SCORE:
            print(f"warning: {label}:{line}: game without a result ({result}) skipped", file=warn)
            continue
        games.append((south, north, SOUTH_SCORE[result]))
        names.update((south, north))
    return GameFile(games, sorted(n for n in seen if n not in names))


def _rows(stream: TextIO, label: str) -> Iterator[tuple[int, list[str]]]:
    """Non-blank CSV records with the line number on which each starts."""
    reader = csv.reader(stream)
    line = 1
    try:
        for fields in reader:
            start, line = line, reader.line_num + 1
            if fields and any(f.strip() for f in fields):
                yield start, fields
    except csv.Error as exc:
        raise UsageError(f"{label}:{reader.line_num}: {exc}") from None


def ratings_json(result: RatingFit[str], unfinished_only: Sequence[str]) -> dict[str, object]:
    """The ``--json`` document (module docstring)."""
    return {
        "ratings": [
            {
                "name": r.engine,
                "rating": round(r.rating, 1),
                "low": _elo(r.low),
                "high": _elo(r.high),
                "bound": r.bound,
                "games": r.games,
                "points": round(r.points, 1),
                "provisional": r.provisional,
                "provisional_reason": r.provisional_reason,
            }
            for r in result.ratings
        ],
        "excluded": _excluded(result, unfinished_only),
    }


def _elo(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def _end(value: float | None) -> str:
    return "unbounded" if value is None else f"{value:.1f}"


def _excluded(result: RatingFit[str], unfinished_only: Sequence[str]) -> list[dict[str, str]]:
    rows = [(e.engine, e.reason) for e in result.excluded]
    rows += [(name, NO_FINISHED_GAME) for name in unfinished_only]
    return [{"name": name, "reason": reason} for name, reason in sorted(rows)]


def ratings_table(result: RatingFit[str], unfinished_only: Sequence[str]) -> str:
    """The text table (module docstring)."""
    width = max([6, *(len(r.engine) for r in result.ratings)])
    lines = [
        f"{'rank':>4}  {'engine':<{width}}  {'rating':>7}  {'95% interval':>19}  {'games':>5}  "
        f"{'points':>6}  {'score':>6}  {'W-D-L':<11}  {'LOS':>6}"
    ]
    rows = result.ratings
    for rank, r in enumerate(rows, start=1):
        superiority = result.superiority(r.engine, rows[rank].engine) if rank < len(rows) else None
        los = "" if superiority is None else f"{100 * superiority:5.1f}%"
        mark = r.bound or ("?" if r.provisional else " ")
        interval = f"{_end(r.low)}-{_end(r.high)}"
        lines.append(
            f"{rank:>4}  {r.engine:<{width}}  {r.rating:>6.1f}{mark}  "
            f"{interval:>19}  {r.games:>5}  {r.points:>6.1f}  "
            f"{100 * r.score:>5.1f}%  {f'{r.wins}-{r.draws}-{r.losses}':<11}  {los:>6}"
        )
    lines.append(
        f"? provisional: fewer than {PROVISIONAL_GAMES} games; > or <: only a lower or upper "
        "bound (won or lost every game); LOS: likelihood of superiority over the next row"
    )
    excluded = _excluded(result, unfinished_only)
    if excluded:
        lines.append("not rated:")
        lines += [f"  {e['name']}: {e['reason']}" for e in excluded]
    return "\n".join(lines)


def main(
    argv: Sequence[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> int:
    """Run the command line; returns the exit code (module docstring)."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    try:
        args = build_parser().parse_args(argv)
        games = _load(args.file, err)
        anchor: tuple[str, float] | None = args.anchor
        if anchor is not None and all(anchor[0] not in g[:2] for g in games.games):
            raise UsageError(f"the anchor {anchor[0]} played no finished game")
        result = fit(games.games, anchor=anchor)
        if not result.ratings:
            label = "<stdin>" if args.file == "-" else args.file
            raise UsageError(f"no rated engine: {label} has no finished game")
    except UsageError as exc:
        print(f"error: {exc}", file=err)
        return EXIT_USAGE
    if args.json:
        json.dump(ratings_json(result, games.unfinished_only), out, indent=2)
        out.write("\n")
    else:
        out.write(ratings_table(result, games.unfinished_only) + "\n")
    return 0


def _load(path: str, warn: TextIO) -> GameFile:
    if path == "-":
        return read_games(sys.stdin, "<stdin>", warn)
    try:
        with open(path, encoding="utf-8-sig", newline="") as stream:
            return read_games(stream, path, warn)
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None
