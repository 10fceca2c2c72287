"""Random-playout speed of the rules engines: turns per second for every variant.

A *turn* is one full ``legal_moves`` call plus ``apply`` of one of the moves (chosen with a
seeded ``random.Random``), the work a referee or a playout-based engine does per ply. Games
start from the start position and restart when the game ends (no legal move, a front row
empty) or reaches the variant's ply cap. One core, CPython, no timed assertions: this script
only prints figures.

Usage::

    python benchmarks/bench_rules.py                  # every variant, ~3 s each
    python benchmarks/bench_rules.py --seconds 10 --seed 7 bao-la-kiswahili
    python benchmarks/bench_rules.py --by-stage       # Bao: namua and mtaji turns apart
    python benchmarks/bench_rules.py --profile bao-la-kiswahili   # cProfile, top 15

A variant whose module does not exist yet is reported as skipped.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.rules import VARIANTS, Variant, get_variant


def playout_turns(variant: Variant, seconds: float, seed: int) -> tuple[int, int, float]:
    """Play random games for about ``seconds`` (wall clock, checked every 256 turns).

    Returns ``(turns, games_finished, elapsed_seconds)``.
    """
    rng = random.Random(seed)
    start = variant.initial_position()
    cap = variant.default_ply_cap
    position = start
    turns = games = 0
    began = time.perf_counter()
    deadline = began + seconds
    while True:
        moves = variant.legal_moves(position)
        if not moves or position.ply >= cap:
            games += 1
            position = start
            continue
        position = variant.apply(position, rng.choice(moves))
        turns += 1
        if turns & 255 == 0 and time.perf_counter() >= deadline:
            break
    return turns, games, time.perf_counter() - began


def turns_by_stage(variant: Variant, seconds: float, seed: int) -> dict[str, tuple[int, float]]:
    """The same playouts, timing each turn: ``{stage: (turns, seconds)}`` for positions that
    have a ``stage`` (Bao: ``"n"`` namua, ``"m"`` mtaji). Slightly slower than
    ``playout_turns`` because of the clock reads."""
    rng = random.Random(seed)
    start = variant.initial_position()
    cap = variant.default_ply_cap
    position = start
    totals: dict[str, list[float]] = {}
    clock = time.perf_counter
    deadline = clock() + seconds
    turns = 0
    while True:
        stage = getattr(position, "stage", "-")
        t0 = clock()
        moves = variant.legal_moves(position)
        if not moves or position.ply >= cap:
            position = start
            continue
        position = variant.apply(position, rng.choice(moves))
        entry = totals.setdefault(stage, [0, 0.0])
        entry[0] += 1
        entry[1] += clock() - t0
        turns += 1
        if turns & 255 == 0 and clock() >= deadline:
            break
    return {stage: (int(n), t) for stage, (n, t) in totals.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("variants", nargs="*", default=list(VARIANTS), help="variant ids")
    parser.add_argument("--seconds", type=float, default=3.0, help="run time per variant (s)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the move choices")
    parser.add_argument("--profile", action="store_true", help="print a cProfile summary")
    parser.add_argument(
        "--by-stage", action="store_true", help="also time namua and mtaji turns apart"
    )
    args = parser.parse_args(argv)
    for name in args.variants:
        try:
            variant = get_variant(name)
        except ModuleNotFoundError as error:
            print(f"{name:18s} skipped ({error})")
            continue
        if args.profile:
            profiler = cProfile.Profile()
            profiler.enable()
            turns, games, elapsed = playout_turns(variant, args.seconds, args.seed)
            profiler.disable()
        else:
            turns, games, elapsed = playout_turns(variant, args.seconds, args.seed)
        print(
            f"{variant.id:18s} {turns / elapsed:10,.0f} turns/s"
            f"  ({turns:,} turns, {games:,} games finished, {elapsed:.2f} s, seed {args.seed})"
        )
        if args.profile:
            pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
        elif args.by_stage:
            for stage, (count, spent) in sorted(
                turns_by_stage(variant, args.seconds, args.seed).items()
            ):
                print(f"{'':18s} stage {stage}: {count / spent:10,.0f} turns/s ({count:,} turns)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
