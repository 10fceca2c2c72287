"""How long starting an engine takes in each sandbox mode (ms), and how long kill() takes.

Prints, per mode: spawn (start_engine returns), first line (a /bin/sh engine printing one line:
the sandbox's own cost) and python first line (python3 importing arena.rules, then printing),
each as median / p90 over ``--runs`` starts, then kill() (median).

    .venv/bin/python benchmarks/sandbox_start.py [--runs 20]
"""

from __future__ import annotations

import argparse
import os
import select
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines.package import EnginePackage
from engines.sandbox import SandboxConfig, probe, start_engine


def first_line_ms(package: EnginePackage, mode: str) -> tuple[float, float, float]:
    t0 = time.perf_counter()
    engine = start_engine(package, SandboxConfig(mode=mode))
    t1 = time.perf_counter()
    buf = b""
    while b"\n" not in buf:
        if not select.select([engine.stdout_fd], [], [], 10)[0]:
            raise SystemExit(f"{mode}: no output in 10 s; stderr: {engine.stderr_tail()}")
        chunk = os.read(engine.stdout_fd, 4096)
        if not chunk:
            raise SystemExit(f"{mode}: engine exited; stderr: {engine.stderr_tail()}")
        buf += chunk
    t2 = time.perf_counter()
    engine.kill()
    t3 = time.perf_counter()
    return (t1 - t0) * 1e3, (t2 - t0) * 1e3, (t3 - t2) * 1e3


def summary(values: list[float]) -> str:
    values = sorted(values)
    p90 = values[min(len(values) - 1, int(0.9 * len(values)))]
    return f"{statistics.median(values):7.1f} / {p90:7.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    found = probe()
    root = Path(tempfile.mkdtemp(prefix="bao-bench-"))
    os.chmod(root, 0o755)
    try:
        (root / "hello.sh").write_text("#!/bin/sh\necho ready\nread line\n")
        (root / "hello.py").write_text("import arena.rules\nprint('ready', flush=True)\ninput()\n")
        os.chmod(root / "hello.sh", 0o755)
        shell = EnginePackage("sh", root, ("./hello.sh",))
        python = EnginePackage("py", root, ("python3", "hello.py"))
        print(
            f"probe: root={found.root} bwrap={'ok' if found.bwrap_ok else found.bwrap_reason} "
            f"unshare={'ok' if found.unshare_ok else found.unshare_reason}"
        )
        print(f"runs per figure: {args.runs}; figures are median / p90 in ms")
        print(f"{'mode':9} {'spawn':>17} {'sh first line':>17} {'py first line':>17} {'kill':>9}")
        for mode in ("bwrap", "fallback", "off"):
            if mode == "bwrap" and not found.bwrap_ok:
                print(f"{mode:9} skipped: {found.bwrap_reason}")
                continue
            spawn, sh_line, py_line, kill = [], [], [], []
            for _ in range(args.runs):
                s, line, k = first_line_ms(shell, mode)
                spawn.append(s)
                sh_line.append(line)
                kill.append(k)
                py_line.append(first_line_ms(python, mode)[1])
            print(
                f"{mode:9} {summary(spawn):>17} {summary(sh_line):>17} {summary(py_line):>17} "
                f"{statistics.median(kill):9.1f}"
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
