"""Tournament and rating costs on the database (prints figures, asserts nothing).

Builds a round robin of ``--engines`` engine versions in a throw-away SQLite database (a
temporary ``BAO_VAR_DIR``; nothing of the real ``var/`` is touched), stores every match as
finished with two or three games, and times:

* ``match_finished`` per match with the rating refit it requests run eagerly in-process
  (``CELERY_TASK_ALWAYS_EAGER``: the whole-history fit of the games so far + tournament
  progress), ms; a worker would run the refit after commit, debounced;
* ``selectors.tournament_table`` (standings, tie-breaks, crosstable) for the whole event, ms;
* ``GET /api/tournaments/{id}/`` and ``GET /api/leaderboard/`` through the Django test client, ms.

Usage::

    python benchmarks/bench_service.py [--engines 16] [--seed 1]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    var = tempfile.mkdtemp(prefix="bao-bench-service-")
    os.environ.update(
        BAO_VAR_DIR=var,
        DATABASE_URL=f"sqlite:///{var}/bench.sqlite3",
        DJANGO_SETTINGS_MODULE="arena.settings",
        CELERY_TASK_ALWAYS_EAGER="true",
    )
    os.environ.pop("CELERY_BROKER_URL", None)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    call_command("migrate", verbosity=0)
    from arena.matches.models import Game, Match
    from engines.models import Engine, EngineVersion
    from tournaments import pairing, selectors, services
    from tournaments.models import Tournament

    rng = random.Random(args.seed)
    owner = get_user_model().objects.create(username="bench")
    versions = []
    for i in range(args.engines):
        engine = Engine.objects.create(owner=owner, name=f"engine{i:02d}")
        versions.append(EngineVersion.objects.create(
            engine=engine, number=1, status="active", original_filename="x", sha256="0" * 64,
            size_bytes=1, storage_path="x", variants=["bao-la-kete"],
        ))  # fmt: skip
    t = Tournament.objects.create(name="bench", variant="bao-la-kete", time_control="10+0.1",
                                  status="running", start_at=dt.datetime.now(dt.UTC))  # fmt: skip
    for i, v in enumerate(versions, start=1):
        t.entries.create(engine_version=v, seed_no=i)
    clock = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    timings = []
    for round_no, pairs in enumerate(pairing.round_robin(len(versions)), start=1):
        for p in pairs:
            a, b = versions[p.a], versions[p.b]
            m = Match.objects.create(variant="bao-la-kete", time_control="10+0.1", engine_a=a,
                                     engine_b=b, seed=1, tournament=t, round=round_no,
                                     status="finished")  # fmt: skip
            score = [0.0, 0.0]
            for index in (1, 2, 3):
                if index == 3 and score[0] != score[1]:
                    break
                south, north = (a, b) if index % 2 else (b, a)
                result = rng.choice(["1-0", "0-1", "1/2-1/2"])
                clock += dt.timedelta(seconds=30)
                Game.objects.create(match=m, index=index, south=south, north=north, result=result,
                                    termination="bao_hamna", rated=True, start_position="s",
                                    finished_at=clock)  # fmt: skip
                pts = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[result]
                a_pts = pts if south is a else 1 - pts
                score[0] += a_pts
                score[1] += 1 - a_pts
            Match.objects.filter(pk=m.pk).update(
                score_a=score[0], score_b=score[1], finished_at=clock
            )
            m.refresh_from_db()
            start = time.perf_counter()
            services.match_finished(m)
            timings.append((time.perf_counter() - start) * 1000)
    games = Game.objects.count()
    print(f"engines {len(versions)}, matches {len(timings)}, games {games}")
    print(
        f"match_finished + eager refit: median {statistics.median(timings):.2f} ms, "
        f"max {max(timings):.2f} ms per match"
    )
    start = time.perf_counter()
    selectors.tournament_table(t)
    elapsed_ms = (time.perf_counter() - start) * 1000
    print(f"tournament_table (standings + crosstable): {elapsed_ms:.1f} ms")
    client = Client()
    for url in (f"/api/tournaments/{t.pk}/", "/api/leaderboard/?variant=bao-la-kete&page_size=200"):
        runs = []
        for _ in range(5):
            start = time.perf_counter()
            response = client.get(url)
            runs.append((time.perf_counter() - start) * 1000)
        print(f"GET {url}: {response.status_code}, median {statistics.median(runs):.1f} ms over 5")
    shutil.rmtree(var, ignore_errors=True)


if __name__ == "__main__":
    main()
