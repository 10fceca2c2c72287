"""Time forfeits under load, through the service (issue 12): 16 matches at 1+0.01 between
engines that spend about half their clock, queued at once and played by one real worker.

With the default slots (one per core) the dispatcher runs as many matches at once as there are
cores; ``--slots 16`` (forced past the two-per-core rule) replays the overload case where every
match thinks at once. Prints the games, the time forfeits (with the overrun and the host's
runnable tasks of each) and the wall time. A throw-away ``BAO_VAR_DIR`` with SQLite and the
embedded broker; the sandbox of the settings (``BAO_SANDBOX_MODE``, default auto).

Usage::

    python benchmarks/bench_overload.py [--matches 16] [--slots N] [--time-control 1+0.01]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE = Path(__file__).resolve().parent / "engines" / "halfclock.py"


def _version(owner, name: str):  # type: ignore[no-untyped-def]
    from django.conf import settings

    from engines.models import Engine, EngineVersion

    engine = Engine.objects.create(name=name, owner=owner)
    for part in ("upload", "root"):
        target = Path(settings.BAO_ENGINES_DIR) / name / "v1" / part
        target.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ENGINE, target / ENGINE.name)
    return EngineVersion.objects.create(
        engine=engine, number=1, status="active", original_filename=ENGINE.name,
        sha256="0" * 64, size_bytes=ENGINE.stat().st_size,
        storage_path=f"{name}/v1/upload/{ENGINE.name}", variants=["bao-la-kete"],
    )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=16)
    parser.add_argument("--slots", type=int, default=None, help="default: the host's cores")
    parser.add_argument("--time-control", default="1+0.01")
    args = parser.parse_args()
    var = tempfile.mkdtemp(prefix="bao-bench-overload-")
    os.chmod(var, 0o755)  # the sandbox's engine uids read the engines from here
    os.environ.update(
        BAO_VAR_DIR=var,
        DATABASE_URL=f"sqlite:///{var}/bench.sqlite3",
        DJANGO_SETTINGS_MODULE="arena.settings",
    )
    os.environ.pop("CELERY_BROKER_URL", None)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from arena.capacity import host_cores
    from arena.celery_processes import WorkerProcess, worker_environment
    from arena.matches.models import Game, Match
    from arena.matches.services import match_create

    call_command("migrate", verbosity=0)
    owner = get_user_model().objects.create(username="bench")
    a, b = _version(owner, "half-a"), _version(owner, "half-b")
    slots = args.slots or host_cores()
    extra = {"CELERY_TASK_DEFAULT_QUEUE": "bench-overload"}
    if slots > 2 * host_cores():
        extra["BAO_WORKER_SLOTS_FORCE"] = "1"
    worker = WorkerProcess.start(
        queue="bench-overload", env=worker_environment(**extra),
        log_path=Path(var) / "worker.log", concurrency=slots,
    )  # fmt: skip
    try:
        worker.wait_ready(timeout=60)
        from arena.celery import app

        app.conf.task_default_queue = "bench-overload"
        app.amqp.flush_routes()
        began = time.monotonic()
        for seed in range(args.matches):
            match_create(engine_a=a, engine_b=b, variant="kete",
                         time_control=args.time_control, seed=seed)  # fmt: skip
        while Match.objects.exclude(status__in=("finished", "aborted")).exists():
            if time.monotonic() - began > 900:
                raise SystemExit("gave up after 900 s; worker log: " + str(worker.log_path))
            time.sleep(0.5)
        wall = time.monotonic() - began
    finally:
        worker.stop()
    games = Game.objects.all()
    forfeits = list(games.filter(termination="time_forfeit").values_list("time_loss", flat=True))
    print(
        f"host cores {host_cores()}, slots {slots}, {args.matches} matches at "
        f"{args.time_control}, engines spending about half their clock"
    )
    print(
        f"games {games.count()}, time forfeits {len(forfeits)}, "
        f"aborted matches {Match.objects.filter(status='aborted').count()}, "
        f"wall {wall:.1f} s"
    )
    for loss in forfeits[:10]:
        print(
            f"  forfeit: overrun {loss['overrun_ms']} ms with {loss['clock_ms']} ms on the "
            f"clock, host runnable {loss['runnable']} (load1 {loss['load1']}, "
            f"cores {loss['cores']})"
        )
    shutil.rmtree(var, ignore_errors=True)


if __name__ == "__main__":
    main()
