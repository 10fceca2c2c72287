"""The work a worker slot does around the referee per match, broken down (issue 32; prints
figures, asserts nothing).

Two bundled engines (``random`` against ``greedy``, registered into a throw-away database: SQLite
in a temporary ``BAO_VAR_DIR``, or ``--postgres`` a cluster of its own as in
``bench_dispatch.py``) play ``--matches`` rated best-of-three matches at ``--time`` two ways,
alternating so both see the same load:

* **loop**: ``arena.referee.play_match`` called in one process on the two packages checked out
  once: the referee's own cost (engine starts, games, sandbox), the floor;
* **slot**: what a worker's ``run_match`` task does (``runner.execute_next``: the dispatcher's
  claim, the next slot's wake-up, loading the match, lease keeper, live publisher, package
  checkout, the referee, recording with its subscribers and after-commit hooks), in-process
  with the real broker of the settings (the embedded Redis by default), minus the Celery
  worker's own delivery of the message.

Every step of the slot is timed by wrapping the function that does it (``time.perf_counter``
around the call), so the breakdown adds up to the slot's time; ``other`` is what no wrapper
covers. Prints per match: the loop's and the slot's medians, the ratio of matches per minute
(loop / slot), and the median of each step. Target: at most 20 ms of work around the referee
per match, the slot at least 0.85x the loop's matches per minute.

Usage::

    python benchmarks/bench_slot.py [--matches 20] [--time 10+0.1] [--postgres]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

#: Seconds spent in each step of the current slot run (reset per match).
SPENT: dict[str, float] = defaultdict(float)


def _timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            SPENT[name] += time.perf_counter() - start

    return wrapper


def _timed_context(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """A context manager's entering and leaving timed (not its body)."""

    @contextlib.contextmanager
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Iterator[Any]:
        start = time.perf_counter()
        manager = fn(*args, **kwargs)
        value = manager.__enter__()
        SPENT[name] += time.perf_counter() - start
        try:
            yield value
        finally:
            start = time.perf_counter()
            manager.__exit__(None, None, None)
            SPENT[name] += time.perf_counter() - start

    return wrapper


def _instrument() -> None:
    """Wrap each step of ``runner.execute_next`` (module docstring)."""
    from arena.matches import events, keeper, live, runner
    from arena.matches.services import recording

    runner.match_claim_next = _timed("claim (dispatcher)", runner.match_claim_next)
    runner.match_wake_next = _timed("wake the next slot (broker)", runner.match_wake_next)
    runner.match_limits = _timed("load the match", runner.match_limits)
    runner.checkout = _timed_context("package checkout", runner.checkout)
    runner.play_match = _timed("referee (play_match)", runner.play_match)
    runner.match_record_result = _timed("record (transaction)", runner.match_record_result)
    runner.metrics.count_recorded_games = _timed("metrics", runner.metrics.count_recorded_games)
    for cls, label in ((keeper.LeaseKeeper, "lease keeper"), (live.LivePublisher, "live")):
        for method in ("start", "stop"):
            setattr(cls, method, _timed(f"{label} {method}", getattr(cls, method)))
    # In-transaction subscribers run inside the record; after-commit ones at its commit.
    original = events._run_logged

    def run_logged(subscriber: Any, event: Any) -> None:
        name = getattr(subscriber, "__qualname__", "?")
        start = time.perf_counter()
        try:
            original(subscriber, event)
        finally:
            SPENT[f"after commit: {name}"] += time.perf_counter() - start

    events._run_logged = run_logged
    recording.publish_match_ended = _timed(
        "record: publish (in-transaction subscribers)", recording.publish_match_ended
    )


def _world(time_control: str) -> tuple[Any, Any]:
    from engines.models import EngineVersion
    from engines.services import register_bundled_engines

    versions = {v.engine.name: v for v in register_bundled_engines(validate=False)}
    for v in versions.values():
        EngineVersion.objects.filter(pk=v.pk).update(
            status=EngineVersion.Status.ACTIVE, variants=["bao-la-kete"]
        )
    return (
        EngineVersion.objects.select_related("engine").get(pk=versions["random"].pk),
        EngineVersion.objects.select_related("engine").get(pk=versions["greedy"].pk),
    )


def run(args: argparse.Namespace) -> None:
    from django.db import connection

    from arena.matches import runner
    from arena.matches.services import match_create
    from arena.referee import TimeControl, play_match
    from engines.storage import checkout

    a, b = _world(args.time)
    config = runner._worker_config(None)
    _instrument()
    loop_s: list[float] = []
    slot_s: list[float] = []
    steps: dict[str, list[float]] = defaultdict(list)
    with checkout(a) as package_a, checkout(b) as package_b:
        for n in range(args.matches + 1):  # the first of each is a warm-up
            start = time.perf_counter()
            play_match(package_a, package_b, "bao-la-kete", TimeControl.parse(args.time),
                       seed=n, config=config)  # fmt: skip
            loop = time.perf_counter() - start
            match_create(engine_a=a, engine_b=b, variant="kete", time_control=args.time, seed=n)
            connection.close()  # as a worker's slot starts: no connection held from before
            SPENT.clear()
            start = time.perf_counter()
            outcome = runner.execute_next(worker="bench")
            slot = time.perf_counter() - start
            assert outcome == runner.RECORDED, outcome
            if n == 0:
                continue
            loop_s.append(loop)
            slot_s.append(slot)
            for name in set(SPENT) | set(steps):
                steps[name].append(SPENT.get(name, 0.0))
            # The record's time includes its subscribers': "other" is the rest of the slot.
            nested = sum(v for k, v in SPENT.items() if k.startswith(("record:", "after commit")))
            steps["other"].append(slot - (sum(SPENT.values()) - nested))
            steps["slot minus loop"].append(slot - loop)
    loop, slot = statistics.median(loop_s), statistics.median(slot_s)
    referee = statistics.median(steps["referee (play_match)"])
    print(
        f"{args.matches} matches random v greedy at {args.time}, {connection.vendor}, sandbox "
        f"{config.sandbox.mode if config.sandbox else 'none'} (load {os.getloadavg()[0]:.1f}):"
    )
    print(
        f"  loop {loop * 1000:.0f} ms/match, slot {slot * 1000:.0f} ms/match: the slot plays "
        f"{loop / slot:.2f}x the loop's matches per minute; around the referee "
        f"{(slot - referee) * 1000:.1f} ms/match (slot minus its play_match)"
    )
    print(
        f"  the slot's play_match {referee * 1000:.0f} ms against the loop's {loop * 1000:.0f}: "
        f"{(referee - loop) * 1000:+.0f} ms while the keeper and live publisher run beside it"
    )
    for name, values in sorted(steps.items(), key=lambda kv: -statistics.median(kv[1])):
        if name not in ("referee (play_match)", "slot minus loop"):
            nested = "    " if name.startswith(("record:", "after commit")) else ""
            print(f"  {nested}{name:<52} {statistics.median(values) * 1000:7.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--time", default="10+0.1")
    parser.add_argument("--postgres", action="store_true")
    args = parser.parse_args()
    var = tempfile.mkdtemp(prefix="bao-bench-slot-")
    os.environ.update(BAO_VAR_DIR=var, DJANGO_SETTINGS_MODULE="arena.settings")
    with contextlib.ExitStack() as stack:
        stack.callback(shutil.rmtree, var, ignore_errors=True)
        if args.postgres:
            from bench_dispatch import cluster  # type: ignore[import-not-found]

            os.environ["DATABASE_URL"] = stack.enter_context(
                cluster(Path("/usr/lib/postgresql/15/bin"), 20)
            )
        else:
            os.environ["DATABASE_URL"] = f"sqlite:///{var}/bench.sqlite3"
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        run(args)


if __name__ == "__main__":
    main()
