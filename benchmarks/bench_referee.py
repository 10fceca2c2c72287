"""Referee costs against their floors, in one run (prints figures; asserts nothing).

Two tables, per sandbox mode (``--modes``):

**Per move.** Two copies of an instant engine replay a fixed game (both sides play the first
legal move, the move list precomputed with ``arena.rules`` and baked into the engine script, so
the engine does no rules work at all). Each engine reports its own think time (``go`` read to
``bestmove`` written: from the read that brought ``position``, ``isready`` and ``go`` to the
reply being put together, so its own parsing of the ``position`` line is not counted as the
referee's) as ``info string think_ns <n>``. Overhead per move = wall time of one ply
in the referee loop (from the previous ``move`` event to this one: stderr check, the one write
of ``position``/``isready``/``go``, reading ``readyok`` and the reply, clock, parsing, legality,
applying the move, the record) minus the engine's reported think time. Its floor is **one pipe
round trip** to the same engine process (``isready`` written, ``readyok`` read, through the same
``PipeTransport``), measured in the same run: no move can cost less. The first ply of each game
also pays the resync and ``newgame`` and is left out (it is in games/s). Referee and engines
are pinned to one CPU.

**Per match.** The fixed cost of a match: a best-of-three between two instant engines with a
ply cap of 2, minus its plies (each at the median ply time of the table above): engine starts,
handshakes, ``newgame`` and resyncs, ``quit`` and clean-up. Its floor is two bare interpreter
starts with the SDK imported, one after the other (``python3 -c 'import engines.sdk'``, no
sandbox), measured alternately with the matches so both see the same load. Not pinned: a
worker has every core of its machine.

Usage::

    python benchmarks/bench_referee.py [--games 40] [--matches 15]
        [--variants bao-kingulu,bao-la-kete] [--modes off,auto] [--profile N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.referee import (  # noqa: E402
    CpuBudget,
    EngineSlot,
    PipeTransport,
    RefereeConfig,
    TimeControl,
    play_game,
    play_match,
)
from arena.referee.events import MovePlayed, RefereeEvent  # noqa: E402
from arena.rules import get_variant  # noqa: E402

ENGINE = """#!/usr/bin/env python3
import os, sys, time
MOVES = {moves!r}
n = 0
buf = b""
# Everything that came in one read is answered in one write, as an engine that flushes when
# its input is drained does (per line flushing costs a second wakeup per move: see the docs).
while True:
    chunk = os.read(0, 65536)
    t = time.perf_counter_ns()  # the go is read: what follows is the engine's own time
    if not chunk:
        break
    lines = (buf + chunk).split(b"\\n")
    buf = lines.pop()
    out = []
    for line in lines:
        if line.startswith(b"go"):
            think_ns = time.perf_counter_ns() - t
            out.append(b"info string think_ns %d\\nbestmove %s\\n" % (think_ns, MOVES[n]))
        elif line.startswith(b"isready"):
            out.append(b"readyok\\n")
        elif line.startswith(b"position"):
            words = line.split()
            n = len(words) - 3 if len(words) > 2 else 0
        elif line.startswith(b"bep"):
            import engines.sdk  # what a real engine pays at start-up
            out.append(b"id name instant\\nid author bench\\nvariant {variant}\\nbepok\\n")
        elif line.startswith(b"quit"):
            sys.exit(0)
    if out:
        os.write(1, b"".join(out))
"""
#: The floor of one engine start: a bare interpreter importing the SDK (and the rules).
FLOOR_ARGV = ["/usr/bin/python3", "-c", "import engines.sdk"]


def first_move_game(variant_id: str) -> list[str]:
    game = get_variant(variant_id).new_game()
    while not game.is_over:
        game.play(game.legal_moves()[0])
    return [str(m) for m in game.moves]


def engine_package(variant_id: str, mode: str, work: Path, use: str) -> Any:
    from engines.package import load_engine

    script = work / f"instant-{variant_id}.py"
    moves = [m.encode() for m in first_move_game(variant_id)]
    script.write_text(ENGINE.format(moves=moves, variant=variant_id))
    script.chmod(0o755)
    return load_engine(script, unpack_dir=work / f"pkg-{variant_id}-{mode}-{use}")


def round_trip_us(slot: EngineSlot, count: int = 2000) -> float:
    """Median µs of ``isready`` written -> ``readyok`` read over the slot's own pipe."""
    assert slot.process is not None
    transport = PipeTransport.for_process(slot.process)
    samples = []
    for _ in range(count):
        t0 = time.perf_counter_ns()
        transport.write_line("isready")
        result = transport.read_line(time.monotonic_ns() + 5_000_000_000)
        samples.append((time.perf_counter_ns() - t0) / 1000)
        assert result.line == "readyok", result
    return statistics.median(samples)


def exchange_us(slot: EngineSlot, variant_id: str, count: int = 2000) -> float:
    """Median µs of one bare move exchange over the slot's own pipe: ``position`` (the first
    half of the fixed game), ``isready`` and ``go`` in one write, then ``readyok``, ``info``
    and ``bestmove`` read through the same ``PipeTransport``; no client, clock, rules or
    record. The protocol's own floor for a move (the engine's larger reply included)."""
    assert slot.process is not None
    transport = PipeTransport.for_process(slot.process)
    moves = first_move_game(variant_id)
    command = (
        f"position startpos moves {' '.join(moves[: len(moves) // 2])}\nisready\n"
        "go stime 600000 ntime 600000 sinc 0 ninc 0"
    )
    samples = []
    for _ in range(count):
        t0 = time.perf_counter_ns()
        transport.write_line(command)
        deadline = time.monotonic_ns() + 5_000_000_000
        lines = [transport.read_line(deadline).line for _ in range(3)]
        samples.append((time.perf_counter_ns() - t0) / 1000)
        assert lines[0] == "readyok" and str(lines[2]).startswith("bestmove"), lines
    return statistics.median(samples)


def measure_moves(
    variant_id: str,
    mode: str,
    games: int,
    work: Path,
    memory_cap_bytes: int | None = RefereeConfig.memory_cap_bytes,
) -> dict[str, Any]:
    """Per-move figures; ``memory_cap_bytes`` None runs without the watchdog (no CPU budget
    either: ``benchmarks/bench_watchdog.py`` compares both)."""
    from engines.sandbox import SandboxConfig

    pkg = engine_package(variant_id, mode, work, f"moves-{memory_cap_bytes}")
    config = RefereeConfig(
        sandbox=SandboxConfig(mode=mode),
        ready_timeout_ms=5000,
        grace_ms=1000,
        memory_cap_bytes=memory_cap_bytes,
        cpu_budget=None if memory_cap_bytes is None else CpuBudget(),
    )
    slots = (EngineSlot(pkg, "a", config), EngineSlot(pkg, "b", config))
    stamps: list[tuple[str, int]] = []

    def on_event(event: RefereeEvent) -> None:
        stamps.append((event.kind, time.monotonic_ns()))

    tc = TimeControl.parse("600+0")
    overhead_us: list[float] = []
    ply_us: list[float] = []
    think_us: list[float] = []
    try:
        play_game(variant_id, slots[0], slots[1], tc, config)  # warm-up: process start, handshake
        rtt = round_trip_us(slots[0])
        exchange = exchange_us(slots[0], variant_id)
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
                think = int(record.moves[k].info[0].split()[-1]) / 1000
                ply_us.append((moves[k][1] - moves[k - 1][1]) / 1000)
                overhead_us.append(ply_us[-1] - think)
                think_us.append(think)
        elapsed = (time.monotonic_ns() - t0) / 1e9
        actual_mode = slots[0].process.mode
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
        "rtt_us": rtt,
        "exchange_us": exchange,
        "ply_us": statistics.median(ply_us),
        "engine_us": statistics.median(think_us),
        "games_per_s": games / elapsed,
    }


def profile_moves(variant_id: str, mode: str, games: int, work: Path, top: int) -> None:
    """cProfile of the referee over ``games`` per-move games; prints the ``top`` functions by
    own time, in µs per ply (inflated by the profiler; the proportions are what count)."""
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    plies = 0

    def count(event: RefereeEvent) -> None:
        nonlocal plies
        plies += isinstance(event, MovePlayed)

    from engines.sandbox import SandboxConfig

    pkg = engine_package(variant_id, mode, work, "profile")
    config = RefereeConfig(sandbox=SandboxConfig(mode=mode), ready_timeout_ms=5000, grace_ms=1000)
    slots = (EngineSlot(pkg, "a", config), EngineSlot(pkg, "b", config))
    tc = TimeControl.parse("600+0")
    try:
        play_game(variant_id, slots[0], slots[1], tc, config)  # warm-up
        profiler.enable()
        for i in range(games):
            play_game(variant_id, slots[i % 2], slots[1 - i % 2], tc, config, on_event=count)
        profiler.disable()
    finally:
        for slot in slots:
            slot.close()
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    rows = sorted(
        (
            (tt, nc, f"{Path(fn).name}:{line}({name})")
            for (fn, line, name), (_, nc, tt, _, _) in stats.items()
        ),
        reverse=True,
    )
    print(f"\nprofile, {variant_id} {mode}, {plies} plies: own time per ply (us), calls per ply")
    for tt, nc, where in rows[:top]:
        print(f"{tt * 1e6 / plies:9.2f} {nc / plies:7.2f}  {where}")
    play_us, text_us = rules_cpu_us(variant_id)
    print(
        f"rules engine without the profiler, CPU per ply of the fixed game: Game.play "
        f"(legality, apply, outcome) {play_us:.1f} us, position text {text_us:.1f} us"
    )


def rules_cpu_us(variant_id: str, rounds: int = 50) -> tuple[float, float]:
    """CPU µs per ply (best of 5) of what the referee asks the rules engine for each move of the
    fixed game: ``Game.play`` of the parsed token, and ``to_text`` of the position after it."""
    v = get_variant(variant_id)
    moves = first_move_game(variant_id)

    def play() -> list[Any]:
        positions = []
        for _ in range(rounds):
            game = v.new_game(ply_cap=len(moves) + 1)
            positions = [game.play(v.parse_move(m)) for m in moves]
        return positions

    def best(fn: Any) -> float:
        times = []
        for _ in range(5):
            t0 = time.thread_time_ns()
            fn()
            times.append((time.thread_time_ns() - t0) / (rounds * len(moves)) / 1000)
        return min(times)

    positions = play()
    return best(play), best(lambda: [[p.to_text() for p in positions] for _ in range(rounds)])


def floor_ms() -> float:
    """Two bare interpreter starts with the SDK imported, one after the other (ms)."""
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    for _ in range(2):
        subprocess.run(FLOOR_ARGV, env=env, check=True)
    return (time.perf_counter() - t0) * 1e3


def measure_match(
    variant_id: str, mode: str, matches: int, ply_us: float, work: Path
) -> dict[str, Any]:
    from engines.sandbox import SandboxConfig

    pkg = engine_package(variant_id, mode, work, "match")
    config = RefereeConfig(sandbox=SandboxConfig(mode=mode), ply_cap=2, grace_ms=1000)
    tc = TimeControl.parse("600+0")
    fixed, floors, games = [], [], []
    play_match(pkg, pkg, variant_id, tc, 1, config)  # warm-up (page cache, probe)
    for seed in range(matches):
        floors.append(floor_ms())
        t0 = time.perf_counter()
        record = play_match(pkg, pkg, variant_id, tc, seed, config)
        wall = (time.perf_counter() - t0) * 1e3
        assert not record.aborted, record.games[-1].detail
        plies = sum(g.plies for g in record.games)
        fixed.append(wall - plies * ply_us / 1000)
        games.append(len(record.games))
    return {
        "fixed_ms": statistics.median(fixed),
        "floor_ms": statistics.median(floors),
        "games": statistics.median(games),
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=40)
    p.add_argument("--matches", type=int, default=15)
    p.add_argument("--variants", default="bao-kingulu,bao-la-kete")
    p.add_argument("--modes", default="off,auto")
    p.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="N",
        help="after the per-move table, profile "
        "the referee (cProfile) over --games more games of the first variant and mode and "
        "print its N most expensive functions per ply (own time, profiler overhead included)",
    )
    p.add_argument(
        "--cpu",
        type=int,
        default=None,
        help="CPU to pin the per-move table to (default: the "
        "first allowed; -1: not pinned, referee and engines on any core)",
    )
    args = p.parse_args()
    allowed = os.sched_getaffinity(0)
    cpu = args.cpu if args.cpu is not None else min(allowed)
    work = Path(tempfile.mkdtemp(prefix="bao-bench-referee-"))
    os.chmod(work, 0o755)
    with open("/proc/loadavg") as fh:
        load = " ".join(fh.read().split()[:3])
    print(f"load average before: {load}; {os.cpu_count()} CPUs")
    ply_us: dict[str, float] = {}
    try:
        if cpu >= 0:
            os.sched_setaffinity(0, {cpu})  # engines inherit it: everything shares one core
        where = f"one core (cpu {cpu})" if cpu >= 0 else f"not pinned, {len(allowed)} cores"
        print(f"\nper move, {where}, {args.games} games each; target: overhead <= 1.5 x round trip")
        print(
            f"{'variant':18} {'sandbox':8} {'plies':>5} {'overhead us':>11} {'p90 us':>7} "
            f"{'round trip us':>13} {'ratio':>6} {'exchange us':>11} {'engine us':>9} "
            f"{'games/s':>8}"
        )
        for variant_id in args.variants.split(","):
            for mode in args.modes.split(","):
                r = measure_moves(variant_id, mode, args.games, work)
                ply_us[f"{variant_id}/{mode}"] = r["ply_us"]
                print(
                    f"{r['variant']:18} {r['mode']:8} {r['plies_per_game']:5d} "
                    f"{r['median_us']:11.0f} {r['p90_us']:7.0f} {r['rtt_us']:13.1f} "
                    f"{r['median_us'] / r['rtt_us']:6.2f} {r['exchange_us']:11.1f} "
                    f"{r['engine_us']:9.1f} "
                    f"{r['games_per_s']:8.1f}",
                    flush=True,
                )
        if args.profile:
            profile_moves(
                args.variants.split(",")[0],
                args.modes.split(",")[0],
                args.games,
                work,
                args.profile,
            )
        os.sched_setaffinity(0, allowed)
        print(
            f"\nper match (ply cap 2), all {len(allowed)} cores, median of {args.matches}; "
            "target: fixed cost <= 1.3 x floor"
        )
        print(
            f"{'variant':18} {'sandbox':8} {'games':>5} {'fixed ms':>9} {'floor ms':>9} "
            f"{'ratio':>6}"
        )
        for variant_id in args.variants.split(",")[:1]:
            for mode in args.modes.split(","):
                m = measure_match(
                    variant_id, mode, args.matches, ply_us[f"{variant_id}/{mode}"], work
                )
                print(
                    f"{variant_id:18} {mode:8} {m['games']:5.0f} {m['fixed_ms']:9.1f} "
                    f"{m['floor_ms']:9.1f} {m['fixed_ms'] / m['floor_ms']:6.2f}",
                    flush=True,
                )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    with open("/proc/loadavg") as fh:
        print(f"load average after: {' '.join(fh.read().split()[:3])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
