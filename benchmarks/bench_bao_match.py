"""bao-match's speed, in one run (prints figures and ratios; asserts nothing).

Three ways to play the same games between two copies of the bundled ``search`` engine (one
core each while it thinks; ``--time movetime=MS`` makes it think about that long every move):

1. ``bao-match --concurrency 1``: one game at a time;
2. ``bao-match --concurrency 2``: two at once (on a 2-core machine, two one-core engines
   thinking at once; the target is at least 1.8 times the games per minute of 1);
3. a shell loop of ``python -m arena.referee`` (one best-of-three match per call: a new
   interpreter, engine starts and handshakes per match), the way matches were played locally
   before bao-match.

For each: wall time, games, games per minute, and the overhead per game beside the engines'
own time: ``(wall - engine time) / games`` at one game at a time, the engine time being the
sum of every move's ``time_ms`` (``go`` written to ``bestmove`` read) in the records. It
covers everything that is not an engine thinking: interpreter and engine starts, handshakes,
resyncs, the referee's per-ply work, writing the records. The load average is printed before
and after (the figures mean little on a busy machine).

Usage::

    python benchmarks/bench_bao_match.py [--games 16] [--time movetime=20]
        [--variant bao-la-kete] [--sandbox auto]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEARCH = str(ROOT / "engines" / "bundled" / "search")


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min), {os.cpu_count()} cores"


def _engine_ms(games: list[dict[str, object]]) -> int:
    return sum(int(m["time_ms"]) for g in games for m in g["moves"])  # type: ignore[attr-defined,call-overload]


def bao_match(args: argparse.Namespace, concurrency: int, work: Path) -> tuple[float, int, int]:
    """(wall s, games, engine ms) of one bao-match run."""
    out = work / f"bao-match-{concurrency}.jsonl"
    out.unlink(missing_ok=True)
    argv = [
        sys.executable, "-m", "arena.bao_match",
        "--engine", SEARCH, "--engine", SEARCH,
        "--variant", args.variant, "--time", args.time, "--games", str(args.games),
        "--concurrency", str(concurrency), "--sandbox", args.sandbox, "--out", str(out),
    ]  # fmt: skip
    began = time.monotonic()
    subprocess.run(argv, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    wall = time.monotonic() - began
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    games = [line for line in lines if "bao_match" not in line]  # the first: settings
    return wall, len(games), _engine_ms(games)


def referee_loop(args: argparse.Namespace, work: Path) -> tuple[float, int, int]:
    """(wall s, games, engine ms) of a shell loop of ``python -m arena.referee`` matches, as
    many as needed for ``args.games`` games (a match plays two or three)."""
    matches = max(1, args.games // 2)
    script = (
        f"for i in $(seq 1 {matches}); do "
        f'"{sys.executable}" -m arena.referee --variant {args.variant} '
        f'--engine "{SEARCH}" --engine "{SEARCH}" --time {args.time} --seed $i '
        f'--sandbox {args.sandbox} --json "{work}/referee-$i.json" > /dev/null || exit 1; done'
    )
    began = time.monotonic()
    subprocess.run(["bash", "-c", script], cwd=ROOT, check=True)
    wall = time.monotonic() - began
    games: list[dict[str, object]] = []
    for i in range(1, matches + 1):
        games += json.loads((work / f"referee-{i}.json").read_text())["games"]
    return wall, len(games), _engine_ms(games)


def _row(name: str, wall: float, games: int, engine_ms: int, concurrency: int) -> float:
    per_minute = 60 * games / wall
    line = f"{name:<34} {wall:7.1f} s  {games:4d} games  {per_minute:7.1f} games/min"
    if concurrency == 1:
        overhead = (wall * 1000 - engine_ms) / games
        line += f"  engines {engine_ms / games:7.0f} ms/game  overhead {overhead:6.0f} ms/game"
    print(line, flush=True)
    return per_minute


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--games", type=int, default=16, help="games per configuration")
    p.add_argument("--time", default="movetime=20")
    p.add_argument("--variant", default="bao-la-kete")
    p.add_argument("--sandbox", default="auto", choices=["auto", "bwrap", "fallback", "off"])
    args = p.parse_args()
    print(f"search vs search, {args.variant}, {args.time}, sandbox {args.sandbox}")
    print(f"before: {_load()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-bao-match-") as tmp:
        work = Path(tmp)
        one = _row("bao-match --concurrency 1", *bao_match(args, 1, work), 1)
        two = _row("bao-match --concurrency 2", *bao_match(args, 2, work), 2)
        loop = _row("shell loop of python -m arena.referee", *referee_loop(args, work), 1)
    print(f"after: {_load()}")
    print(f"concurrency 2 / concurrency 1: {two / one:.2f}x games per minute (target >= 1.8x)")
    print(f"bao-match (1 at a time) / referee loop: {one / loop:.2f}x games per minute")
    return 0


if __name__ == "__main__":
    sys.exit(main())
