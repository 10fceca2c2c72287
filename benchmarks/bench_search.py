"""Speed of the bundled search engine: nodes per second and depth reached per variant.

For each variant and each movetime (ms), the searcher of ``engines/bundled/search`` is run the
way ``go movetime`` runs it (``Clock.budget_ms``, soft limit at 45 %) on the start position and
on positions from seeded random games, with a fresh transposition table each time. Prints one
line per (variant, movetime): positions, mean and minimum completed depth, nodes per second,
mean time used (ms).

    .venv/bin/python benchmarks/bench_search.py                 # movetime 100 and 1000
    .venv/bin/python benchmarks/bench_search.py --movetime 200 --positions 3

Single-threaded; about 2 x positions x 1.1 s per variant at the default settings.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# After the path insert: the benchmark runs as a plain script from any directory.
from arena.rules import VARIANTS, Position, Variant, get_variant  # noqa: E402
from engines.bundled_scripts import load_bundled  # noqa: E402
from engines.sdk import Clock  # noqa: E402


def positions(variant: Variant, count: int, seed: int = 2024) -> list[Position]:
    """The start position plus ``count - 1`` positions 6..30 random plies into seeded games."""
    rng = random.Random(seed)
    found = [variant.initial_position()]
    while len(found) < count:
        game = variant.new_game()
        for _ in range(rng.randint(6, 30)):
            if game.outcome is not None:
                break
            game.play(rng.choice(game.legal_moves()))
        if game.outcome is None and len(game.legal_moves()) > 1:
            found.append(game.position)
    return found


def bench(search: ModuleType, variant: Variant, movetime_ms: int, count: int) -> str:
    depths: list[int] = []
    nodes = 0
    used_ms: list[float] = []
    for position in positions(variant, count):
        searcher = search.Searcher(variant)
        clock = Clock(movetime_ms=movetime_ms)
        budget = clock.budget_ms() / 1000.0
        started = time.monotonic()
        result = searcher.search(
            position,
            deadline=clock.started + budget,
            soft_deadline=clock.started + budget * 0.45,
        )
        used_ms.append((time.monotonic() - started) * 1000)
        depths.append(result.depth)
        nodes += result.nodes
    seconds = sum(used_ms) / 1000
    return (
        f"{variant.id:<17} movetime {movetime_ms:>5} ms  positions {len(depths):>2}  "
        f"depth mean {statistics.mean(depths):5.1f} min {min(depths):>2}  "
        f"nodes/s {nodes / seconds:>8.0f}  time used mean {statistics.mean(used_ms):6.0f} ms"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--movetime", type=int, action="append", help="ms (repeatable)")
    parser.add_argument("--positions", type=int, default=5, help="positions per variant")
    parser.add_argument("--variant", action="append", choices=VARIANTS)
    args = parser.parse_args(argv)
    search = load_bundled("search")
    for variant_id in args.variant or VARIANTS:
        for movetime in args.movetime or [100, 1000]:
            print(bench(search, get_variant(variant_id), movetime, args.positions), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
