"""Speed of Swiss pairing (FIDE Dutch, ``tournaments.dutch``): ms to pair one round.

For each field size a simulated Swiss (``tournaments.formats.simulate``, seeded) is played for
the given number of rounds (default ceil(log2 n) + 2, at most n - 1), and the time of each
``Swiss.next_round`` call (scores and colour histories, the bye candidates, one matching per
score bracket unless the bracket procedure's first candidate is already at its best, the
completability checks) is measured. Prints, per field size, rounds paired, mean, median and
worst ms per round. The target (issue 31) is under 1 s a round at 200 engines.

    .venv/bin/python benchmarks/bench_swiss.py                    # 40, 100, 200 engines
    .venv/bin/python benchmarks/bench_swiss.py --players 40 --rounds 39

Single-threaded, pure Python (networkx's blossom matching); no database.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# After the path insert: the benchmark runs as a plain script from any directory.
from tournaments.formats import swiss as swiss_module  # noqa: E402
from tournaments.formats.simulate import simulate_swiss  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="*", default=[40, 100, 200])
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print("players rounds  mean ms/round  median ms/round  worst ms/round")
    original = swiss_module.Swiss.next_round
    for n in args.players:
        times: list[float] = []

        def timed(self, field, history, _times=times):  # type: ignore[no-untyped-def]
            start = time.perf_counter()
            try:
                return original(self, field, history)
            finally:
                _times.append((time.perf_counter() - start) * 1000)

        swiss_module.Swiss.next_round = timed  # type: ignore[method-assign]
        try:
            rounds = args.rounds or min(n - 1, math.ceil(math.log2(n)) + 2)
            sim = simulate_swiss(n, min(rounds, n - 1), args.seed)
        finally:
            swiss_module.Swiss.next_round = original  # type: ignore[method-assign]
        paired = times[: len(sim.rounds)]
        mean, median = statistics.mean(paired), statistics.median(paired)
        print(f"{n:>7} {len(sim.rounds):>6} {mean:>14.1f} {median:>16.1f} {max(paired):>15.1f}")


if __name__ == "__main__":
    main()
