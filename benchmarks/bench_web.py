"""Time of the web pages with 10^5 games behind them (prints figures, asserts nothing).

Builds a throw-away SQLite database as ``bench_ratings.py --database`` does (``--versions``
engines, ``--games`` games as rated best-of-three matches, refitted so every version has a
rating and a history), puts the first ``--tournament`` versions' matches among themselves into
a round-robin tournament, then asks each page through Django's test client ``--repeat`` times
and prints, per page, the median time and the number of SQL queries (a number that does not
grow with the rows is what "no N+1 queries" means; tests hold it to a budget). The engine page
is asked for the engine with the most games.

Usage::

    python benchmarks/bench_web.py [--games 100000] [--versions 500] [--repeat 5] [--seed 1]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_ratings import populate, simulated_games, throwaway_database


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--versions", type=int, default=500)
    parser.add_argument("--tournament", type=int, default=8, help="entries of the tournament")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--verbose", action="store_true", help="print each slowest query")
    args = parser.parse_args()
    games, _ = simulated_games(args.versions, args.games, args.seed)
    var = throwaway_database("bao-bench-web-")
    try:
        run(games, args)
    finally:
        shutil.rmtree(var, ignore_errors=True)


def run(games: list[tuple[int, int, float]], args: argparse.Namespace) -> None:
    from django.db import connection
    from django.db.models import Count, Q
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from arena.matches.models import Game, Match
    from engines.models import Engine
    from ratings.services import rating_refit
    from tournaments.models import Tournament, TournamentEntry

    start = time.perf_counter()
    ids, _ = populate(games, args.versions)
    rating_refit("bao-la-kete")
    field = ids[: args.tournament]
    t = Tournament.objects.create(
        name="bench",
        variant="bao-la-kete",
        time_control="10+0.1",
        status="running",
        start_at=Match.objects.earliest("finished_at").finished_at,
    )
    TournamentEntry.objects.bulk_create(
        TournamentEntry(tournament=t, engine_version_id=v, seed_no=i)
        for i, v in enumerate(field, start=1)
    )
    in_field = Match.objects.filter(engine_a_id__in=field, engine_b_id__in=field)
    in_field.update(tournament=t, round=1, score_a=1.5, score_b=1.5)
    busiest = (
        Engine.objects.annotate(n=Count("versions__rating_points"))
        .order_by("-n")
        .values_list("name", flat=True)
        .first()
    )
    print(
        f"{Game.objects.count():,} games, {Match.objects.count():,} matches, "
        f"{args.versions} versions, tournament of {len(field)} with "
        f"{in_field.count()} matches; built in {time.perf_counter() - start:.0f} s"
    )
    match_id = (
        Match.objects.filter(Q(engine_a__engine__name=busiest)).values_list("pk", flat=True).first()
    )
    pages = [
        "/",
        "/engines/",
        f"/engines/{busiest}/",
        "/matches/",
        f"/matches/?engine={busiest}",
        "/matches/?page=500",
        "/tournaments/",
        f"/tournaments/{t.pk}/",
        f"/matches/{match_id}/",
    ]
    client = Client()
    for url in pages:
        client.get(url)  # warm
        times = []
        for _ in range(args.repeat):
            with CaptureQueriesContext(connection) as queries:
                began = time.perf_counter()
                status = client.get(url).status_code
                times.append(time.perf_counter() - began)
        slowest = max(queries.captured_queries, key=lambda q: float(q["time"]))
        print(
            f"{url:32} {status}  median {statistics.median(times) * 1000:6.0f} ms  "
            f"{len(queries.captured_queries):2d} queries, the slowest "
            f"{float(slowest['time']) * 1000:.0f} ms"
            + (f": {slowest['sql'][:150]}" if args.verbose else "")
        )


if __name__ == "__main__":
    main()
