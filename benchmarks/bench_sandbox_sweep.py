"""What the sweep of orphaned engine uids (``engines.sandbox.procs.sweep_orphans``) costs per
run of the requeue job: a lock directory of N files (default 4096, every uid of the range), all
clean, then with some dirty and free (each one scanned in /proc; no process is left under them,
so nothing is killed). Prints median and worst milliseconds over the runs.

Usage: python benchmarks/bench_sandbox_sweep.py [--files 4096] [--dirty 1] [--runs 20]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines.sandbox.procs import CLEAN, sweep_orphans

BASE = 2100000 + 4096 + 100  # outside the leased range: no engine runs under these uids


def timed(lock_dir: Path, runs: int, dirty: int) -> list[float]:
    ms = []
    for _ in range(runs):
        for i in range(dirty):  # a holder died: dirty again before every run
            (lock_dir / str(BASE + i)).write_bytes(b"")
        t0 = time.perf_counter()
        sweep_orphans(lock_dir)
        ms.append((time.perf_counter() - t0) * 1e3)
    return ms


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=4096)
    parser.add_argument("--dirty", type=int, default=1)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        lock_dir = Path(tmp)
        for i in range(args.files):
            (lock_dir / str(BASE + i)).write_bytes(CLEAN)
        for dirty in (0, args.dirty):
            ms = timed(lock_dir, args.runs, dirty)
            print(
                f"{args.files} lock files, {dirty} dirty: median {statistics.median(ms):.2f} ms,"
                f" worst {max(ms):.2f} ms ({args.runs} runs)"
            )


if __name__ == "__main__":
    main()
