"""Command line of the rules engine: ``python -m arena.rules <command> ...``.

Commands (positions in BPN/KPN, rules 7; moves as tokens, rules 6)::

    legal    --variant V [--position TEXT]           the legal tokens, space-separated, one line
    apply    --variant V [--position TEXT] MOVE...   the position after each move, one per line
    perft    --variant V --depth N [--position TEXT] "<depth> <count>" for depth 1..N
    selfplay --variant V --games N --seed S [--ply-cap P]
                                                    random games: one line per game, then turns/s
    conformance --variant V --out FILE [--seed S] [--lines N] [--games G]
                                                    write a conformance file (gzip JSONL), print
                                                    its rule coverage; exit 1 if a rule is missed
    perft-table --out FILE [--variant V]            perft of several positions per variant (JSON)

``--position`` defaults to the start position; ``V`` is a variant id or alias
(``arena.rules.canonical_variant_id``). Exit codes: 0 success, 2 bad usage, unknown variant,
invalid position or an invalid/illegal move (one line on stderr, never a traceback); 1 when
``conformance`` finds a rule no game reached.

This module is the shell around the pure rules package: it alone reads the clock (turns/s of
``selfplay``) and owns a random generator, always seeded from ``--seed``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from . import Position, RulesError, Variant, canonical_variant_id, get_variant
from .conformance import (
    DEFAULT_LINES,
    DEFAULT_SEED,
    PERFT_POSITIONS,
    CoverageError,
    encode,
    generate,
    perft,
    perft_json,
    perft_table,
)

#: Exit code for every error the user can cause (argparse uses the same).
EXIT_USAGE = 2
#: Exit code of ``conformance`` when some rule was reached by no game (nothing is written).
EXIT_COVERAGE = 1
#: Largest perft depth accepted: the tree grows geometrically, so a deeper request would run for
#: hours instead of failing clearly.
MAX_PERFT_DEPTH = 12


class UsageError(Exception):
    """Bad command-line arguments (reported on one line, exit code 2)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # argparse prints the usage block and exits; we want one line and a return code.
        raise UsageError(message)


def at_least(least: int) -> Callable[[str], int]:
    """An argparse ``type``: a whole number of at least ``least``; anything else is refused with
    ``argparse.ArgumentTypeError`` (argparse prints it and exits 2)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"must be at least {least}, not {value}")
        return value

    return parse


def _seed(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer seed: {text!r}") from None


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for ``--help`` tests and documentation)."""
    parser = _Parser(prog="python -m arena.rules", description="Bao rules engine tools.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def variant_and_position(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--variant", required=True, help="variant id or alias, e.g. kingulu")
        sub.add_argument("--position", help="BPN/KPN text (default: the start position)")

    legal = commands.add_parser("legal", help="list the legal moves")
    variant_and_position(legal)

    apply = commands.add_parser("apply", help="apply moves, print each resulting position")
    variant_and_position(apply)
    apply.add_argument("moves", nargs="+", metavar="MOVE")

    perft = commands.add_parser("perft", help="count move sequences per depth")
    variant_and_position(perft)
    perft.add_argument("--depth", required=True, type=at_least(1))

    selfplay = commands.add_parser("selfplay", help="play random games")
    selfplay.add_argument("--variant", required=True)
    selfplay.add_argument("--games", required=True, type=at_least(1))
    selfplay.add_argument("--seed", required=True, type=_seed)
    selfplay.add_argument("--ply-cap", type=at_least(1), help="default: the variant's (rules 9.1)")

    conformance = commands.add_parser("conformance", help="write a conformance file")
    conformance.add_argument("--variant", required=True)
    conformance.add_argument("--out", required=True, help="the .jsonl.gz file to write")
    conformance.add_argument("--seed", type=_seed, default=DEFAULT_SEED)
    conformance.add_argument(
        "--lines",
        type=at_least(1),
        default=DEFAULT_LINES,
        help=f"at least this many lines (default {DEFAULT_LINES})",
    )
    conformance.add_argument(
        "--games", type=at_least(1), default=1, help="at least this many games from the start"
    )

    table = commands.add_parser("perft-table", help="perft of the conformance positions")
    table.add_argument("--out", required=True, help="the JSON file to write")
    table.add_argument("--variant", action="append", help="default: every variant")
    return parser


def _variant(name: str) -> Variant:
    key = canonical_variant_id(name)  # UnknownVariantError for a bad name
    try:
        return get_variant(key)
    except ImportError as exc:  # the variant's module is not written yet
        raise UsageError(f"variant {key} is not available: {exc}") from None


def _position(variant: Variant, text: str | None) -> Position:
    return variant.initial_position() if text is None else variant.parse_position(text)


def _cmd_legal(args: argparse.Namespace) -> int:
    variant = _variant(args.variant)
    moves = variant.legal_moves(_position(variant, args.position))
    print(" ".join(str(m) for m in moves))
    return 0


def _cmd_apply(args: argparse.Namespace) -> int:
    variant = _variant(args.variant)
    position = _position(variant, args.position)
    for token in args.moves:
        position = variant.apply(position, token)
        print(position.to_text())
    return 0


def _cmd_perft(args: argparse.Namespace) -> int:
    if args.depth > MAX_PERFT_DEPTH:
        raise UsageError(f"--depth is at most {MAX_PERFT_DEPTH}")
    variant = _variant(args.variant)
    for depth, count in enumerate(perft(variant, _position(variant, args.position), args.depth), 1):
        print(depth, count)
    return 0


def _cmd_selfplay(args: argparse.Namespace) -> int:
    variant = _variant(args.variant)
    rng = random.Random(args.seed)
    turns = 0
    began = time.perf_counter()
    for number in range(1, args.games + 1):
        game = variant.new_game(ply_cap=args.ply_cap)
        while game.outcome is None:
            game.play(rng.choice(game.legal_moves()))
        outcome = game.outcome
        turns += len(game.moves)
        scores = f" scores={outcome.scores[0]}-{outcome.scores[1]}" if outcome.scores else ""
        print(f"game {number}: {outcome.result} {outcome.reason} plies={len(game.moves)}{scores}")
    seconds = time.perf_counter() - began
    rate = turns / seconds if seconds > 0 else float("inf")
    print(f"total: {args.games} games, {turns} turns in {seconds:.3f} s, {rate:.0f} turns/s")
    return 0


def _cmd_conformance(args: argparse.Namespace) -> int:
    variant = _variant(args.variant)
    try:
        lines, coverage = generate(variant.id, seed=args.seed, lines=args.lines, games=args.games)
    except CoverageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_COVERAGE
    size = _write(Path(args.out), encode(lines))
    print(coverage.table())
    print(f"wrote {args.out}: {len(lines)} lines, {coverage.games} games, {size} bytes")
    return 0


def _cmd_perft_table(args: argparse.Namespace) -> int:
    names = args.variant or list(PERFT_POSITIONS)
    ids = [_variant(name).id for name in names]
    text = perft_json(perft_table(ids))
    _write(Path(args.out), text.encode("ascii"))
    print(text, end="")
    return 0


def _write(path: Path, data: bytes) -> int:
    try:
        path.write_bytes(data)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    return len(data)


_COMMANDS = {
    "legal": _cmd_legal,
    "apply": _cmd_apply,
    "perft": _cmd_perft,
    "selfplay": _cmd_selfplay,
    "conformance": _cmd_conformance,
    "perft-table": _cmd_perft_table,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit code (0, or 2 after a one-line error on stderr)."""
    try:
        args = build_parser().parse_args(argv)
        return _COMMANDS[args.command](args)
    except (UsageError, RulesError) as exc:
        message = " ".join(str(exc).split())  # keep the error on one line
        print(f"error: {message}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
