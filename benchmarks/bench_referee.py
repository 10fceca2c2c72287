"""Referee overhead per move and games per second, sandboxed and not (prints figures).

Two copies of an instant engine replay a fixed game (both sides play the first legal move, the
move list precomputed with ``arena.rules`` and baked into the engine script, so the engine does
no rules work at all). Each engine reports its own think time (``go`` read to ``bestmove``
written) as ``info string think_us <n>``.

Overhead per move = wall time of one ply in the referee loop (from the previous ``move`` event
to this one: stderr check, ``isready``/``readyok`` round trip, ``position`` + ``go``, reading the
reply, clock, parsing, legality check, applying the move, the record) minus the engine's reported
think time. So it includes both pipe round trips and the engine's own line handling, which is
the cost a real match pays per move besides thinking. The first ply of each game also pays the
resync and ``newgame`` and is left out of the per-move figures (it is in games/s).

Memory watchdog: with ``--watchdog off,on`` every configuration runs without and with the
referee's memory watchdog (``RefereeConfig.memory_cap_bytes``: one thread per engine sampling
every 20 ms), so the difference of the medians is the watchdog's overhead per move; the cost
of one sample (``EngineProcess.memory_bytes()`` of an idle engine) is printed too.

Everything (referee and engines) is pinned to one CPU. Usage::

    python benchmarks/bench_referee.py [--games 40] [--variants bao-kingulu,bao-la-kete]
        [--modes off,auto] [--watchdog off,on]
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
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.referee import EngineSlot, RefereeConfig, TimeControl, play_game
from arena.rules import get_variant

ENGINE = '''#!/usr/bin/env python3
import sys, time
MOVES = {moves!r}
out = sys.stdout
n = 0
for line in sys.stdin:
    if line.startswith("go"):
        t = time.perf_counter_ns()
        think_us = (time.perf_counter_ns() - t) // 1000
        out.write("info string think_us %d\\nbestmove %s\\n" % (think_us, MOVES[n]))
        out.flush()
    elif line.startswith("isready"):
        out.write("readyok\\n"); out.flush()
    elif line.startswith("position"):
        words = line.split()
        n = len(words) - 3 if len(words) > 2 else 0
    elif line.startswith("bep"):
        out.write("id name instant\\nid author bench\\nvariant {variant}\\nbepok\\n"); out.flush()
    elif line.startswith("quit"):
        break
'''


def first_move_game(variant_id: str) -> list[str]:
    game = get_variant(variant_id).new_game()
    while not game.is_over:
        game.play(game.legal_moves()[0])
    return [str(m) for m in game.moves]


def measure(variant_id: str, mode: str, games: int, work: Path, watchdog: bool) -> dict[str, Any]:
    from engines.package import load_engine
    from engines.sandbox import SandboxConfig

    script = work / f"instant-{variant_id}.py"
    script.write_text(ENGINE.format(moves=first_move_game(variant_id), variant=variant_id))
    script.chmod(0o755)
    pkg = load_engine(script, unpack_dir=work / f"pkg-{variant_id}-{mode}-{watchdog}")
    config = RefereeConfig(
        sandbox=SandboxConfig(mode=mode),
        ready_timeout_ms=5000,
        grace_ms=1000,
        memory_cap_bytes=(1 << 30) if watchdog else None,
    )
    slots = (EngineSlot(pkg, "a", config), EngineSlot(pkg, "b", config))
    stamps: list[tuple[str, int]] = []

    def on_event(event: dict[str, Any]) -> None:
        stamps.append((event["event"], time.monotonic_ns()))

    tc = TimeControl.parse("600+0")
    overhead_us: list[float] = []
    try:
        started = time.monotonic_ns()
        play_game(variant_id, slots[0], slots[1], tc, config)  # warm-up: process start, handshake
        startup_ms = (time.monotonic_ns() - started) / 1e6
        plies = 0
        t0 = time.monotonic_ns()
        for i in range(games):
            stamps.clear()
            record = play_game(
                variant_id, slots[i % 2], slots[1 - i % 2], tc, config, on_event=on_event
            )
            assert record.termination in ("score", "bao_hamna", "no_legal_move"), record.detail
            moves = [s for s in stamps if s[0] == "move"]
            plies += len(moves)
            for k in range(1, len(moves)):
                think = int(record.moves[k].info[0].split()[-1])
                overhead_us.append((moves[k][1] - moves[k - 1][1]) / 1000 - think)
        elapsed = (time.monotonic_ns() - t0) / 1e9
        actual_mode = slots[0].process.mode
        samples = [slot.watchdog.samples for slot in slots if slot.watchdog is not None]
        sample_us = _sample_cost_us(slots[0].process)
    finally:
        for slot in slots:
            slot.close()
    overhead_us.sort()
    return {
        "variant": variant_id,
        "mode": actual_mode,
        "plies_per_game": plies // games,
        "median_us": statistics.median(overhead_us),
        "p90_us": overhead_us[int(0.9 * (len(overhead_us) - 1))],
        "games_per_s": games / elapsed,
        "moves_per_s": plies / elapsed,
        "first_game_ms": startup_ms,
        "watchdog": "on" if watchdog else "off",
        "samples_per_s": sum(samples) / elapsed if samples else 0.0,
        "sample_us": sample_us,
    }


def _sample_cost_us(process: Any, n: int = 200) -> float:
    """Median wall time of one ``memory_bytes()`` (what the watchdog does every 20 ms)."""
    costs = []
    for _ in range(n):
        t = time.perf_counter_ns()
        process.memory_bytes()
        costs.append((time.perf_counter_ns() - t) / 1000)
    return statistics.median(costs)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=40)
    p.add_argument("--variants", default="bao-kingulu,bao-la-kete")
    p.add_argument("--modes", default="off,auto")
    p.add_argument("--watchdog", default="off,on", help="run without and/or with the watchdog")
    p.add_argument(
        "--cpu", type=int, default=None, help="CPU to pin to (default: the first allowed)"
    )
    args = p.parse_args()
    cpu = args.cpu if args.cpu is not None else min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})  # engines inherit it: everything shares one core
    work = Path(tempfile.mkdtemp(prefix="bao-bench-referee-"))
    os.chmod(work, 0o755)
    print(f"referee overhead per move (wall per ply minus engine think), one core (cpu {cpu}), "
          f"{args.games} games each; target: median < 200 us")
    print(f"{'variant':18} {'sandbox':8} {'watchdog':8} {'plies':>5} {'median us':>10} "
          f"{'p90 us':>8} {'games/s':>8} {'moves/s':>8} {'1st game ms':>11} {'samples/s':>9} "
          f"{'us/sample':>9}")
    try:
        for variant_id in args.variants.split(","):
            for mode in args.modes.split(","):
                for dog in args.watchdog.split(","):
                    r = measure(variant_id, mode, args.games, work, dog == "on")
                    print(
                        f"{r['variant']:18} {r['mode']:8} {r['watchdog']:8} "
                        f"{r['plies_per_game']:5d} {r['median_us']:10.0f} {r['p90_us']:8.0f} "
                        f"{r['games_per_s']:8.1f} {r['moves_per_s']:8.0f} "
                        f"{r['first_game_ms']:11.1f} {r['samples_per_s']:9.0f} "
                        f"{r['sample_us']:9.0f}",
                        flush=True,
                    )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
