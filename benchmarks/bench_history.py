"""Costs as history grows (issue 32): every endpoint, a refit and a record at 10^4, 10^5 and
10^6 games, with the growth per 10x games; and the endpoint bar (prints figures, asserts
nothing).

A PostgreSQL cluster of its own is made for the run (``bench_dispatch.cluster``: ``initdb``
of ``--pg-bin`` in a temporary directory, a free loopback port, ``fsync=off``), the project's
migrations applied, and torn down at the end: no shared server is touched.

``growth`` (the default): the realistic part first, built through the models as
``bench_service.py`` builds it (50 engine versions, best-of-three matches of real Bao la Kete
games of about 56 plies, two rating points a match, a leaderboard, a finished 48-engine round
robin), plus one match holding a real 300-ply game (the replay timed). Then for each size of
``--sizes`` (ascending) bulk history is added with SQL ``generate_series`` up to that many
games: best-of-three matches of two games among ``--history-versions`` other versions
(``--history-engines`` engines), older than the realistic part, with two rating points each;
each bulk game's row copies a real game's columns but carries an empty move list (a real
game's moves, about 11 kB of JSON, are TOASTed out of line: the heap rows the queries scan
are the same size). ``VACUUM ANALYZE`` after each step. At each size, in the same process
(paired: the same run, the same load):

* every read endpoint of the API and the site, in-process through Django's test client: a
  warm-up request (caches filled), then ``--repeat`` timed ones; the median ms and the
  queries of the last. The engine timed is ``engine07``, an entrant of the round robin whose
  own games do not grow with the history (what "the engine page costs the same at 10^7 games"
  means); the cached tournament pages are also timed with the cache cleared before each
  request (``, not cached``);
* a refit of the variant of the history (``ratings.services.rating_refit``), median of
  ``--refit-runs``;
* a record: ``match_record_result`` of one rated best-of-three (three real games) under its
  lease, as the worker calls it, median of ``--records`` matches.

Printed: one table, a column per size, and the growth per 10x games ((last / first) ** (1 /
decades)), with ``os.getloadavg()`` at each size; and that growth divided by the control's,
the geometric mean growth of the endpoints that read nothing the history fills (``CONTROL``):
on a shared machine the load drifts between sizes, and the control shows by how much.

``bar``: 2x10^4 games (the realistic part alone, its round robin finished), every endpoint's
median against the targets: every endpoint under 30 ms, the tournament (API and page, cache
cleared) under 100 ms; PASS or FAIL per row.

Usage::

    python benchmarks/bench_history.py [growth] [--sizes 10000 100000 1000000] [--repeat 7]
    python benchmarks/bench_history.py bar [--repeat 9]

Run from a checkout's root (it imports that checkout's ``arena``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import itertools
import logging
import math
import os
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path.cwd()
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

VARIANT = "bao-la-kete"
ENGINE = "engine07"
#: The targets of the endpoint bar (issue 32), ms.
TARGET_MS = 30.0
TOURNAMENT_TARGET_MS = 100.0
LONG_PLIES = 300
#: Endpoints that read no table the bulk history fills (no live games, no version tests).
CONTROL = ("GET /api/tests/", "GET /api/live/", "GET /tests/", "GET /live/")


def _setup(url: str, var: Path) -> None:
    os.environ.update(
        DATABASE_URL=url,
        DATABASE_CONN_MAX_AGE="600",
        # The bulk inserts and VACUUM of 10^6 games run for minutes: no statement deadline.
        DATABASE_STATEMENT_TIMEOUT_MS="0",
        CELERY_BROKER_URL="memory://",
        CELERY_TASK_ALWAYS_EAGER="false",  # a record's refit request stays in memory
        BAO_LADDER_ENABLED="0",
        BAO_VAR_DIR=str(var),
        DJANGO_SETTINGS_MODULE="arena.settings",
    )
    import logging

    import django

    django.setup()
    logging.disable(logging.ERROR)


def _long_game(rng: random.Random) -> tuple[str, list[dict[str, Any]]]:
    """A real Bao la Kete game of ``LONG_PLIES`` plies, in the referee's record shape: a random
    walk that steps back a few plies whenever the game ends (random games end in under 100
    plies), so every move is legal and no position before the last is an ending."""
    from arena.rules import get_variant

    v = get_variant(VARIANT)
    path: list[tuple[Any, str]] = [(v.initial_position(), "")]
    while len(path) <= LONG_PLIES:
        p = path[-1][0]
        if v.outcome(p) is not None:
            del path[max(1, len(path) - rng.randint(2, 12)) :]
            continue
        move = rng.choice(v.legal_moves(p))
        path.append((v.apply(p, move), str(move)))
    moves: list[dict[str, Any]] = []
    clock = {"S": 10_000, "N": 10_000}
    for (before, _), (after, move) in itertools.pairwise(path):
        side = before.side
        spent = rng.randint(5, 300)
        clock[side] = clock[side] - spent + 100
        moves.append({
            "ply": len(moves) + 1, "side": side, "move": move, "time_ms": spent,
            "clock_ms": clock[side], "position": after.to_text(), "info": ["depth 6 score 12"],
        })  # fmt: skip
    return path[-1][0].to_text(), moves


def _add_long_game(rng: random.Random) -> int:
    """A finished unrated match of engine07 against engine08 holding one 300-ply game; its id."""
    from arena.matches.models import Game, Match
    from arena.rules import get_variant
    from engines.models import EngineVersion

    a = EngineVersion.objects.get(engine__name=ENGINE)
    b = EngineVersion.objects.get(engine__name="engine08")
    final, moves = _long_game(rng)
    at = dt.datetime(2024, 12, 31, tzinfo=dt.UTC)
    m = Match.objects.create(variant=VARIANT, time_control="10+0.1", engine_a=a, engine_b=b,
                             seed=1, best_of=1, status="finished", attempts=1, rated=False,
                             score_a=0.5, score_b=0.5, started_at=at, finished_at=at)  # fmt: skip
    g = Game.objects.create(match=m, index=1, south=a, north=b, result="1/2-1/2",
                            termination="ply_cap", rated=False, plies=len(moves),
                            start_position=get_variant(VARIANT).initial_position().to_text(),
                            final_position=final, moves=moves, started_at=at, finished_at=at,
                            duration_ms=60_000)  # fmt: skip
    return int(g.pk)


# --------------------------------------------------------------------------- bulk history


def _history_versions(engines: int, versions: int) -> list[int]:
    """``engines`` engines of another owner with ``versions`` versions among them, rated; ids."""
    from django.contrib.auth import get_user_model

    from engines.models import Engine, EngineVersion
    from ratings.models import Rating

    owner = get_user_model().objects.create(username="history")
    made = Engine.objects.bulk_create(
        Engine(owner=owner, name=f"old{i:04d}") for i in range(engines)
    )
    rows = EngineVersion.objects.bulk_create(
        EngineVersion(engine=made[i % engines], number=1 + i // engines, status="retired",
                      original_filename="x", sha256="0" * 64, size_bytes=1, storage_path="x",
                      variants=[VARIANT])
        for i in range(versions)
    )  # fmt: skip
    Rating.objects.bulk_create(
        Rating(engine_version=v, variant=VARIANT, rating=1300.0 + i % 400, low=1250.0 + i % 400,
               high=1350.0 + i % 400, games=1000, wins=400, draws=200, losses=400,
               provisional=False, superiority=0.5)
        for i, v in enumerate(rows)
    )  # fmt: skip
    return [int(v.pk) for v in rows]


def _insert_select(model: Any, overrides: dict[str, str], source: str) -> str:
    """``INSERT INTO`` the table of ``model`` every column but the key, from ``source`` (a
    FROM clause with the template row as ``t``): ``t``'s value unless ``overrides`` gives an
    expression for that column."""
    cols = [f.column for f in model._meta.concrete_fields if not f.primary_key]
    exprs = [overrides.get(c, f"t.{c}") for c in cols]
    return (
        f"INSERT INTO {model._meta.db_table} ({', '.join(cols)}) "
        f"SELECT {', '.join(exprs)} FROM {source}"
    )


def add_history(games: int, versions: list[int], done: int) -> int:
    """Add about ``games`` bulk games (``games // 2`` matches of two games, two rating points
    each) among ``versions``, older than everything so far; ``done`` is the number of bulk
    matches added before (their times go further back). Returns the matches added."""
    from django.db import connection

    from arena.matches.models import Game, Match
    from ratings.models import RatingPoint

    n = games // 2
    if n <= 0:
        return 0
    match_t = Match.objects.filter(tournament=None, status="finished", best_of=3).order_by("pk")
    template = match_t.values_list("pk", flat=True).first()
    game_t = Game.objects.filter(match_id=template, index=1).values_list("pk", flat=True).first()
    point_t = RatingPoint.objects.filter(match_id=template).values_list("pk", flat=True).first()
    last = Match.objects.order_by("-pk").values_list("pk", flat=True).first()
    # Version pairs: a from g, b at an offset 1..n-1 from a (never the same version).
    k = len(versions)
    a = f"(%(v)s::bigint[])[1 + mod(g.i, {k})]"
    b = f"(%(v)s::bigint[])[1 + mod(g.i + 1 + mod(g.i / {k}, {k - 1}), {k})]"
    at = "(TIMESTAMPTZ '2024-12-30 00:00+00' - make_interval(secs => 40 * (g.i + %(done)s)))"
    match_sql = _insert_select(
        Match,
        {
            "engine_a_id": a, "engine_b_id": b, "seed": "g.i", "tournament_id": "NULL",
            "round": "NULL", "challenger_id": "NULL", "submitter_id": "NULL",
            "score_a": "1.0", "score_b": "1.0", "winner_id": "NULL",
            "created_at": f"{at} - interval '60 seconds'",
            "started_at": f"{at} - interval '60 seconds'", "finished_at": at,
            "queued_at": f"{at} - interval '61 seconds'",
        },
        f"{Match._meta.db_table} t, generate_series(1, %(n)s) AS g(i) WHERE t.id = %(t)s",
    )  # fmt: skip
    side_a = "CASE s.i WHEN 1 THEN m.engine_a_id ELSE m.engine_b_id END"
    side_b = "CASE s.i WHEN 1 THEN m.engine_b_id ELSE m.engine_a_id END"
    result = "(ARRAY['1-0', '0-1', '1/2-1/2'])[1 + mod(m.seed + s.i, 3)]"
    game_sql = _insert_select(
        Game,
        {
            "match_id": "m.id", "index": "s.i", "south_id": side_a, "north_id": side_b,
            "result": result,
            "winner_id": f"CASE mod(m.seed + s.i, 3) WHEN 0 THEN {side_a} "
            f"WHEN 1 THEN {side_b} END",
            "moves": "'[]'::jsonb", "engine_errors": "'{}'::jsonb",
            "started_at": "m.finished_at - interval '40 seconds' * (3 - s.i)",
            "finished_at": "m.finished_at - interval '20 seconds' * (2 - s.i)",
        },
        f"{Game._meta.db_table} t, {Match._meta.db_table} m, generate_series(1, 2) AS s(i) "
        "WHERE t.id = %(t)s AND m.id > %(last)s",
    )  # fmt: skip
    point_sql = _insert_select(
        RatingPoint,
        {
            "match_id": "m.id", "engine_version_id": side_a, "opponent_id": side_b,
            "points": "1.0", "finished_at": "m.finished_at", "fitted_at": "m.finished_at",
        },
        f"{RatingPoint._meta.db_table} t, {Match._meta.db_table} m, generate_series(1, 2) AS s(i) "
        "WHERE t.id = %(t)s AND m.id > %(last)s",
    )  # fmt: skip
    usage = f"ALTER TABLE {Match._meta.db_table} {{}} TRIGGER matches_usage_on_insert"
    with connection.cursor() as cursor:
        cursor.execute("SET statement_timeout = 0")  # the project's web timeout is not for this
        # The usage rollup's trigger (matches migration 0020) adds each finished match to its
        # account's one UsageTotal row: 5x10^5 updates of one row in one statement, each
        # walking the row's versions before it, took over an hour. The bulk history is older
        # than any fair-share window, so its minutes would be pruned from the totals anyway.
        cursor.execute(usage.format("DISABLE"))
        cursor.execute(match_sql, {"v": versions, "n": n, "t": template, "done": done})
        cursor.execute(usage.format("ENABLE"))
        cursor.execute(game_sql, {"t": game_t, "last": last})
        cursor.execute(point_sql, {"t": point_t, "last": last})
    return n


def vacuum_analyze() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SET statement_timeout = 0")
        cursor.execute("VACUUM ANALYZE")


# --------------------------------------------------------------------------- what is timed


def endpoint_urls(built: dict[str, Any], long_game: int) -> list[tuple[str, str, bool]]:
    """(label, path, uncached) of every read endpoint timed."""
    name, game, match = built["engine"], built["game"], built["match"]
    urls = [
        ("GET /api/matches/", "/api/matches/"),
        ("GET /api/matches/?page=20", "/api/matches/?page=20"),
        ("GET /api/matches/?variant=&rated=true", f"/api/matches/?variant={VARIANT}&rated=true"),
        ("GET /api/matches/?engine=NAME", f"/api/matches/?engine={name.upper()}"),
        ("GET /api/matches/ID/", f"/api/matches/{match}/"),
        ("GET /api/games/ID/ (56 plies)", f"/api/games/{game}/"),
        (f"GET /api/games/ID/ ({LONG_PLIES} plies)", f"/api/games/{long_game}/"),
        ("GET /api/games/ID/record.txt", f"/api/games/{game}/record.txt"),
        ("GET /api/games/export/?engine&limit=50", f"/api/games/export/?engine={name}&limit=50"),
        ("GET /api/engines/", "/api/engines/"),
        ("GET /api/engines/NAME/", f"/api/engines/{name}/"),
        ("GET /api/engines/NAME/versions/1/", f"/api/engines/{name}/versions/1/"),
        ("GET /api/engines/NAME/ratings/", f"/api/engines/{name}/ratings/"),
        ("GET /api/leaderboard/", f"/api/leaderboard/?variant={VARIANT}"),
        ("GET /api/ladder/", f"/api/ladder/?variant={VARIANT}"),
        ("GET /api/tournaments/", "/api/tournaments/"),
        ("GET /api/tests/", "/api/tests/"),
        ("GET /api/live/", "/api/live/"),
        ("GET /api/queue/", "/api/queue/"),
        ("GET / (home)", "/"),
        ("GET /engines/", "/engines/"),
        ("GET /engines/NAME/", f"/engines/{name}/"),
        ("GET /matches/", "/matches/"),
        ("GET /matches/?page=20", "/matches/?page=20"),
        ("GET /matches/?engine=NAME", f"/matches/?engine={name}"),
        ("GET /matches/ID/", f"/matches/{match}/"),
        ("GET /games/ID/ (56 plies)", f"/games/{game}/"),
        (f"GET /games/ID/ ({LONG_PLIES} plies)", f"/games/{long_game}/"),
        ("GET /tournaments/", "/tournaments/"),
        ("GET /tests/", "/tests/"),
        ("GET /live/", "/live/"),
    ]
    timed = [(label, path, False) for label, path in urls]
    if built["tournament"] is not None:
        t = built["tournament"]
        rr = "(48-engine RR)"
        for label, path in ((f"GET /api/tournaments/ID/ {rr}", f"/api/tournaments/{t}/"),
                            (f"GET /tournaments/ID/ {rr}", f"/tournaments/{t}/")):  # fmt: skip
            timed.append((label, path, False))
            timed.append((f"{label}, not cached", path, True))
    return timed


def _only(timed: list[tuple[str, str, bool]], only: list[str] | None) -> list[Any]:
    """The endpoints whose label holds one of ``only`` (all without it), the control's too."""
    if not only:
        return timed
    return [t for t in timed if t[0] in CONTROL or any(o in t[0] for o in only)]


def time_endpoints(
    timed: list[tuple[str, str, bool]], repeat: int
) -> dict[str, tuple[float, int, int]]:
    """label -> (median ms, queries of the last request, status)."""
    from bench_service import _time_endpoint
    from django.test import Client

    client = Client()
    out: dict[str, tuple[float, int, int]] = {}
    for label, path, uncached in timed:
        t = _time_endpoint(client, path, repeat, uncached=uncached)
        out[label] = (
            statistics.median(t["runs"]),
            len(t["warm_queries"]),
            t["response"].status_code,
        )
    return out


def count_head_to_head() -> tuple[float, int]:
    """Count the variant's ``HeadToHead`` rows again from its games (the bulk history is
    inserted in SQL, not recorded, so its games are not in them yet): seconds, rows."""
    from ratings.services import head_to_head_rebuild

    start = time.perf_counter()
    rows = head_to_head_rebuild(VARIANT)
    return time.perf_counter() - start, rows


class _RefitLog(logging.Handler):
    """Keeps the read, fit and write times ``rating_refit`` logs (ms)."""

    PATTERN = re.compile(r"read (\d+) ms, fit (\d+) ms, write (\d+) ms")

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.parts: list[tuple[float, float, float]] = []

    def emit(self, record: logging.LogRecord) -> None:
        found = self.PATTERN.search(record.getMessage())
        if found:
            self.parts.append((float(found[1]), float(found[2]), float(found[3])))


def time_refit(runs: int) -> dict[str, float]:
    """Medians over ``runs`` refits of the variant (``rating_refit``): ``refit`` its wall ms,
    ``cpu`` this process's CPU ms, and the ``read``, ``fit`` and ``write`` ms it logs."""
    from ratings.services import rating_refit

    log = _RefitLog()
    services_log = logging.getLogger("ratings.services")
    services_log.addHandler(log)
    services_log.setLevel(logging.INFO)
    logging.disable(logging.NOTSET)
    walls, cpus = [], []
    try:
        for _ in range(runs):
            start, cpu = time.perf_counter(), time.process_time()
            rating_refit(VARIANT)
            walls.append((time.perf_counter() - start) * 1000)
            cpus.append((time.process_time() - cpu) * 1000)
    finally:
        logging.disable(logging.ERROR)
        services_log.removeHandler(log)
    out = {"refit": statistics.median(walls), "cpu": statistics.median(cpus)}
    for k, part in enumerate(("read", "fit", "write")):
        out[part] = statistics.median(p[k] for p in log.parts) if log.parts else 0.0
    return out


def time_record(count: int, rng: random.Random) -> tuple[float, int]:
    """Median ms and queries of ``match_record_result`` of ``count`` new rated best-of-three
    matches between two round-robin entrants, each under its own lease."""
    from bench_service import _match_record, _random_games
    from django.db import connection

    from arena.matches.leases import match_claim
    from arena.matches.models import Match
    from arena.matches.services import match_create, match_record_result
    from engines.models import EngineVersion

    a = EngineVersion.objects.get(engine__name="engine01")
    b = EngineVersion.objects.get(engine__name="engine02")
    played = _random_games(3, rng)
    times, queries = [], []
    for n in range(count):
        match = match_create(engine_a=a, engine_b=b, variant=VARIANT, time_control="10+0.1")
        claim = match_claim(match.pk, lease_seconds=900)
        assert claim is not None
        loaded = Match.objects.select_related("engine_a__engine", "engine_b__engine").get(
            pk=match.pk
        )
        record = _match_record(loaded, played, n)
        executed: list[str] = []

        def count_query(
            execute: Any, sql: str, params: Any, many: bool, ctx: Any, seen: list[str] = executed
        ) -> Any:
            seen.append(sql)
            return execute(sql, params, many, ctx)

        start = time.perf_counter()
        with connection.execute_wrapper(count_query):
            assert match_record_result(claim.match_id, claim.token, record, match=loaded)
        times.append((time.perf_counter() - start) * 1000)
        queries.append(len(executed))
    return statistics.median(times), max(queries)


# --------------------------------------------------------------------------- the modes


def _load() -> str:
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


def _build_realistic(games: int, seed: int) -> tuple[dict[str, Any], int]:
    from bench_service import _build
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    built = _build(games, seed)
    long_game = _add_long_game(random.Random(seed))
    return built, long_game


def growth(args: argparse.Namespace) -> None:
    from arena.matches.models import Game

    sizes = sorted(args.sizes)
    rng = random.Random(args.seed)
    start = time.perf_counter()
    built, long_game = _build_realistic(min(sizes[0], 10_000), args.seed)
    history = _history_versions(args.history_engines, args.history_versions)
    print(f"realistic part: {Game.objects.count():,} games, built in "
          f"{time.perf_counter() - start:.0f} s; load {_load()}", flush=True)  # fmt: skip
    timed = _only(endpoint_urls(built, long_game), args.only)
    columns: list[dict[str, tuple[float, int, int]]] = []
    extra: list[dict[str, float]] = []
    loads: list[str] = []
    done = 0
    gc.freeze()
    for size in sizes:
        start = time.perf_counter()
        done += add_history(size - Game.objects.count(), history, done)
        counted, pairs = count_head_to_head()
        vacuum_analyze()
        total = Game.objects.count()
        print(f"{total:,} games: built in {time.perf_counter() - start:.0f} s (head-to-head "
              f"counted again in {counted:.1f} s: {pairs:,} rows); load {_load()}",
              flush=True)  # fmt: skip
        loads.append(_load())
        columns.append(time_endpoints(timed, args.repeat))
        refit = time_refit(args.refit_runs)
        record, record_queries = time_record(args.records, rng)
        extra.append({**refit, "record": record, "record_queries": record_queries})
        loads[-1] += f" -> {_load()}"
        for label, (ms, queries, status) in columns[-1].items():
            print(f"  {label}: {ms:.1f} ms, {queries} queries, {status}")
        print(f"  refit {refit['refit']:.0f} ms wall, {refit['cpu']:.0f} ms CPU (read "
              f"{refit['read']:.0f}, fit {refit['fit']:.0f}, write {refit['write']:.0f} ms), "
              f"record {record:.1f} ms; load {_load()}", flush=True)  # fmt: skip
    _print_growth(sizes, timed, columns, extra, loads)


def _growth(values: list[float], sizes: list[int]) -> float:
    """The growth per 10x: (last / first) ** (1 / decades)."""
    decades = math.log10(sizes[-1] / sizes[0])
    if decades <= 0 or values[0] <= 0:
        return 1.0
    return float((values[-1] / values[0]) ** (1 / decades))


def _print_growth(
    sizes: list[int],
    timed: list[tuple[str, str, bool]],
    columns: list[dict[str, tuple[float, int, int]]],
    extra: list[dict[str, float]],
    loads: list[str],
) -> None:
    head = " | ".join(f"{s:,} games ms (queries)" for s in sizes)
    # The endpoints that read no table the history fills: their growth is the machine's (the
    # load drifting between sizes), by which the others' is divided in the last column.
    control = math.exp(
        statistics.mean(
            math.log(_growth([col[label][0] for col in columns], sizes)) for label in CONTROL
        )
    )
    print(f"\n| what | {head} | growth per 10x | over the control's {control:.2f}x |")
    print("| --- |" + " --- |" * (len(sizes) + 2))
    worst = 0.0
    for label, _path, _uncached in timed:
        cells = []
        for col in columns:
            ms, queries, status = col[label]
            shown = "" if status == 200 else f" [{status}]"
            cells.append(f"{ms:.1f} ({queries}){shown}")
        g = _growth([col[label][0] for col in columns], sizes)
        worst = max(worst, g)
        print(f"| `{label}` | {' | '.join(cells)} | {g:.2f}x | {g / control:.2f}x |")
    for key, label in (
        ("refit", "refit (rating_refit), wall"),
        ("cpu", "refit, CPU of this process"),
        ("read", "refit: read head-to-head"),
        ("fit", "refit: fit"),
        ("write", "refit: write ratings and history"),
        ("record", "record (one match)"),
    ):
        values = [e[key] for e in extra]
        cells = [f"{v:.1f}" for v in values]
        if key == "record":
            pairs = zip(values, extra, strict=True)
            cells = [f"{v:.1f} ({int(e['record_queries'])})" for v, e in pairs]
        g = _growth(values, sizes)
        print(f"| {label} | {' | '.join(cells)} | {g:.2f}x | {g / control:.2f}x |")
    print(f"| load (1/5/15 min) | {' | '.join(loads)} | | |")
    print(f"\nworst endpoint growth per 10x: {worst:.2f}x")


def bar(args: argparse.Namespace) -> None:
    from arena.matches.models import Game

    start = time.perf_counter()
    built, long_game = _build_realistic(args.bar_games, args.seed)
    vacuum_analyze()
    print(f"{Game.objects.count():,} games, a finished 48-engine round robin; built in "
          f"{time.perf_counter() - start:.0f} s; load {_load()}", flush=True)  # fmt: skip
    gc.freeze()
    timed = _only(endpoint_urls(built, long_game), args.only)
    results = time_endpoints(timed, args.repeat)
    print(f"\n| what | median ms ({args.repeat} runs) | queries | target ms | |")
    print("| --- | --- | --- | --- | --- |")
    passed = 0
    for label, _path, _uncached in timed:
        ms, queries, status = results[label]
        target = TOURNAMENT_TARGET_MS if "tournaments/ID" in label else TARGET_MS
        ok = ms < target and status == 200
        passed += ok
        shown = "" if status == 200 else f" [{status}]"
        print(f"| `{label}` | {ms:.1f}{shown} | {queries} | {target:.0f} | "
              f"{'pass' if ok else 'FAIL'} |")  # fmt: skip
    print(f"\n{passed} of {len(timed)} endpoints meet their target; load {_load()}")


def main() -> None:
    from bench_dispatch import cluster

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", nargs="?", default="growth", choices=["growth", "bar"])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--bar-games", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--refit-runs", type=int, default=3)
    parser.add_argument("--records", type=int, default=5)
    parser.add_argument("--history-engines", type=int, default=250)
    parser.add_argument("--history-versions", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--only", nargs="+", metavar="TEXT", help="only the endpoints whose label holds one"
    )
    parser.add_argument("--pg-bin", type=Path, default=Path("/usr/lib/postgresql/15/bin"))
    args = parser.parse_args()
    print(f"bench_history {args.mode} on {ROOT}; load {_load()}", flush=True)
    var = Path(tempfile.mkdtemp(prefix="bench-history-"))
    try:
        with cluster(args.pg_bin, 20) as url:
            _setup(url, var)
            (bar if args.mode == "bar" else growth)(args)
    finally:
        shutil.rmtree(var, ignore_errors=True)


if __name__ == "__main__":
    main()
