"""What the starters and bundled engines spend of the CPU, for the CPU budget (``cpu_limit``).

Each engine plays one game of ``--variant`` against the bundled ``--opponent`` (``search``) at
``--tc`` in the real sandbox (``auto``), without a CPU budget. A sampler reads its
``EngineProcess`` every 20 ms: CPU seconds (all processes, ``cpu_seconds()``) and threads
(``Threads:`` of ``/proc/<pid>/status``, summed over the tree, as ``RLIMIT_NPROC`` counts them;
bubblewrap's outer process, one, included). Printed per engine: CPU at the end of the handshake
(start-up), CPU and wall of the whole life, their ratio (cores on average), the largest ``cpu -
factor * wall`` seen (the allowance this engine needs at ``--factor``), and the peak thread
count. The starters' packages are the ``engine.zip`` of ``make -C engines/examples/<name>
package`` (built first if missing). Usage::

    python benchmarks/bench_engine_cpu.py [--tc 10+0.1] [--variant bao-la-kiswahili]
        [--factor 1.25] [--opponent search] [engine names...]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.referee import EngineSlot, RefereeConfig, TimeControl, play_game  # noqa: E402
from engines.package import EnginePackage, load_engine  # noqa: E402
from engines.sandbox import SandboxConfig  # noqa: E402
from engines.sandbox.memory import tree_pids  # noqa: E402

EXAMPLES = ROOT / "engines" / "examples"
BUNDLED = ROOT / "engines" / "bundled"


def threads(pid: int) -> int:
    total = 0
    for each in tree_pids(pid):
        try:
            with open(f"/proc/{each}/status", "rb") as handle:
                for line in handle:
                    if line.startswith(b"Threads:"):
                        total += int(line.split()[1])
        except OSError:
            continue
    return total


class Sampler(threading.Thread):
    def __init__(self, slot: EngineSlot, factor: float) -> None:
        super().__init__(daemon=True)
        self.slot, self.factor = slot, factor
        self.done = threading.Event()
        self.began = 0.0
        self.cpu = self.wall = self.need = 0.0
        self.peak_threads = 0

    def run(self) -> None:
        while not self.done.wait(0.02):
            process: Any = self.slot.process
            if process is None:
                continue
            if not self.began:
                self.began = time.monotonic()
            cpu = process.cpu_seconds()
            self.cpu, self.wall = cpu, time.monotonic() - self.began
            self.need = max(self.need, cpu - self.factor * self.wall)
            self.peak_threads = max(self.peak_threads, threads(process.pid))


def package_of(name: str, unpack: Path) -> EnginePackage:
    if (BUNDLED / name).is_file():
        return load_engine(BUNDLED / name)
    archive = EXAMPLES / name / "engine.zip"
    if not archive.exists():
        subprocess.run(["make", "-C", str(EXAMPLES / name), "package"], check=True)
    return load_engine(archive, unpack_dir=unpack / name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tc", default="10+0.1")
    parser.add_argument("--variant", default="bao-la-kiswahili")
    parser.add_argument("--factor", type=float, default=1.25)
    parser.add_argument("--opponent", default="search", help="a bundled engine")
    starters = sorted(p.parent.name for p in EXAMPLES.glob("*/Makefile"))
    default = [*sorted(p.name for p in BUNDLED.iterdir() if p.is_file()), *starters]
    parser.add_argument("engines", nargs="*", default=default)
    args = parser.parse_args()
    config = RefereeConfig(sandbox=SandboxConfig(mode="auto"), cpu_budget=None)
    unpack = Path(tempfile.mkdtemp(prefix="bench-cpu-"))
    os.chmod(unpack, 0o755)
    print(
        f"{args.variant} at {args.tc} against {args.opponent}; allowance needed at "
        f"{args.factor} x wall"
    )
    print(
        f"{'engine':8} {'start cpu s':>11} {'cpu s':>6} {'wall s':>6} {'cores':>5} "
        f"{'needs s':>7} {'threads':>7}  result"
    )
    try:
        for name in args.engines:
            south = EngineSlot(package_of(name, unpack), name, config)
            north = EngineSlot(load_engine(BUNDLED / args.opponent), args.opponent, config)
            sampler = Sampler(south, args.factor)
            sampler.start()
            try:
                south.launch()
                south.prepare(args.variant)
                start_cpu = south.process.cpu_seconds()  # type: ignore[union-attr]
                record = play_game(args.variant, south, north, TimeControl.parse(args.tc), config)
            finally:
                sampler.done.set()
                sampler.join()
                south.close()
                north.close()
            ratio = sampler.cpu / sampler.wall if sampler.wall else 0.0
            print(
                f"{name:8} {start_cpu:11.2f} {sampler.cpu:6.2f} {sampler.wall:6.1f} "
                f"{ratio:5.2f} {sampler.need:7.2f} {sampler.peak_threads:7d}  "
                f"{record.result} {record.termination}"
            )
    finally:
        shutil.rmtree(unpack, ignore_errors=True)


if __name__ == "__main__":
    main()
