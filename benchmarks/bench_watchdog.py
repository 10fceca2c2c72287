"""The memory watchdog's cost: referee overhead per move without and with it, and one sample.

The referee's memory watchdog (``arena/referee/watchdog.py``) is one thread per engine that
asks ``EngineProcess.memory_bytes()`` every 20 ms. This runs ``bench_referee.measure_moves``
(two instant engines, one core) alternately without the watchdog (``memory_cap_bytes=None``)
and with it (1 GiB), ``--rounds`` times each, and prints the medians: their difference is the
watchdog's overhead per move. Then it times ``memory_bytes()`` of an idle engine (what one
sample costs). Usage::

    python benchmarks/bench_watchdog.py [--games 20] [--rounds 3] [--variant bao-la-kete]
        [--mode auto]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_referee import engine_package, measure_moves


def sample_cost_us(variant_id: str, mode: str, work: Path, count: int = 300) -> float:
    """Median wall time of one ``memory_bytes()`` of an engine waiting for input (us)."""
    from engines.sandbox import SandboxConfig, start_engine

    process = start_engine(engine_package(variant_id, mode, work, "sample"), SandboxConfig(mode))
    try:
        time.sleep(0.3)  # past the sandbox's set-up
        costs = []
        for _ in range(count):
            t0 = time.perf_counter_ns()
            process.memory_bytes()
            costs.append((time.perf_counter_ns() - t0) / 1000)
        return statistics.median(costs)
    finally:
        process.kill()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--variant", default="bao-la-kete")
    p.add_argument("--mode", default="auto")
    args = p.parse_args()
    cpu = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    work = Path(tempfile.mkdtemp(prefix="bao-bench-watchdog-"))
    os.chmod(work, 0o755)
    results: dict[str, list[float]] = {"off": [], "on": []}
    try:
        for n in range(args.rounds):
            for dog, cap in (("off", None), ("on", 1 << 30)):
                here = work / f"round-{n}"  # each round unpacks its engines afresh
                here.mkdir(mode=0o755, exist_ok=True)
                r = measure_moves(args.variant, args.mode, args.games, here, memory_cap_bytes=cap)
                results[dog].append(r["median_us"])
        cost = sample_cost_us(args.variant, args.mode, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    off, on = statistics.median(results["off"]), statistics.median(results["on"])
    print(
        f"referee overhead per move, {args.variant}, sandbox {args.mode}, one core (cpu {cpu}), "
        f"median of {args.rounds} rounds of {args.games} games"
    )
    for dog, median in (("off", off), ("on", on)):
        rounds = ", ".join(f"{x:.0f}" for x in results[dog])
        print(f"  watchdog {dog + ':':4} {median:7.1f} us   (rounds: {rounds})")
    print(f"  difference:   {on - off:+7.1f} us per move")
    print(
        f"one sample (memory_bytes of an idle engine): {cost:.0f} us; every 20 ms that is "
        f"{cost / 20_000:.1%} of a core per engine"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
