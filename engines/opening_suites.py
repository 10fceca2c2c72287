"""Making (and checking) the balanced start-position suites of ``arena/openings`` (issue 15).

Method, per variant, with its own generator ``random.Random(f"{seed}/{variant id}")``:

1. From the standard start, play ``k`` plies chosen uniformly among the legal moves, ``k``
   uniform in ``[min plies, max plies]`` (default 4-10). Drop the candidate if the game is over
   there, or if the side to move has fewer than 2 legal moves (a forced move is no choice for
   the engine, and the search returns it without a score).
2. Drop it if a kept position has the same repetition key (every notation field but the ply,
   ``docs/rules/README.md`` section 7): the suite has no duplicates.
3. Score it with the bundled search engine (``engines/bundled/search``): a fresh ``Searcher``
   (empty transposition table and history) searching to exactly ``depth`` plies, with no clock,
   so the result is deterministic. The value is the negamax score in centiseeds for the side to
   move (100 = one seed, ``evaluate`` of that engine). Keep the position when
   ``|value| <= max_score`` (neither side is judged ahead by more than ``max_score``
   centiseeds; a won or lost game found within the depth scores near 100,000) and the game
   does not end along the search's principal variation (a draw or a result the search sees
   coming within the depth: the position is decided, not balanced).

It stops at ``count`` kept positions, in the order found, and fails after ``max_tries``
candidates. The suite file's header records the exact command and seed; since the positions are
kept in order, the same command with a smaller ``--count`` writes the first lines of the file.

    .venv/bin/python -m engines.opening_suites                 # writes arena/openings/balanced/
    .venv/bin/python -m engines.opening_suites --verify        # re-scores the committed files
"""

from __future__ import annotations

import argparse
import random
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.openings import DEFAULT_SUITE, SUITES_DIR, UnknownSuiteError, load_suite, suite_path
from arena.rules import VARIANTS, Position, Variant, get_variant
from engines.bundled_scripts import load_bundled

MODULE = "engines.opening_suites"
#: The header line that holds the generating command (``recorded_options`` reads it back).
COMMAND_PREFIX = "# Made by: "

DEFAULT_SEED = 15
DEFAULT_COUNT = 120
DEFAULT_DEPTH = 6
DEFAULT_MAX_SCORE = 100
# Fewer plies leave too few distinct positions in Bao Kingulu (2-6 gave 52 balanced ones in
# 20,000 candidates), more drift away from the opening.
DEFAULT_PLIES = (4, 10)
DEFAULT_MAX_TRIES = 20_000


@dataclass(frozen=True)
class Options:
    """What a suite is made with (the module docstring's method); ``plies`` is (min, max)."""

    suite: str = DEFAULT_SUITE
    seed: int = DEFAULT_SEED
    count: int = DEFAULT_COUNT
    depth: int = DEFAULT_DEPTH
    max_score: int = DEFAULT_MAX_SCORE
    plies: tuple[int, int] = DEFAULT_PLIES
    max_tries: int = DEFAULT_MAX_TRIES

    def command(self, variants: Sequence[str]) -> str:
        """The exact command line that makes these suites, every option that decides the
        output spelled out."""
        words = [
            ".venv/bin/python", "-m", MODULE, "--suite", self.suite, "--seed", str(self.seed),
            "--count", str(self.count), "--depth", str(self.depth),
            "--max-score", str(self.max_score), "--plies", f"{self.plies[0]}-{self.plies[1]}",
        ]  # fmt: skip
        if tuple(variants) != VARIANTS:
            for v in variants:
                words += ["--variant", v]
        return shlex.join(words)


@dataclass
class Made:
    """One variant's suite: the kept positions (in order), candidates tried, seconds spent."""

    variant: str
    positions: list[Position]
    tried: int
    seconds: float


@dataclass(frozen=True)
class Judgement:
    """The search's view of a position: ``score`` in centiseeds for the side to move, and
    whether the game ends along its principal variation ``pv`` (move tokens)."""

    score: int
    pv: tuple[str, ...]
    ends_on_pv: bool


def judge(variant: Variant, position: Position, depth: int) -> Judgement:
    """The bundled search's judgement of ``position``: a fresh ``Searcher``, iterative
    deepening to exactly ``depth`` plies, no clock (deterministic). Raises ``ValueError`` if
    the position has no legal move."""
    result = load_bundled("search").Searcher(variant).search(position, max_depth=depth)
    game = variant.new_game(position)
    for token in result.pv:
        if game.outcome is not None:
            break
        game.play(token)
    return Judgement(int(result.score), tuple(result.pv), game.outcome is not None)


def is_balanced(variant: Variant, position: Position, options: Options) -> bool:
    """The criterion of steps 1 and 3: the game is not over, the side to move has 2+ legal
    moves, and at ``options.depth`` the search scores it within ``+-options.max_score`` with no
    game end along its principal variation."""
    if variant.outcome(position) is not None or len(variant.legal_moves(position)) < 2:
        return False
    seen = judge(variant, position, options.depth)
    return abs(seen.score) <= options.max_score and not seen.ends_on_pv


def _candidate(variant: Variant, rng: random.Random, plies: tuple[int, int]) -> Position | None:
    game = variant.new_game()
    for _ in range(rng.randint(*plies)):
        if game.outcome is not None:
            return None
        game.play(rng.choice(game.legal_moves()))
    return None if game.outcome is not None else game.position


def make_suite(variant: str | Variant, options: Options) -> Made:
    """The suite of ``variant`` by the module docstring's method. Raises ``RuntimeError`` when
    ``options.max_tries`` candidates give fewer than ``options.count`` positions."""
    v = variant if isinstance(variant, Variant) else get_variant(variant)
    rng = random.Random(f"{options.seed}/{v.id}")
    kept: list[Position] = []
    keys: set[object] = set()
    started = time.monotonic()
    tried = 0
    while len(kept) < options.count:
        if tried >= options.max_tries:
            raise RuntimeError(
                f"{v.id}: only {len(kept)} of {options.count} positions after {tried} candidates"
            )
        tried += 1
        position = _candidate(v, rng, options.plies)
        if position is None or position.repetition_key in keys:
            continue
        if is_balanced(v, position, options):
            kept.append(position)
            keys.add(position.repetition_key)
    return Made(v.id, kept, tried, time.monotonic() - started)


def suite_text(made: Made, options: Options, variants: Sequence[str]) -> str:
    """The file: a ``#`` header (what, the exact command and seed, the method) and one position
    per line."""
    notation = "KPN" if made.variant == "bao-kingulu" else "BPN"
    lo, hi = options.plies
    header = [
        f"# Start-position suite {options.suite!r} for {made.variant}: {len(made.positions)} "
        f"positions, one {notation} per line (docs/rules/README.md section 7).",
        f"{COMMAND_PREFIX}{options.command(variants)}",
        f"# Seed {options.seed}: random.Random({f'{options.seed}/{made.variant}'!r}) plays "
        f"{lo} to {hi} uniformly random plies from the standard start.",
        "# Kept when the side to move has 2+ legal moves, the position (all fields but the ply) is "
        "new,",
        f"# and the bundled search (fresh tables, depth {options.depth}, no clock) scores it "
        f"within +-{options.max_score} centiseeds",
        "# for the side to move, with no game end along its principal variation. "
        f"{made.tried} candidates tried.",
        "# Method: engines/opening_suites.py (module docstring).",
    ]
    return "\n".join([*header, *(p.to_text() for p in made.positions)]) + "\n"


def parser() -> argparse.ArgumentParser:
    """The command line (module docstring)."""

    def plies(text: str) -> tuple[int, int]:
        lo, _, hi = text.partition("-")
        try:
            bounds = (int(lo), int(hi or lo))
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected MIN-MAX plies, got {text!r}") from None
        if not 1 <= bounds[0] <= bounds[1]:
            raise argparse.ArgumentTypeError(f"expected 1 <= MIN <= MAX, got {text!r}")
        return bounds

    p = argparse.ArgumentParser(prog=f"python -m {MODULE}", description=__doc__.splitlines()[0])
    p.add_argument("--suite", default=DEFAULT_SUITE, help="suite name (directory)")
    p.add_argument("--variant", action="append", help="a variant id or alias (repeatable)")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED)
    p.add_argument("--count", type=int, default=DEFAULT_COUNT, help="positions per variant")
    p.add_argument("--depth", type=int, default=DEFAULT_DEPTH, help="search depth (plies)")
    p.add_argument("--max-score", type=int, default=DEFAULT_MAX_SCORE, help="centiseeds")
    p.add_argument(
        "--plies", type=plies, default=DEFAULT_PLIES, help="random plies, MIN-MAX (default 4-10)",
    )  # fmt: skip
    p.add_argument("--max-tries", type=int, default=DEFAULT_MAX_TRIES, help="candidates, at most")
    p.add_argument("--out", type=Path, default=SUITES_DIR, help="directory of the suites")
    p.add_argument(
        "--verify", action="store_true",
        help="re-score the suite files with the options their header records; write nothing",
    )  # fmt: skip
    return p


def _options(args: argparse.Namespace) -> Options:
    return Options(
        suite=args.suite,
        seed=args.seed,
        count=args.count,
        depth=args.depth,
        max_score=args.max_score,
        plies=args.plies,
        max_tries=args.max_tries,
    )


def recorded_options(text: str) -> Options:
    """The ``Options`` in a suite file's ``# Made by:`` line. Raises ``ValueError`` if the file
    has no such line or it is not a command of this module."""
    for line in text.splitlines():
        if line.startswith(COMMAND_PREFIX):
            words = shlex.split(line[len(COMMAND_PREFIX) :])
            if MODULE not in words:
                break
            return _options(parser().parse_args(words[words.index(MODULE) + 1 :]))
    raise ValueError(f"no '{COMMAND_PREFIX.strip()}' line naming {MODULE}")


def verify(suite: str, variant: str) -> list[str]:
    """Problems of the committed suite file (empty when it keeps the criterion): every position
    re-scored with the depth and bound its header records."""
    path = suite_path(suite, variant)
    options = recorded_options(path.read_text(encoding="utf-8"))
    v = get_variant(variant)
    return [
        f"{path.name}: {p.to_text()}: {judge(v, p, options.depth)}"
        for p in load_suite(v, suite)
        if not is_balanced(v, p, options)
    ]


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        variants = tuple(get_variant(name).id for name in args.variant or VARIANTS)
        suite_path(args.suite, variants[0])  # a suite name is a directory name: no "../"
    except (KeyError, UnknownSuiteError) as exc:
        print(f"error: {exc.args[0]}", file=sys.stderr)
        return 2
    if args.verify:
        problems = [line for v in variants for line in verify(args.suite, v)]
        for line in problems:
            print(line)
        print(f"{len(problems)} positions outside the criterion", file=sys.stderr)
        return 1 if problems else 0
    options = _options(args)
    for variant in variants:
        made = make_suite(variant, options)
        path = args.out / options.suite / f"{variant}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(suite_text(made, options, variants), encoding="utf-8")
        print(
            f"{variant}: {len(made.positions)} positions from {made.tried} candidates in "
            f"{made.seconds:.1f} s -> {path}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
