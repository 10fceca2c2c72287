"""The service's costs on the database (prints figures, asserts nothing).

Two sections:

* ``endpoints`` (the default; issue 19): for each size in ``--games`` (e.g. ``1000 20000
  100000``), a fresh database is filled through the project's models (bulk inserts: 50 engine
  versions, best-of-three matches of real Bao la Kete games of about 56 plies, two rating
  history points per match, a leaderboard; from 10,000 games on, a finished 48-engine round
  robin among them), then each read endpoint is fetched in-process with the Django test
  client: a warm-up, then ``--repeat`` timed requests. Printed per endpoint: min / p50 / p95
  in ms and the number of SQL queries one request makes; the tournament pages, which the
  cache keeps once the event has ended, also with the cache cleared before each request
  (``CACHED_ENDPOINTS``, rows ``..., not cached``). With ``DATABASE_URL`` set to a
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
* ``record``: recording results as a worker does once the referee is done
  (``match_record_result`` under the match's lease with the row the runner loaded, then the
  metrics the runner counts): every
  match of a running round robin of ``--engines`` and ``--matches`` plain rated matches, each a
  best-of-three of three real Bao la Kete games of about 56 plies. Printed per result: min /
  p50 / p95 ms and queries, split into the recording transaction (the games, the status, the
  in-transaction ``MatchEnded`` subscribers: tournament progress, version tests) and after
  commit (the rating refit *request*, the ladder's top-up message; tasks go to an in-memory
  broker and are not run), the CPU time of the benchmark's process (the worker's side), then
  the queries of one result of each kind.

Nothing of the real ``var/`` is touched (a temporary ``BAO_VAR_DIR``).

Usage::

    python benchmarks/bench_service.py [endpoints] [--games 1000 20000] [--repeat 5]
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bao_w19 python benchmarks/bench_service.py
    python benchmarks/bench_service.py tournament [--engines 16] [--seed 1]
    python benchmarks/bench_service.py start [--engines 64] [--repeat 5]
    python benchmarks/bench_service.py record [--engines 12] [--matches 60]
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
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
    from ratings.models import Rating, RatingPoint, RatingPool
    from tournaments import pairing
    from tournaments.models import Tournament, TournamentEntry

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
    return _built_info()


def _built_info() -> dict[str, Any]:
    """What the endpoints need from a database ``_build`` filled: an engine name, the round
    robin's id (or None), a game in the middle, and the counts."""
    from arena.matches.models import Game, Match
    from tournaments.models import Tournament

    games = Game.objects.count()
    event = Tournament.objects.filter(name="bench round robin").values_list("pk", flat=True)
    game, match = Game.objects.order_by("id").values_list("pk", "match_id")[games // 2]
    return {
        "engine": "engine07",
        "tournament": event.first(),
        "game": game,
        "match": match,
        "matches": Match.objects.count(),
        "games": games,
    }


def _time_endpoint(client: Any, url: str, repeat: int, *, uncached: bool = False) -> dict[str, Any]:
    """One GET of ``url`` (the first: caches still empty), then ``repeat`` timed ones:
    ``first`` its ms, ``runs`` the ms of the others, ``queries`` the queries of the first and
    ``warm_queries`` of the last as (sql, ms), ``response`` the first response. ``uncached``:
    the cache is cleared before each request (outside the timing), as after a restart or for
    a tournament still running."""
    from django.core.cache import cache
    from django.db import connection

    def timed(executed: list[Any]) -> tuple[Any, float]:
        def count(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
            start = time.perf_counter()
            try:
                return execute(sql, params, many, context)
            finally:
                executed.append((sql, (time.perf_counter() - start) * 1000))

        if uncached:
            cache.clear()
        start = time.perf_counter()
        with connection.execute_wrapper(count):
            response = client.get(url)
        return response, (time.perf_counter() - start) * 1000

    queries: list[Any] = []
    response, first = timed(queries)
    runs = []
    warm: list[Any] = []
    for _ in range(repeat):
        warm = []
        runs.append(timed(warm)[1])
    return {"first": first, "runs": runs, "queries": queries, "warm_queries": warm,
            "response": response}  # fmt: skip


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered) + 0.5) - 1))]


def _endpoint_urls(built: dict[str, Any]) -> list[tuple[str, str]]:
    """(label, path) of every endpoint the sections time, for the database ``built`` names."""
    name = built["engine"]
    urls = [
        ("GET /api/matches/?page=1", "/api/matches/?page=1"),
        ("GET /api/matches/?engine=NAME", f"/api/matches/?engine={name.upper()}"),
        ("GET /api/engines/NAME/ratings/", f"/api/engines/{name}/ratings/"),
        ("GET / (web page)", "/"),
        ("GET /api/leaderboard/", f"/api/leaderboard/?variant={VARIANT}"),
        ("GET /api/games/ID/ (replay)", f"/api/games/{built['game']}/"),
        ("GET /games/ID/ (replay page)", f"/games/{built['game']}/"),
        ("GET /api/matches/ID/", f"/api/matches/{built['match']}/"),
    ]
    if built["tournament"] is not None:
        urls.append(
            (f"GET /api/tournaments/ID/ ({EVENT_ENGINES}-engine RR)",
             f"/api/tournaments/{built['tournament']}/")
        )  # fmt: skip
        urls.append(("GET /tournaments/ID/ (page)", f"/tournaments/{built['tournament']}/"))
    return urls


#: Endpoints whose answer the cache may keep (an ended tournament's,
#: ``tournaments.selectors.tournament_ended_cached``): timed twice, the second time with the
#: cache cleared before each request.
CACHED_ENDPOINTS = ("tournaments/ID",)


def _slug(label: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in label).strip("_")


def _ready_database(total_games: int, seed: int, reuse: bool) -> tuple[dict[str, Any], str]:
    """Migrate and fill the database for ``total_games`` (or, with ``reuse``, keep what an
    earlier run built there, if it has that many games): the built ids and how it was made."""
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    if reuse:
        from arena.matches.models import Game

        have = Game.objects.count()
        if have and abs(have - total_games) <= total_games // 10:
            return _built_info(), "reused"
        raise SystemExit(f"--reuse: the database holds {have:,} games, not about {total_games:,}")
    start = time.perf_counter()
    built = _build(total_games, seed)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    return built, f"built in {time.perf_counter() - start:.0f} s"


def endpoints_one(total_games: int, repeat: int, seed: int, opts: argparse.Namespace) -> None:
    """Build one size (or reuse it) and print its endpoint table (runs in its own process)."""
    var = tempfile.mkdtemp(prefix="bao-bench-service-")
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith(("postgres://", "postgresql://")) and not opts.reuse:
        _recreate_postgres(url)
    _setup(var)
    from django.db import connection
    from django.test import Client

    built, how = _ready_database(total_games, seed, opts.reuse)
    print(
        f"\n{connection.vendor}, {built['games']:,} games in {built['matches']:,} matches "
        f"({how}), {VERSIONS} engine versions, {PLIES} plies a game; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    urls = _endpoint_urls(built)
    timed = [(label, path, False) for label, path in urls]
    timed += [(f"{label}, not cached", path, True)
              for label, path in urls if any(c in label for c in CACHED_ENDPOINTS)]  # fmt: skip
    if opts.only:
        timed = [t for t in timed if any(o in t[0] for o in opts.only)]
    client = Client()
    gc.freeze()  # as a web worker does once loaded (arena/wsgi.py)
    print(f"| what | min / p50 / p95 ms ({repeat} runs) | first ms | queries (first, warm) |")
    print("| --- | --- | --- | --- |")
    for label, path, uncached in timed:
        t = _time_endpoint(client, path, repeat, uncached=uncached)
        runs, response = t["runs"], t["response"]
        shown = "" if response.status_code == 200 else f" (status {response.status_code})"
        print(
            f"| `{label}` | {min(runs):.1f} / {statistics.median(runs):.1f} / "
            f"{_percentile(runs, 0.95):.1f}{shown} | {t['first']:.0f} | "
            f"{len(t['queries'])}, {len(t['warm_queries'])} |",
            flush=True,
        )
        if opts.verbose:
            for sql, ms in t["queries"]:
                print(f"    {ms:7.1f} ms  {sql[: opts.verbose_width]}")
        if opts.dump:
            Path(opts.dump).mkdir(parents=True, exist_ok=True)
            Path(opts.dump, _slug(label)).write_bytes(response.content)
        if opts.profile and (uncached or not any(c in label for c in CACHED_ENDPOINTS)):
            import cProfile
            import pstats

            from django.core.cache import cache

            cache.clear()  # the request that builds the answer
            profiler = cProfile.Profile()
            profiler.runcall(client.get, path)
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(opts.profile)
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    shutil.rmtree(var, ignore_errors=True)


# --- the gunicorn section --------------------------------------------------------------------

#: A request that touches no database (WhiteNoise answers it in the middleware).
NO_DATABASE_PATH = "/static/web/arena.css"


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _http_get(port: int, path: str) -> tuple[int, float]:
    """(status, ms) of one GET on a new connection (gunicorn's sync workers close each)."""
    import http.client

    start = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return response.status, (time.perf_counter() - start) * 1000
    finally:
        conn.close()


def _hammer(port: int, path: str, clients: int, requests: int) -> tuple[list[float], list[int]]:
    """``requests`` GETs of ``path`` from ``clients`` threads at once: (ms of each, statuses)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(clients) as pool:
        done = list(pool.map(lambda _: _http_get(port, path), range(requests)))
    return [ms for _, ms in done], [status for status, _ in done]


def _row(label: str, runs: list[float], statuses: list[int], extra: str = "") -> str:
    bad = sorted({s for s in statuses if s != 200})
    shown = f" (statuses {bad})" if bad else ""
    return (
        f"| `{label}` | {min(runs):.1f} / {statistics.median(runs):.1f} / "
        f"{_percentile(runs, 0.95):.1f}{shown} | {extra} |"
    )


def _probe(port: int, stop: Any, seen: list[tuple[int, float]]) -> None:
    """GET ``NO_DATABASE_PATH`` every 20 ms into ``seen`` until ``stop`` is set."""
    while not stop.is_set():
        seen.append(_http_get(port, NO_DATABASE_PATH))
        time.sleep(0.02)


def gunicorn_section(total_games: int, seed: int, opts: argparse.Namespace) -> None:
    """Build (or ``--reuse``) the database of ``endpoints``, serve it with gunicorn
    (``--workers`` sync workers, DEBUG off, the settings' cache: ``BAO_CACHE_URL``, default a
    local-memory cache per worker) and time each endpoint under ``--clients`` concurrent
    clients over HTTP, ``--requests`` requests each after a warm-up of as many concurrent
    requests as workers, three times. Then the latency of a request that touches no database
    (``NO_DATABASE_PATH``) alone, and while ``--clients`` clients hammer the tournament pages."""
    import threading

    var = tempfile.mkdtemp(prefix="bao-bench-service-")
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith(("postgres://", "postgresql://")) and not opts.reuse:
        _recreate_postgres(url)
    _setup(var)
    from django.db import connection

    built, how = _ready_database(total_games, seed, opts.reuse)
    vendor = connection.vendor
    connection.close()
    port = _free_port()
    env = dict(os.environ, DJANGO_DEBUG="0", DJANGO_ALLOWED_HOSTS="127.0.0.1",
               DJANGO_SECRET_KEY="bench-service-" + "x" * 40, BAO_VAR_DIR=var)  # fmt: skip
    log = open(Path(var, "gunicorn.log"), "wb")  # noqa: SIM115 (closed below)
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "gunicorn"), "arena.wsgi", "--bind",
         f"127.0.0.1:{port}", "--workers", str(opts.workers), "--timeout", "120"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if _http_get(port, NO_DATABASE_PATH)[0] == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline or server.poll() is not None:
                raise SystemExit(f"gunicorn did not answer; see {var}/gunicorn.log")
            time.sleep(0.2)
        print(
            f"\n{vendor}, {built['games']:,} games in {built['matches']:,} matches ({how}); "
            f"gunicorn, {opts.workers} sync workers, DEBUG off, {opts.clients} concurrent "
            f"clients, {opts.requests} requests per endpoint; "
            f"load average {os.getloadavg()[0]:.1f}"
        )
        urls = _endpoint_urls(built)
        if opts.only:
            urls = [u for u in urls if any(o in u[0] for o in opts.only)]
        print("| what | min / p50 / p95 ms | requests/s, first ms |")
        print("| --- | --- | --- |")
        for label, path in urls:
            first = _http_get(port, path)[1]
            for _ in range(3):  # warm every worker (connections, caches)
                _hammer(port, path, opts.workers, opts.workers)
            start = time.perf_counter()
            runs, statuses = _hammer(port, path, opts.clients, opts.requests)
            rate = opts.requests / (time.perf_counter() - start)
            print(_row(label, runs, statuses, f"{rate:.0f}, {first:.0f}"), flush=True)
        idle = [_http_get(port, NO_DATABASE_PATH) for _ in range(50)]
        print(_row(f"GET {NO_DATABASE_PATH} (no database), alone",
                   [ms for _, ms in idle], [s for s, _ in idle]))  # fmt: skip
        heavy = [p for label, p in urls if "tournaments/ID" in label] or [urls[0][1]]
        for path in heavy:
            stop = threading.Event()
            seen: list[tuple[int, float]] = []
            prober = threading.Thread(target=_probe, args=(port, stop, seen))
            prober.start()
            runs, statuses = _hammer(port, path, opts.clients, opts.requests)
            stop.set()
            prober.join()
            print(_row(f"GET {NO_DATABASE_PATH}, while {opts.clients} clients GET {path}",
                       [ms for _, ms in seen], [s for s, _ in seen],
                       f"({len(seen)} probes; the hammered page p95 "
                       f"{_percentile(runs, 0.95):.0f} ms)"))  # fmt: skip
        print(f"load average after: {os.getloadavg()[0]:.1f}")
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
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


# --- the record section ----------------------------------------------------------------------


def _match_record(match: Any, played: list[tuple[str, list[dict[str, Any]]]], n: int) -> Any:
    """A referee ``MatchRecord`` of three games for ``match``: A wins game 1, B game 2, game 3
    a draw (so all three are played), each a real game of ``played``."""
    from arena import terminations as T
    from arena.referee import GameRecord, MatchRecord, MoveRecord
    from arena.referee.match import engine_names
    from arena.rules import get_variant

    a, b = engine_names(str(match.engine_a), str(match.engine_b))
    initial = get_variant(VARIANT).initial_position().to_text()
    games = []
    for index, (south, north, result) in enumerate(
        ((a, b, "1-0"), (b, a, "1-0"), (a, b, "1/2-1/2")), start=1
    ):
        final, moves = played[(n + index) % len(played)]
        games.append(GameRecord(
            index=index, south=south, north=north, start_position=initial,
            final_position=final, result=result,
            winner=south if result == "1-0" else None, termination=T.BAO_HAMNA,
            plies=len(moves), started_at=dt.datetime.now(dt.UTC).isoformat(),
            duration_ms=15_000, moves=[MoveRecord(**m) for m in moves],
        ))  # fmt: skip
    return MatchRecord(
        variant=VARIANT,
        seed=match.seed,
        time_control=match.time_control,
        engines=[a, b],
        games=games,
    )


def record_section(engines: int, rated_matches: int, seed: int) -> None:
    """Record every match of a running round robin of ``engines`` and ``rated_matches`` plain
    rated matches (module docstring); print the figures per kind and one result's queries."""
    var = tempfile.mkdtemp(prefix="bao-bench-service-")
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith(("postgres://", "postgresql://")):
        _recreate_postgres(url)
    _setup(var, eager=False)
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    from arena import metrics
    from arena.matches import events
    from arena.matches.leases import match_claim
    from arena.matches.models import Match
    from arena.matches.services import match_create, match_record_result
    from engines.models import Engine, EngineVersion
    from tournaments import services

    versions = []
    for i in range(max(engines, 2)):
        owner = get_user_model().objects.create(username=f"owner{i}")
        engine = Engine.objects.create(owner=owner, name=f"engine{i:02d}")
        versions.append(EngineVersion.objects.create(
            engine=engine, number=1, status="active", original_filename="x", sha256="0" * 64,
            size_bytes=1, storage_path="x", variants=[VARIANT]))  # fmt: skip
    now = dt.datetime.now(dt.UTC)
    organiser = get_user_model().objects.create(username="organiser", is_staff=True)
    t = services.tournament_create(
        name="bench", variant=VARIANT, engines=[str(v.engine.name) for v in versions],
        time_control="10+0.1", start_at=now + dt.timedelta(days=1), created_by=organiser,
    )  # fmt: skip
    services.tournament_start(t.pk, now=now + dt.timedelta(days=2))
    rng = random.Random(seed)
    plain = [
        match_create(engine_a=a, engine_b=b, variant=VARIANT, time_control="10+0.1")
        for a, b in (rng.sample(versions, 2) for _ in range(rated_matches))
    ]
    kinds = [("round robin", list(Match.objects.filter(tournament=t).order_by("id"))),
             ("rated match", plain)]  # fmt: skip
    played = _random_games(8, rng)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")

    phase = ["in"]
    executed: dict[str, list[str]] = {"in": [], "after": []}
    after_s = [0.0]
    run_logged = events._run_logged

    def after_commit(subscriber: Any, event: Any) -> None:
        phase[0] = "after"
        start = time.perf_counter()
        try:
            run_logged(subscriber, event)
        finally:
            after_s[0] += time.perf_counter() - start

    def count(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        executed[phase[0]].append(sql)
        return execute(sql, params, many, context)

    events._run_logged = after_commit  # type: ignore[assignment]
    print(
        f"{connection.vendor}: recording {len(kinds[0][1])} matches of a running "
        f"{len(versions)}-engine round robin and {len(plain)} rated matches, 3 games of about "
        f"{PLIES} plies each; load average {os.getloadavg()[0]:.1f}"
    )
    print("| what | in the transaction: min / p50 / p95 ms, queries | after commit: ms p50, "
          "queries | total p50 / p95 ms | CPU of this process p50 ms |")  # fmt: skip
    print("| --- | --- | --- | --- | --- |")
    shown: list[tuple[str, dict[str, list[str]]]] = []
    for label, matches in kinds:
        inside_ms, after_ms, total_ms, cpu_ms = [], [], [], []
        queries_in, queries_after = [], []
        for n, match in enumerate(matches):
            claim = match_claim(match.pk, lease_seconds=900)
            assert claim is not None, match.pk
            # The runner's own read before it plays (arena.matches.runner.play_claimed).
            loaded = Match.objects.select_related("engine_a__engine", "engine_b__engine").get(
                pk=match.pk
            )
            record = _match_record(loaded, played, n)
            phase[0] = "in"
            after_s[0] = 0.0
            executed["in"], executed["after"] = [], []
            start, cpu = time.perf_counter(), time.process_time()
            with connection.execute_wrapper(count):
                assert match_record_result(claim.match_id, claim.token, record, match=loaded)
                metrics.count_recorded_games(record.games)
            total = (time.perf_counter() - start) * 1000
            cpu_ms.append((time.process_time() - cpu) * 1000)
            total_ms.append(total)
            after_ms.append(after_s[0] * 1000)
            inside_ms.append(total - after_s[0] * 1000)
            queries_in.append(len(executed["in"]))
            queries_after.append(len(executed["after"]))
            if n == len(matches) // 2:
                shown.append((label, {k: list(v) for k, v in executed.items()}))
            # A second delivery of the same result writes nothing, with the row or without.
            assert not match_record_result(claim.match_id, claim.token, record, match=loaded)
            assert not match_record_result(claim.match_id, claim.token, record)
        print(
            f"| {label} ({len(matches)}) | {min(inside_ms):.1f} / "
            f"{statistics.median(inside_ms):.1f} / {_percentile(inside_ms, 0.95):.1f}, "
            f"{min(queries_in)}-{max(queries_in)} | {statistics.median(after_ms):.1f}, "
            f"{min(queries_after)}-{max(queries_after)} | {statistics.median(total_ms):.1f} / "
            f"{_percentile(total_ms, 0.95):.1f} | {statistics.median(cpu_ms):.1f} |",
            flush=True,
        )
    events._run_logged = run_logged  # type: ignore[assignment]
    t.refresh_from_db()
    print(f"tournament {t.status}; load average after: {os.getloadavg()[0]:.1f}")
    for label, queries in shown:
        for which, sqls in queries.items():
            print(f"\n{label}, {'in the transaction' if which == 'in' else 'after commit'}:")
            for sql in sqls:
                print(f"  {sql[:160]}")
    shutil.rmtree(var, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("section", nargs="?", default="endpoints",
                        choices=["endpoints", "gunicorn", "tournament", "start",
                                 "record"])  # fmt: skip
    parser.add_argument("--games", type=int, nargs="+", default=[1000, 20000])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--engines", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--matches", type=int, default=60)
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="keep the database an earlier run of the same --games built",
    )
    parser.add_argument(
        "--only",
        nargs="+",
        metavar="TEXT",
        help="only the endpoints whose label holds one of these",
    )
    parser.add_argument("--dump", metavar="DIR", help="write each endpoint's body to DIR")
    parser.add_argument("--verbose", action="store_true", help="print each query with its ms")
    parser.add_argument("--verbose-width", type=int, default=200, help=argparse.SUPPRESS)
    parser.add_argument(
        "--profile",
        type=int,
        metavar="N",
        default=0,
        help="print the N costliest functions of one request (cProfile)",
    )
    parser.add_argument("--workers", type=int, default=3, help="gunicorn: web workers")
    parser.add_argument("--clients", type=int, default=4, help="gunicorn: concurrent clients")
    parser.add_argument(
        "--requests",
        type=int,
        default=100,
        help="gunicorn: requests per endpoint (all clients together)",
    )
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # one size, in this process
    args = parser.parse_args()
    if args.section == "tournament":
        tournament_section(args.engines, args.seed)
    elif args.section == "start":
        start_section(args.engines, args.repeat)
    elif args.section == "record":
        record_section(args.engines, args.matches, args.seed)
    elif args.section == "gunicorn":
        if len(args.games) != 1:
            parser.error("gunicorn: one size in --games")
        gunicorn_section(args.games[0], args.seed, args)
    elif args.one is not None:
        endpoints_one(args.one, args.repeat, args.seed, args)
    else:
        passed = [a for a in sys.argv[1:] if a != "endpoints"]
        games_at = passed.index("--games") if "--games" in passed else None
        if games_at is not None:  # every option but the sizes goes to each size's process
            end = games_at + 1
            while end < len(passed) and passed[end].isdigit():
                end += 1
            passed = passed[:games_at] + passed[end:]
        for total in args.games:
            subprocess.run([sys.executable, __file__, "--one", str(total), *passed], check=True)


if __name__ == "__main__":
    main()
