"""500 viewers of one live game over Server-Sent Events (prints figures, asserts nothing).

Builds a throw-away SQLite database (``bench_ratings.throwaway_database``) with one running
match and its live game, starts a real ASGI server on it (``uvicorn arena.asgi:application``
on a free port, its own process), connects ``--viewers`` clients to
``GET /api/live/{id}/events`` (raw asyncio sockets, HTTP/1.1, one connection each), then
appends ``--moves`` moves of a seeded random playout as the worker's publisher does (each a
``move`` and a ``clock`` event in one INSERT, ``live_events_append``), one every
``--interval-ms``, and stamps each append: the moment of the engine's ``bestmove``. Prints

- the HTTP requests the web tier received while the moves were played, per second (the
  clients' requests: a reconnect would be one; the target is under 50/s for 500 viewers, and
  SSE makes it 0 after the connects), and the connect phase;
- the latency from each append to each viewer reading the move (p50/p95/max over every
  viewer and move; target: within 250 ms), and any move a viewer never got;
- the host's load average before and after.

Usage::

    python benchmarks/bench_live.py [--viewers 500] [--moves 40] [--interval-ms 200]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_ratings import throwaway_database

ROOT = Path(__file__).resolve().parent.parent

MOVE_RE = re.compile(rb'event: move\ndata: \{[^\n]*?"ply":(\d+),')


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (``/proc/PID/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def own_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Viewer:
    """One SSE client: the time each move's ply was read."""

    def __init__(self) -> None:
        self.got: dict[int, float] = {}
        self.requests = 0
        self.connected = asyncio.Event()

    async def watch(self, port: int, live_id: int, stop: asyncio.Event) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(
            f"GET /api/live/{live_id}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            "Accept: text/event-stream\r\n\r\n".encode()
        )
        self.requests += 1
        await writer.drain()
        buffer = b""
        while b"\r\n\r\n" not in buffer:
            buffer += await reader.read(65536)
        head, _, buffer = buffer.partition(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 200"):
            raise RuntimeError(head.decode(errors="replace"))
        self.connected.set()
        while not stop.is_set():
            try:
                chunk = await asyncio.wait_for(reader.read(65536), 0.5)
            except TimeoutError:
                continue
            if not chunk:
                break
            now = time.time()
            buffer += chunk
            last = 0
            for found in MOVE_RE.finditer(buffer):
                self.got.setdefault(int(found.group(1)), now)
                last = found.end()
            # Keep an unfinished frame's start for the next read.
            cut = buffer.rfind(b"\n\n")
            buffer = buffer[max(last, cut + 2 if cut >= 0 else 0) :]
        writer.close()


def setup_game() -> tuple[int, int, list[dict[str, object]]]:
    """One running match of two engines and its live game 1; returns (match id, live id,
    the moves of a seeded random playout to publish)."""
    from django.contrib.auth import get_user_model

    from arena.matches.live import live_game_start
    from arena.matches.models import Match
    from engines.models import Engine, EngineVersion
    from tests.service.web.conftest import playout

    owner = get_user_model().objects.create(username="bench")
    versions = []
    for name in ("south", "north"):
        engine = Engine.objects.create(owner=owner, name=name)
        versions.append(
            EngineVersion.objects.create(
                engine=engine,
                number=1,
                status="active",
                original_filename=name,
                sha256="0" * 64,
                size_bytes=1,
                storage_path=f"{name}/1",
                variants=["bao-la-kiswahili"],
            )
        )
    start, moves = playout("bao-la-kiswahili", 400)
    match = Match.objects.create(
        variant="bao-la-kiswahili",
        time_control="60+0.1",
        engine_a=versions[0],
        engine_b=versions[1],
        seed=1,
        status="running",
    )
    live = live_game_start(match.pk, 1, versions[0].pk, versions[1].pk, start)
    return match.pk, live.pk, moves


async def run(args: argparse.Namespace, var: str) -> None:
    from asgiref.sync import sync_to_async

    from arena.matches.live import (
        NewLiveEvent,
        clock_event,
        live_events_append,
        live_last_seq,
    )

    match_id, live_id, moves = await sync_to_async(setup_game)()
    moves = moves[: args.moves]
    port = free_port()
    log = open(Path(var) / "uvicorn.log", "wb")  # noqa: SIM115 (closed below)
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "arena.asgi:application",
            "--port",
            str(port),
            "--log-level",
            "warning",
            "--no-access-log",
            "--lifespan",
            "off",
            "--backlog",
            "4096",
        ],
        cwd=ROOT,
        env=os.environ.copy(),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                await asyncio.sleep(0.1)
        load_before = os.getloadavg()
        stop = asyncio.Event()
        viewers = [Viewer() for _ in range(args.viewers)]
        t0 = time.perf_counter()
        tasks = []
        for n, viewer in enumerate(viewers):
            tasks.append(asyncio.ensure_future(viewer.watch(port, live_id, stop)))
            if n % 50 == 49:
                await asyncio.sleep(0.05)  # a crowd arriving, not one SYN flood
        await asyncio.wait_for(asyncio.gather(*(v.connected.wait() for v in viewers)), 120)
        connect_s = time.perf_counter() - t0
        await asyncio.sleep(1.0)
        requests_before = sum(v.requests for v in viewers)
        seq = await sync_to_async(live_last_seq)(match_id)
        sent: dict[int, float] = {}
        clocks: dict[str, int | None] = {"S": 60_000, "N": 60_000}
        t_moves = time.perf_counter()
        server_cpu, client_cpu = cpu_s(server.pid), own_cpu_s()
        for move in moves:
            clocks[str(move["side"])] = int(move["clock_ms"])  # type: ignore[call-overload]
            side = str(move["position"]).split()[1]
            now_ms = int(time.time() * 1000)
            events = [
                NewLiveEvent("move", 1, dict(move)),
                clock_event(1, dict(clocks), side, now_ms),
            ]
            sent[int(move["ply"])] = time.time()  # type: ignore[call-overload]
            seq = await sync_to_async(live_events_append)(match_id, events, after_seq=seq)
            await asyncio.sleep(args.interval_ms / 1000)
        await asyncio.sleep(1.0)  # the last move's deliveries
        moves_s = time.perf_counter() - t_moves
        server_cpu, client_cpu = cpu_s(server.pid) - server_cpu, own_cpu_s() - client_cpu
        requests_during = sum(v.requests for v in viewers) - requests_before
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        load_after = os.getloadavg()
    finally:
        server.terminate()  # uvicorn waits for open streams: then it is killed
        try:
            server.wait(5)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()

    latencies = [
        (v.got[ply] - at) * 1000 for v in viewers for ply, at in sent.items() if ply in v.got
    ]
    missing = sum(1 for v in viewers for ply in sent if ply not in v.got)
    print(f"viewers {args.viewers}, moves {len(sent)} every {args.interval_ms} ms")
    print(f"connect: {args.viewers} streams open in {connect_s:.2f} s")
    print(
        f"web tier while the moves were played: {requests_during} requests in {moves_s:.1f} s"
        f" = {requests_during / moves_s:.2f} requests/s (target < 50)"
    )
    if latencies:
        print(
            "append -> viewer latency (ms): "
            f"p50 {statistics.median(latencies):.1f}, p95 {percentile(latencies, 0.95):.1f}, "
            f"max {max(latencies):.1f} over {len(latencies)} deliveries (target <= 250)"
        )
    print(f"moves never received: {missing}")
    print(
        f"CPU while the moves were played: server {server_cpu:.2f} s "
        f"({server_cpu / len(sent) * 1000:.1f} ms a move for {args.viewers} streams), "
        f"clients and writer {client_cpu:.2f} s, in {moves_s:.1f} s of wall time"
    )
    print(
        f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f} "
        f"({os.cpu_count()} CPUs)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--viewers", type=int, default=500)
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("--interval-ms", type=int, default=200)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, max(soft, 4 * args.viewers + 256))
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    var = throwaway_database("bao-bench-live-")
    try:
        try:  # the clients' loop: the faster, the less the harness adds to the latency
            import uvloop

            uvloop.run(run(args, var))
        except ImportError:
            asyncio.run(run(args, var))
    finally:
        shutil.rmtree(var, ignore_errors=True)


if __name__ == "__main__":
    main()
