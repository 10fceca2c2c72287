"""The service's costs on the database (prints figures, asserts nothing).

Two sections:

* ``endpoints`` (the default; issue 19): for each size in ``--games`` (e.g. ``1000 20000
  100000``), a fresh database is filled through the project's models (bulk inserts: 50 engine
  versions, best-of-three matches of real Bao la Kete games of about 56 plies, two rating
  history points per match, a leaderboard; from 10,000 games on, a finished 48-engine round
  robin among them), then each read endpoint is fetched in-process with the Django test
  client: a warm-up, then ``--repeat`` timed requests. Printed per endpoint: min / p50 / p95
  in ms and the number of SQL queries one request makes. With ``DATABASE_URL`` set to a
  PostgreSQL URL, its database (e.g. ``.../bao_w19``) is dropped and created again for each
  size; without it, a throw-away SQLite file is used. Each size runs in its own process.
* ``tournament``: the older round-robin figures (``--engines``): ``match_finished`` per match
  with the rating refit it requests run eagerly in-process (``CELERY_TASK_ALWAYS_EAGER``: the
  whole-history fit + tournament progress), ms; ``selectors.tournament_table``, ms; and
  ``GET /api/tournaments/{id}/`` and ``GET /api/leaderboard/`` through the test client.
* ``start``: starting a round robin of ``--engines`` (``tournament_start``: every round's
  matches created, and queued when the transaction commits on ``CELERY_BROKER_URL``, default
  an in-memory broker), s, its number of queries, the split create / commit / publish and the
  broker messages sent; ``--repeat`` times (a new tournament each time), best and median.

Nothing of the real ``var/`` is touched (a temporary ``BAO_VAR_DIR``).

Usage::

    python benchmarks/bench_service.py [endpoints] [--games 1000 20000] [--repeat 5]
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bao_w19 python benchmarks/bench_service.py
    python benchmarks/bench_service.py tournament [--engines 16] [--seed 1]
    python benchmarks/bench_service.py start [--engines 64] [--repeat 5]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

#: Engine versions of the endpoints section, and the entrants of its round robin.
VERSIONS = 50
EVENT_ENGINES = 48
#: The round robin is built from this many games on (it alone holds about 2,800).
EVENT_FROM_GAMES = 10_000
PLIES = 56
VARIANT = "bao-la-kete"


def _setup(var: str, *, eager: bool = True) -> None:
    """Django on a throw-away ``var``; tasks run in-process (``eager``) or are sent to an
    in-memory broker."""
    os.environ.update(BAO_VAR_DIR=var, DJANGO_SETTINGS_MODULE="arena.settings")
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{var}/bench.sqlite3")
    os.environ["CELERY_TASK_ALWAYS_EAGER"] = "true" if eager else "false"
    if eager:
        os.environ.pop("CELERY_BROKER_URL", None)
    else:
        os.environ.setdefault("CELERY_BROKER_URL", "memory://")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def _recreate_postgres(url: str) -> None:
    """Drop and create the database ``url`` names (a private benchmark database)."""
    import dj_database_url
    import psycopg

    cfg = dj_database_url.parse(url)
    name = cfg["NAME"]
    admin = psycopg.connect(
        host=cfg["HOST"] or None, port=cfg["PORT"] or None, user=cfg["USER"] or None,
        password=cfg["PASSWORD"] or None, dbname="postgres", autocommit=True,
    )  # fmt: skip
    with admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
        admin.execute(f'CREATE DATABASE "{name}"')


# --- the endpoints section ------------------------------------------------------------------


def _random_games(count: int, rng: random.Random) -> list[tuple[str, list[dict[str, Any]]]]:
    """``count`` real random Bao la Kete games cut at ``PLIES`` plies: (final position, moves
    in the referee's record shape), so replays trace as they do in production."""
    from arena.rules import get_variant

    v = get_variant(VARIANT)
    games = []
    while len(games) < count:
        p = v.initial_position()
        moves: list[dict[str, Any]] = []
        clock = {"S": 10_000, "N": 10_000}
        while len(moves) < PLIES and v.outcome(p) is None:
            side = p.side
            move = rng.choice(v.legal_moves(p))
            p = v.apply(p, move)
            spent = rng.randint(5, 300)
            clock[side] = clock[side] - spent + 100
            moves.append({
                "ply": len(moves) + 1, "side": side, "move": str(move), "time_ms": spent,
                "clock_ms": clock[side], "position": p.to_text(), "info": ["depth 6 score 12"],
            })  # fmt: skip
        if len(moves) >= 20:
            games.append((p.to_text(), moves))
    return games


def _build(total_games: int, seed: int) -> dict[str, Any]:
    """Fill the database with about ``total_games`` games (module docstring); returns what the
    endpoints need (an engine name, a tournament id or None, a game id)."""
    from django.contrib.auth import get_user_model
    from django.db.models import F

    from arena.matches.models import Game, Match
    from arena.rules import get_variant
    from engines.models import Engine, EngineVersion
    from tournaments import pairing
    from tournaments.models import Rating, RatingPoint, RatingPool, Tournament, TournamentEntry

    rng = random.Random(seed)
    played = _random_games(8, rng)
    initial = get_variant(VARIANT).initial_position().to_text()
    owner = get_user_model().objects.create(username="bench")
    engines = Engine.objects.bulk_create(
        [Engine(owner=owner, name=f"engine{i:02d}") for i in range(VERSIONS)]
    )
    versions = EngineVersion.objects.bulk_create([
        EngineVersion(engine=e, number=1, status="active", original_filename="x", sha256="0" * 64,
                      size_bytes=1, storage_path="x", variants=[VARIANT])
        for e in engines
    ])  # fmt: skip
    clock = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)
    tournament = None
    pairs: list[tuple[int, int, int | None]] = []  # (a, b, round) over version indexes
    if total_games >= EVENT_FROM_GAMES:
        tournament = Tournament.objects.create(
            name="bench round robin", variant=VARIANT, time_control="10+0.1", status="finished",
            start_at=clock, started_at=clock, current_round=EVENT_ENGINES - 1,
        )  # fmt: skip
        TournamentEntry.objects.bulk_create(
            TournamentEntry(tournament=tournament, engine_version=v, seed_no=i, rating=1500.0)
            for i, v in enumerate(versions[:EVENT_ENGINES], start=1)
        )
        for round_no, rnd in enumerate(pairing.round_robin(EVENT_ENGINES), start=1):
            pairs.extend((p.a, p.b, round_no) for p in rnd)
    event_pairs = len(pairs)
    # Challenge matches fill the rest (7 games in 3 matches: a third game after 1-1 or a draw).
    while len(pairs) < event_pairs + max(0, total_games - event_pairs * 7 // 3) * 3 // 7:
        a, b = rng.sample(range(VERSIONS), 2)
        pairs.append((a, b, None))
    matches: list[Any] = []
    games: list[Any] = []
    points: list[Any] = []
    results = ("1-0", "0-1", "1/2-1/2")
    for n, (ia, ib, round_no) in enumerate(pairs):
        a, b = versions[ia], versions[ib]
        in_event = round_no is not None
        m = Match(variant=VARIANT, time_control="10+0.1", engine_a=a, engine_b=b, seed=n,
                  tournament=tournament if in_event else None, round=round_no,
                  status="finished", attempts=1)  # fmt: skip
        score = [0.0, 0.0]
        for index in (1, 2, 3):
            if index == 3 and score[0] != score[1]:
                break
            south, north = (a, b) if index % 2 else (b, a)
            result = rng.choice(results)
            final, moves = played[rng.randrange(len(played))]
            clock += dt.timedelta(seconds=20)
            pts = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[result]
            winner = None if pts == 0.5 else (south if pts == 1.0 else north)
            games.append(Game(match=m, index=index, south=south, north=north, winner=winner,
                              result=result, termination="bao_hamna", rated=True,
                              plies=len(moves), start_position=initial, final_position=final,
                              moves=moves, scores=[32, 0], started_at=clock,
                              duration_ms=15_000, finished_at=clock))  # fmt: skip
            a_pts = pts if south is a else 1 - pts
            score[0] += a_pts
            score[1] += 1 - a_pts
        m.score_a, m.score_b = score
        m.winner = a if score[0] > score[1] else b if score[1] > score[0] else None
        m.started_at, m.finished_at = clock - dt.timedelta(seconds=60), clock
        matches.append(m)
    Match.objects.bulk_create(matches, batch_size=2000)
    # created_at is set on insert (auto_now_add): give each match the time it was played.
    Match.objects.update(created_at=F("started_at"))
    for g in games:
        g.match_id = g.match.pk
    Game.objects.bulk_create(games, batch_size=500)
    rating = {v.pk: 1400.0 + 4 * i for i, v in enumerate(versions)}
    for m in matches:
        for me, them, got in ((m.engine_a, m.engine_b, m.score_a),
                              (m.engine_b, m.engine_a, m.score_b)):  # fmt: skip
            r = rating[me.pk]
            points.append(RatingPoint(
                match=m, engine_version=me, opponent=them, variant=VARIANT, games=2, points=got,
                rating=r, low=r - 40, high=r + 40, finished_at=m.finished_at,
                fitted_at=m.finished_at,
            ))  # fmt: skip
    RatingPoint.objects.bulk_create(points, batch_size=2000)
    Rating.objects.bulk_create(
        Rating(engine_version=v, variant=VARIANT, rating=r, low=r - 30, high=r + 30, games=100,
               wins=40, draws=20, losses=40, provisional=False, superiority=0.6)
        for v in versions for r in [rating[v.pk]]
    )  # fmt: skip
    RatingPool.objects.create(variant=VARIANT, fitted_at=clock)
    if tournament is not None:
        Tournament.objects.filter(pk=tournament.pk).update(finished_at=clock)
    return {
        "engine": engines[7].name,
        "tournament": tournament.pk if tournament else None,
        "game": games[len(games) // 2].pk,
        "matches": len(matches),
        "games": len(games),
    }


def _time_endpoint(client: Any, url: str, repeat: int) -> tuple[list[float], int, int]:
    """(times in ms, queries of one request, status) of ``repeat`` GETs after a warm-up."""
    from django.db import connection

    executed = []

    def count(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        executed.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(count):
        response = client.get(url)
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        client.get(url)
        runs.append((time.perf_counter() - start) * 1000)
    return runs, len(executed), response.status_code


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered) + 0.5) - 1))]


def endpoints_one(total_games: int, repeat: int, seed: int) -> None:
    """Build one size and print its endpoint table (runs in its own process)."""
    var = tempfile.mkdtemp(prefix="bao-bench-service-")
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith(("postgres://", "postgresql://")):
        _recreate_postgres(url)
    _setup(var)
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    call_command("migrate", verbosity=0)
    start = time.perf_counter()
    built = _build(total_games, seed)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    build_s = time.perf_counter() - start
    print(
        f"\n{connection.vendor}, {built['games']:,} games in {built['matches']:,} matches "
        f"(built in {build_s:.0f} s), {VERSIONS} engine versions, {PLIES} plies a game; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    name = built["engine"]
    urls = [
        ("GET /api/matches/?page=1", "/api/matches/?page=1"),
        ("GET /api/matches/?engine=NAME", f"/api/matches/?engine={name.upper()}"),
        ("GET /api/engines/NAME/ratings/", f"/api/engines/{name}/ratings/"),
        ("GET / (web page)", "/"),
        ("GET /api/leaderboard/", f"/api/leaderboard/?variant={VARIANT}"),
        ("GET /api/games/ID/ (replay)", f"/api/games/{built['game']}/"),
        ("GET /games/ID/ (replay page)", f"/games/{built['game']}/"),
    ]
    if built["tournament"] is not None:
        urls.append(
            (f"GET /api/tournaments/ID/ ({EVENT_ENGINES}-engine RR)",
             f"/api/tournaments/{built['tournament']}/")
        )  # fmt: skip
        urls.append(
            ("GET /tournaments/ID/ (page)", f"/tournaments/{built['tournament']}/")
        )
    client = Client()
    print(f"| what | min / p50 / p95 ms ({repeat} runs) | queries |")
    print("| --- | --- | --- |")
    for label, path in urls:
        runs, queries, status = _time_endpoint(client, path, repeat)
        shown = "" if status == 200 else f" (status {status})"
        print(
            f"| `{label}` | {min(runs):.1f} / {statistics.median(runs):.1f} / "
            f"{_percentile(runs, 0.95):.1f}{shown} | {queries} |",
            flush=True,
        )
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    shutil.rmtree(var, ignore_errors=True)


# --- the tournament section ------------------------------------------------------------------


def tournament_section(engines: int, seed: int) -> None:
    var = tempfile.mkdtemp(prefix="bao-bench-service-")
    os.environ["DATABASE_URL"] = f"sqlite:///{var}/bench.sqlite3"
    _setup(var)
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    call_command("migrate", verbosity=0)
    from arena.matches.models import Game, Match
    from engines.models import Engine, EngineVersion
    from tournaments import pairing, selectors, services
    from tournaments.models import Tournament

    rng = random.Random(seed)
    owner = get_user_model().objects.create(username="bench")
    versions = []
    for i in range(engines):
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


# --- the start section -----------------------------------------------------------------------


def start_section(engines: int, repeat: int) -> None:
    """Time starting a round robin of ``engines`` (``tournament_start``: every round's matches
    created, and queued when the transaction commits on ``CELERY_BROKER_URL``, default an
    in-memory broker), ``repeat`` times (a new tournament of the same engines each time), with
    its queries, its split (create / commit / publish) and the broker messages it sent."""
    var = tempfile.mkdtemp(prefix="bao-bench-service-")
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith(("postgres://", "postgresql://")):
        _recreate_postgres(url)
    _setup(var, eager=False)
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    from arena.celery import registered_task
    from arena.matches.models import Match
    from arena.matches.services import RUN_MATCH_TASK
    from engines.models import Engine, EngineVersion
    from tournaments import services

    broker = os.environ["CELERY_BROKER_URL"].split("://")[0]
    names = [f"engine{i:02d}" for i in range(engines)]
    for i, name in enumerate(names):
        owner = get_user_model().objects.create(username=f"owner{i}")
        engine = Engine.objects.create(owner=owner, name=name)
        EngineVersion.objects.create(engine=engine, number=1, status="active",
                                     original_filename="x", sha256="0" * 64, size_bytes=1,
                                     storage_path="x", variants=[VARIANT])  # fmt: skip
    # Loading the Celery app (its first registered_task: about 0.5 s) is left out: a worker
    # (where beat's start job runs) or a web process that queued anything before has paid it.
    run_match = registered_task(RUN_MATCH_TASK)
    real_commit, real_hooks = connection.commit, connection.run_and_clear_commit_hooks
    real_send = run_match.apply_async
    executed: list[str] = []
    # The split: the commit of tournament_start's transaction, and the publish pass of its
    # on-commit callbacks (the run_match wake-ups and their bookkeeping); the rest is creating
    # (pairing, checks, the bulk insert).
    spent = {"commit": 0.0, "publish": 0.0, "sends": 0.0}

    def count(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        executed.append(sql)
        return execute(sql, params, many, context)

    def timed_commit() -> None:
        began = time.perf_counter()
        real_commit()
        spent["commit"] += time.perf_counter() - began

    def timed_hooks() -> None:
        began = time.perf_counter()
        try:
            real_hooks()
        finally:
            spent["publish"] += time.perf_counter() - began

    def counted_send(*args: Any, **kwargs: Any) -> Any:
        spent["sends"] += 1
        return real_send(*args, **kwargs)

    connection.commit = timed_commit  # type: ignore[method-assign]
    connection.run_and_clear_commit_hooks = timed_hooks  # type: ignore[method-assign]
    run_match.apply_async = counted_send  # type: ignore[method-assign]
    totals: list[float] = []
    for run in range(1, repeat + 1):
        t = services.tournament_create(
            name=f"bench {run}", variant=VARIANT, engines=names, time_control="10+0.1",
            start_at=dt.datetime.now(dt.UTC) + dt.timedelta(days=1),
        )  # fmt: skip
        executed.clear()
        spent.update(commit=0.0, publish=0.0, sends=0.0)
        start = time.perf_counter()
        with connection.execute_wrapper(count):
            services.tournament_start(t.pk, now=dt.datetime.now(dt.UTC) + dt.timedelta(days=2))
        elapsed = time.perf_counter() - start
        totals.append(elapsed)
        matches = Match.objects.filter(tournament=t).count()
        queued = Match.objects.filter(tournament=t, queued_at__isnull=False).count()
        create = elapsed - spent["commit"] - spent["publish"]
        print(
            f"{connection.vendor}, broker {broker}: starting a {engines}-engine round robin "
            f"({matches:,} matches, {queued:,} queued): {elapsed:.2f} s, {len(executed):,} "
            f"queries (create {create:.2f} s, commit {spent['commit']:.2f} s, publish "
            f"{spent['publish']:.2f} s: {int(spent['sends']):,} broker messages); "
            f"load average {os.getloadavg()[0]:.1f}"
        )
    if repeat > 1:
        print(f"best {min(totals):.2f} s, median {statistics.median(totals):.2f} s "
              f"over {repeat}")  # fmt: skip
    shutil.rmtree(var, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("section", nargs="?", default="endpoints",
                        choices=["endpoints", "tournament", "start"])  # fmt: skip
    parser.add_argument("--games", type=int, nargs="+", default=[1000, 20000])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--engines", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # one size, in this process
    args = parser.parse_args()
    if args.section == "tournament":
        tournament_section(args.engines, args.seed)
    elif args.section == "start":
        start_section(args.engines, args.repeat)
    elif args.one is not None:
        endpoints_one(args.one, args.repeat, args.seed)
    else:
        for total in args.games:
            subprocess.run(
                [sys.executable, __file__, "--one", str(total), "--repeat", str(args.repeat),
                 "--seed", str(args.seed)],
                check=True,
            )  # fmt: skip


if __name__ == "__main__":
    main()
