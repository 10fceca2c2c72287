"""The dispatcher under many slots (issue 29): claims/s, claim latency, duplicates, idle slots,
connections and control queries/s, and the fair-share pick with 10^4 matches in the window.

A PostgreSQL cluster of its own is made for the run (``initdb`` of ``--pg-bin``, default
``/usr/lib/postgresql/15/bin``, in a temporary directory, on a free loopback port, with
``max_connections`` for every slot; ``fsync=off``: the figures are the dispatcher's, not the
disk's) and torn down at the end: no shared server is touched. The project's migrations are
applied to it. Then, for each step of ``--slots`` (default 1, 8, 32, 64 as processes, then
1,000 as threads in ``--thread-procs`` processes):

* the queue is refilled: ``--queue`` pending best-of-one matches (default max(2,000, 4 x
  slots)) among five submitters (four users and the system) in the three classes, and one
  ``WorkerNode`` announcing the step's slots;
* every slot, once all have started, loops for ``--seconds``: the worker's own claim
  (``arena.matches.runner.claim_next``), then the match is played by a stub referee that
  returns a one-game record at once: ``--play worker`` (process steps) runs the worker's own
  ``runner.play_claimed`` (the lease keeper, the live publisher and ``match_record_result``),
  ``--play record`` (the thread step) only ``match_record_result`` under the claim's lease;
* printed per step: claims/s over the step (all slots), claim p50/p95 ms, duplicates (a match
  claimed twice), idle slots with work waiting (a claim that returned nothing while a
  claimable match was in the queue), the most connections seen in ``pg_stat_activity``, and
  control queries/s (queries from the keeper and publisher threads: ownership checks, lease
  renewals, live moves).

Then ``control``: ``--control-procs`` processes of ``--control-slots`` slots each play
matches held ``--control-hold`` seconds by the stub (its loop checking in, so the keeper
renews), for ``--control-seconds``: the worker links' queries per second in all and per
process (the target: at most 1), and the connections.

Last, ``pick``: ``--window`` (default 10,000) matches run and ended within the fair-share
window among 50 users, 100 waiting; the time of ``arena.matches.dispatch.next_match_id`` (the
pick a claim makes), median and p95 ms over 50 calls.

Usage::

    python benchmarks/bench_dispatch.py [--slots 1 8 32 64] [--thread-slots 1000]
        [--seconds 8] [--repeat 1] [--play worker|record]

Run from a checkout's root (it imports that checkout's ``arena``); the load (``uptime``) is
printed first and last.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing as mp
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path.cwd()
sys.path.insert(0, str(ROOT))

USERS = 4  # plus the system (matches without submitter)


# --------------------------------------------------------------------------- the cluster


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def cluster(pg_bin: Path, max_connections: int) -> Iterator[str]:
    """A throw-away PostgreSQL cluster; yields its DATABASE_URL (database ``arena``)."""
    root = Path(tempfile.mkdtemp(prefix="bench-dispatch-pg-"))
    data = root / "data"
    port = _free_port()
    quiet: dict[str, Any] = {"stdout": subprocess.DEVNULL, "stderr": subprocess.STDOUT}
    # PostgreSQL refuses to run as root: then the cluster is the postgres account's.
    as_pg = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    if as_pg:
        shutil.chown(root, "postgres")
    subprocess.run(
        [*as_pg, str(pg_bin / "initdb"), "-D", str(data), "-U", "bench", "-A", "trust",
         "-E", "UTF8", "--no-sync"], check=True, **quiet,
    )  # fmt: skip
    options = (
        f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c max_connections={max_connections}"
        " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        " -c shared_buffers=256MB -c shared_preload_libraries=pg_stat_statements"
        " -c pg_stat_statements.track_planning=on"
    )
    subprocess.run(
        [*as_pg, str(pg_bin / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(root / "log"),
         "-w", "start"], check=True, **quiet,
    )  # fmt: skip
    try:
        subprocess.run(
            [str(pg_bin / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "bench", "arena"],
            check=True,
            **quiet,
        )
        yield f"postgres://bench@127.0.0.1:{port}/arena"
    finally:
        subprocess.run(
            [*as_pg, str(pg_bin / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
            check=False,
            **quiet,
        )
        shutil.rmtree(root, ignore_errors=True)


# --------------------------------------------------------------------------- the world


def _setup_django(url: str, var: Path) -> None:
    os.environ.update(
        DATABASE_URL=url,
        DATABASE_CONN_MAX_AGE="600",
        CELERY_BROKER_URL="memory://",
        CELERY_TASK_ALWAYS_EAGER="0",  # tasks the ends of matches send stay in memory
        BAO_LADDER_ENABLED="0",
        # Renewals every 2 s (a third of the lease), so the control step's matches renew.
        BAO_MATCH_LEASE_SECONDS="6",
        BAO_VAR_DIR=str(var),
        DJANGO_SETTINGS_MODULE="arena.settings",
    )
    import logging

    import django

    django.setup()
    logging.disable(logging.ERROR)  # the keeper's and the runner's lines are not the figures


def _world() -> dict[str, Any]:
    from django.contrib.auth import get_user_model

    from engines.models import Engine, EngineVersion

    User = get_user_model()
    users = [User.objects.create_user(f"bench{i}", "", None) for i in range(USERS)]
    versions = []
    for name in ("bench-a", "bench-b"):
        engine = Engine.objects.create(name=name, owner=users[0])
        versions.append(
            EngineVersion.objects.create(
                engine=engine, number=1, status="active", original_filename="x.py",
                sha256="0" * 64, size_bytes=1, storage_path="none", variants=["bao-la-kete"],
                reported_name=name,
            )
        )  # fmt: skip
    return {"users": [u.pk for u in users], "versions": [v.pk for v in versions]}


def _refill(world: dict[str, Any], queue: int, slots: int) -> None:
    from django.db import connection
    from django.utils import timezone

    from arena.matches.models import Match, WorkerNode

    _connect()
    with connection.cursor() as cur:
        cur.execute("TRUNCATE matches_game, matches_livegame CASCADE")
    Match.objects.all().delete()
    WorkerNode.objects.all().delete()
    now = timezone.now()
    WorkerNode.objects.create(name="bench", slots=slots, cores=2, started_at=now, last_seen=now)
    submitters = [*world["users"], None]
    a, b = world["versions"]
    rows = [
        Match(
            engine_a_id=a, engine_b_id=b, variant="bao-la-kete", time_control="1+0", seed=i,
            best_of=1, rated=False, submitter_id=submitters[i % len(submitters)],
            priority=(0, 2, 2, 1, 2)[i % 5],
        )
        for i in range(queue)
    ]  # fmt: skip
    Match.objects.bulk_create(rows, batch_size=1000)
    with connection.cursor() as cur:
        cur.execute("ANALYZE matches_match")


# --------------------------------------------------------------------------- a slot


def _stub_record(match: Any) -> Any:
    from arena import terminations as T
    from arena.referee import GameRecord, MatchRecord

    a, b = f"{match.engine_a.engine.name} v1", f"{match.engine_b.engine.name} v1"
    return MatchRecord(
        variant=match.variant, seed=match.seed, time_control=match.time_control, engines=[a, b],
        games=[GameRecord(index=1, south=a, north=b, winner=a, result="1-0",
                          termination=T.BAO_HAMNA, plies=1, start_position="s",
                          final_position="f", started_at="2026-01-01T00:00:00+00:00")],
    )  # fmt: skip


@dataclass
class SlotReport:
    claims: list[tuple[int, float]] = field(default_factory=list)  # (match id, claim s)
    idle_with_work: int = 0
    slot_queries: int = 0
    control_queries: int = 0
    errors: list[str] = field(default_factory=list)


_counts: Counter[str] = Counter()
_counts_lock = threading.Lock()


def _count_queries() -> None:
    """Count every query by the thread that sends it (keeper and publisher threads: control)."""
    from django.db.backends import utils

    def wrap(method: Any) -> Any:
        def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
            name = threading.current_thread().name
            # The worker link's thread (keeper.py), or the per-match threads before it.
            kind = "control" if name.startswith(("worker-link", "lease-", "live-")) else "slot"
            with _counts_lock:
                _counts[kind] += 1
            return method(self, *args, **kwargs)

        return counted

    utils.CursorWrapper.execute = wrap(utils.CursorWrapper.execute)  # type: ignore[method-assign]
    utils.CursorWrapper.executemany = wrap(utils.CursorWrapper.executemany)  # type: ignore[method-assign]


def _connect(tries: int = 20) -> None:
    """This thread's connection, retried: a thousand slots connecting at once on two cores
    outlast ``connect_timeout``, and a step's backends may still be exiting."""
    from django.db import OperationalError, connection

    for attempt in range(tries):
        try:
            connection.ensure_connection()
            return
        except OperationalError:
            if attempt == tries - 1:
                raise
            connection.close()
            time.sleep(0.5)


def _slot(name: str, play: str, start_at: float, stop_at: float, report: SlotReport) -> None:
    from django.db import connection

    from arena.matches import runner
    from arena.matches.leases import claimable
    from arena.matches.models import Match
    from arena.matches.services import match_record_result

    try:
        _connect()  # connected before the start, as a worker's slot is
        while time.time() < start_at:
            time.sleep(0.005)
        while time.time() < stop_at:
            t0 = time.perf_counter()
            claim = runner.claim_next(worker=name)
            took = time.perf_counter() - t0
            if claim is None:
                if Match.objects.filter(claimable()).exists():
                    report.idle_with_work += 1
                    continue
                break
            report.claims.append((claim.match_id, took))
            t1 = time.perf_counter()
            if play == "worker":
                runner.play_claimed(claim)
            else:
                match = Match.objects.select_related("engine_a__engine", "engine_b__engine").get(
                    pk=claim.match_id
                )
                match_record_result(claim.match_id, claim.token, _stub_record(match), match=match)
            if os.environ.get("BENCH_LOG"):
                played = (time.perf_counter() - t1) * 1000
                print(f"{name} claim {took * 1000:.0f} ms play {played:.0f} ms", file=sys.stderr)
    except Exception as exc:  # reported, never hidden
        report.errors.append(f"{type(exc).__name__}: {exc}")
    finally:
        connection.close()


def _stub_play(hold_s: float) -> Any:
    """The referee's stand-in: a one-game record, after ``hold_s`` seconds of a loop that
    checks in (so the keeper renews its lease) when ``hold_s`` > 0."""

    def play(match: Any, config: Any, control: Any, on_event: Any = None) -> Any:
        from django.db import connection

        if hold_s > 0:
            connection.close()  # as runner._play does: a playing slot holds no connection
        until = time.monotonic() + hold_s
        while time.monotonic() < until:
            control.check()
            time.sleep(0.05)
        return _stub_record(match)

    return play


def _process(
    names: list[str], play: str, start_at: float, stop_at: float, out: Any, hold_s: float = 0.0
) -> None:  # a child process: its slots as threads (one thread for a process slot)
    from django.db import connections

    from arena.matches import runner

    connections.close_all()
    runner._play = _stub_play(hold_s)  # type: ignore[assignment]
    _count_queries()
    reports = [SlotReport() for _ in names]
    threads = [
        threading.Thread(target=_slot, args=(n, play, start_at, stop_at, r), name=f"slot-{n}")
        for n, r in zip(names, reports, strict=True)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    merged = SlotReport()
    for r in reports:
        merged.claims += r.claims
        merged.idle_with_work += r.idle_with_work
        merged.errors += r.errors
    merged.slot_queries, merged.control_queries = _counts["slot"], _counts["control"]
    out.put(merged)


def _warm_up(world: dict[str, Any]) -> None:
    """One match claimed and played each way in the parent, so the forked slots inherit every
    module the claim and the record import (the subscribers of ``MatchEnded``), as a running
    worker has them."""
    from arena.matches import runner

    runner._play = lambda match, config, control, on_event=None: _stub_record(match)  # type: ignore[assignment]
    for play in ("worker", "record"):
        _refill(world, 1, 1)
        report = SlotReport()
        _slot("warm-up", play, 0.0, time.time() + 30, report)
        assert report.claims and not report.errors, report


@dataclass
class StepResult:
    label: str
    claims_s: float
    p50_ms: float
    p95_ms: float
    duplicates: int
    idle: int
    connections: int
    control_s: float
    errors: list[str]


def _connections_watch(url: str, stop: threading.Event, seen: list[int]) -> None:
    import psycopg

    with psycopg.connect(url.replace("postgres://", "postgresql://"), autocommit=True) as conn:
        while not stop.wait(0.2):
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = 'arena'"
            ).fetchone()
            seen.append(int(row[0]) - 1 if row else 0)


def step(
    url: str, world: dict[str, Any], *, slots: int, procs: int, play: str, seconds: float,
    queue: int, label: str, hold_s: float = 0.0,
) -> StepResult:  # fmt: skip
    from django.db import connections

    _refill(world, queue, slots)
    connections.close_all()
    names = [f"bench-{i}@sim" for i in range(slots)]
    per = [names[i::procs] for i in range(procs)]
    ctx = mp.get_context("fork")
    out = ctx.Queue()
    start_at = time.time() + 1.0 + 0.05 * procs
    stop_at = start_at + seconds
    children = [
        ctx.Process(target=_process, args=(group, play, start_at, stop_at, out, hold_s))
        for group in per
        if group
    ]
    for c in children:
        c.start()
    stop, seen = threading.Event(), [0]
    watch = threading.Thread(target=_connections_watch, args=(url, stop, seen), daemon=True)
    watch.start()
    reports = [out.get(timeout=seconds + 600) for _ in children]
    for c in children:
        c.join()
    stop.set()
    watch.join()
    claims = [c for r in reports for c in r.claims]
    ids = Counter(match_id for match_id, _ in claims)
    latencies = sorted(took * 1000 for _, took in claims)
    elapsed = max(time.time(), stop_at) - start_at if claims else seconds
    elapsed = min(elapsed, seconds) if len(ids) < queue else elapsed
    control = sum(r.control_queries for r in reports)

    def pct(q: float) -> float:
        return latencies[min(len(latencies) - 1, int(q * len(latencies)))] if latencies else 0.0

    return StepResult(
        label=label,
        claims_s=len(claims) / elapsed,
        p50_ms=pct(0.5),
        p95_ms=pct(0.95),
        duplicates=sum(n - 1 for n in ids.values() if n > 1),
        idle=sum(r.idle_with_work for r in reports),
        connections=max(seen),
        control_s=control / elapsed,
        errors=[e for r in reports for e in r.errors][:3],
    )


# --------------------------------------------------------------------------- the pick


def pick(world: dict[str, Any], window: int) -> tuple[float, float, float, float]:
    """Median and p95 ms of ``dispatch.next_match_id`` with ``window`` ended matches in the
    fair-share window (50 users) and 100 waiting; then the median of this thread's CPU ms
    per pick, and the server's ms per pick (planning and execution of its statements, from
    ``pg_stat_statements``): on a loaded machine the wall time is mostly waiting for a
    core."""
    from datetime import timedelta

    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.utils import timezone

    from arena.matches import dispatch
    from arena.matches.models import Match

    _refill(world, 0, 8)
    User = get_user_model()
    users = [User.objects.get_or_create(username=f"pick{i}")[0].pk for i in range(50)]
    a, b = world["versions"]
    now = timezone.now()
    rows = []
    for i in range(window):
        start = now - timedelta(seconds=3500 * (i + 1) / window)
        rows.append(
            Match(engine_a_id=a, engine_b_id=b, variant="bao-la-kete", time_control="1+0",
                  seed=i, best_of=1, rated=False, submitter_id=users[i % 50], priority=2,
                  status="finished", started_at=start, finished_at=start + timedelta(seconds=30))
        )  # fmt: skip
    rows += [
        Match(engine_a_id=a, engine_b_id=b, variant="bao-la-kete", time_control="1+0", seed=i,
              best_of=1, rated=False, submitter_id=users[i % 50], priority=2)
        for i in range(100)
    ]  # fmt: skip
    Match.objects.bulk_create(rows, batch_size=2000)
    with connection.cursor() as cur:
        cur.execute("ANALYZE matches_match")
    server = (
        "SELECT coalesce(sum(total_exec_time + total_plan_time), 0) FROM pg_stat_statements"
        " WHERE query NOT ILIKE '%pg_stat_statements%'"
    )
    times, cpu = [], []
    for i in range(55):
        if i == 5:
            with connection.cursor() as cur:
                cur.execute("SELECT pg_stat_statements_reset()")
        t0, c0 = time.perf_counter(), time.thread_time()
        assert dispatch.next_match_id() is not None
        times.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.thread_time() - c0) * 1000)
    with connection.cursor() as cur:
        cur.execute(server)
        server_ms = float(cur.fetchone()[0]) / 50
    times = sorted(times[5:])
    return (
        statistics.median(times),
        times[int(0.95 * len(times))],
        statistics.median(cpu[5:]),
        server_ms,
    )


# --------------------------------------------------------------------------- main


def _uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main() -> None:
    import signal

    # A SIGTERM (timeout, kill) unwinds through the cluster's teardown like Ctrl-C.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--slots", type=int, nargs="*", default=[1, 8, 32, 64])
    parser.add_argument("--thread-slots", type=int, nargs="*", default=[1000])
    parser.add_argument("--thread-procs", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--queue", type=int, default=0, help="0: max(2000, 4 x slots)")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument(
        "--play", choices=("worker", "record"), default="worker", help="of the process steps"
    )
    parser.add_argument("--window", type=int, default=10_000)
    parser.add_argument(
        "--control-procs", type=int, default=8, help="processes of the control step (0: none)"
    )
    parser.add_argument("--control-slots", type=int, default=4, help="slots per process")
    parser.add_argument("--control-hold", type=float, default=6.0, help="seconds a match plays")
    parser.add_argument("--control-seconds", type=float, default=15.0)
    parser.add_argument("--pg-bin", type=Path, default=Path("/usr/lib/postgresql/15/bin"))
    args = parser.parse_args()
    print("load before:", _uptime(), flush=True)
    most = max([*args.slots, *args.thread_slots, 1])
    var = Path(tempfile.mkdtemp(prefix="bench-dispatch-var-"))
    try:
        with cluster(args.pg_bin, max_connections=3 * most + 50) as url:
            _setup_django(url, var)
            from django.core.management import call_command

            call_command("migrate", verbosity=0)
            from django.db import connection

            with connection.cursor() as cur:
                cur.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            world = _world()
            _warm_up(world)
            print(
                f"{'slots':>12} {'claims/s':>9} {'p50 ms':>8} {'p95 ms':>8} {'dups':>5}"
                f" {'idle':>5} {'conns':>6} {'ctl q/s':>8}",
                flush=True,
            )
            plan = [(n, n, args.play, f"{n} proc") for n in args.slots]
            plan += [(n, args.thread_procs, "record", f"{n} thr") for n in args.thread_slots]
            for slots, procs, play, label in plan:
                for _ in range(args.repeat):
                    r = step(url, world, slots=slots, procs=procs, play=play,
                             seconds=args.seconds, queue=args.queue or max(2000, 4 * slots),
                             label=label)  # fmt: skip
                    print(
                        f"{r.label:>12} {r.claims_s:9.1f} {r.p50_ms:8.1f} {r.p95_ms:8.1f}"
                        f" {r.duplicates:5d} {r.idle:5d} {r.connections:6d} {r.control_s:8.1f}"
                        + (f"  errors: {r.errors}" if r.errors else ""),
                        flush=True,
                    )
            if args.control_procs:
                procs, per = args.control_procs, args.control_slots
                r = step(url, world, slots=procs * per, procs=procs, play="worker",
                         seconds=args.control_seconds, queue=4 * procs * per,
                         label="control", hold_s=args.control_hold)  # fmt: skip
                print(
                    f"control: {procs} processes x {per} slots, matches held"
                    f" {args.control_hold:g} s, {args.control_seconds:g} s: {r.control_s:.1f}"
                    f" control queries/s, {r.control_s / procs:.2f} per process per second;"
                    f" {r.connections} connections; {r.claims_s:.1f} claims/s"
                    + (f"  errors: {r.errors}" if r.errors else ""),
                    flush=True,
                )
            p50, p95, cpu, server = pick(world, args.window)
            print(
                f"pick, {args.window} matches in the window: p50 {p50:.2f} ms, p95 {p95:.2f} ms;"
                f" CPU {cpu:.2f} ms client + {server:.2f} ms server per pick"
            )
    finally:
        shutil.rmtree(var, ignore_errors=True)
    print("load after:", _uptime(), flush=True)


if __name__ == "__main__":
    main()
