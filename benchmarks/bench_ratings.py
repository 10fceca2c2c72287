"""Refit time of the whole-history rating fit (prints figures, asserts nothing).

Draws ``--versions`` true ratings (normal, mean 1500, sd 200, seeded) and ``--games`` games
between random pairs, each result from the logistic model with draws (p = South's expected
score, a draw with probability 0.8 p (1 - p)), then times ``ratings.stats.whr.fit`` over all of
them: the pure fit (aggregation, Newton steps, covariance), as the service's refit and the
ladder simulator call it. Prints the median and best of ``--repeat`` runs, the Newton steps, the
mean 95% half-width and the correlation with the true ratings. Target: under 1 s for 10^5 games
and 500 versions.

``--coverage N`` instead checks the 95% intervals by simulation
(``ratings.stats.whr.simulate``): the schedule of issue 26 (26 regulars, about 2,900 games,
four occasional engines), results redrawn ``N`` times from the true ratings (about 24% draws)
and refitted; prints the regulars' coverage, their mean 95% half-width against the empirical
one (1.96 x the RMS error over the replicates), and the RMSE against the truth.

``--database`` also times the service's refit (``ratings.services.rating_refit``: read the games,
fit, write the ``Rating`` rows and history) on a throw-away SQLite database (a temporary
``BAO_VAR_DIR``) holding the same games as best-of-three matches of three games: the first refit
(history points for every match) and a refit after one more match (the steady state).

``--aggregates`` instead times the refit from head-to-head counts (issue 32: what the service
reads, ``ratings.models.HeadToHead``) at the size of a long history without building its games:
``--games`` (default here 10^7) spread over the pairs of ``--versions`` (a share ``--met`` of
all pairs met, every pair by default: the most rows a refit can read), each pair's wins, draws
and losses drawn from the same model; the rows are written straight into a throw-away SQLite
database (or ``--postgres``: a PostgreSQL cluster of its own, ``initdb`` in a temporary
directory). Prints the pure fit (``fit_results``, wall and CPU time, and the peak of memory
allocated during it, ``tracemalloc``) and the service's ``rating_refit`` split into the read,
the fit and the write, median of ``--repeat``, with the process's resident memory before and
after. Target: a refit under 1 s for 10^7 games and 500 versions.

Usage::

    python benchmarks/bench_ratings.py [--games 100000] [--versions 500] [--repeat 5] [--seed 1]
                                       [--database] [--coverage 300]
    python benchmarks/bench_ratings.py --aggregates [--games 10000000] [--versions 500]
                                       [--met 1.0] [--postgres]
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from ratings.stats.whr import EngineRating, fit
from ratings.stats.whr.simulate import coverage, mixed_schedule


def simulated_games(
    versions: int, games: int, seed: int
) -> tuple[list[tuple[int, int, float]], np.ndarray]:
    """``games`` results between random pairs of ``versions`` players, and the true ratings.

    Games come in threes between one pair, colours alternating (a best-of-three match).
    """
    rng = np.random.default_rng(seed)
    true = rng.normal(1500.0, 200.0, versions)
    matches = -(-games // 3)
    a = rng.integers(0, versions, matches)
    b = rng.integers(0, versions - 1, matches)
    b = np.where(b >= a, b + 1, b)
    first = np.repeat(a, 3)[:games]
    second = np.repeat(b, 3)[:games]
    odd = (np.arange(games) % 3) != 1
    south = np.where(odd, first, second)
    north = np.where(odd, second, first)
    p = 1.0 / (1.0 + 10.0 ** (-(true[south] - true[north]) / 400.0))
    draw = 0.8 * p * (1.0 - p)
    u = rng.random(games)
    score = np.where(u < p - draw / 2, 1.0, np.where(u < p + draw / 2, 0.5, 0.0))
    return list(zip(south.tolist(), north.tolist(), score.tolist(), strict=True)), true


def _rating(rating: EngineRating[int] | None) -> float:
    return np.nan if rating is None else rating.rating


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, help="default 10^5, 10^7 with --aggregates")
    parser.add_argument("--versions", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--database", action="store_true", help="also time the service refit")
    parser.add_argument(
        "--coverage", type=int, metavar="N", help="check the intervals with N redraws instead"
    )
    parser.add_argument(
        "--aggregates", action="store_true", help="time refits from head-to-head counts instead"
    )
    parser.add_argument("--met", type=float, default=1.0, help="share of pairs that met")
    parser.add_argument("--postgres", action="store_true", help="--aggregates on PostgreSQL")
    args = parser.parse_args()
    if args.aggregates:
        aggregate_refit(args.games or 10_000_000, args.versions, args.met, args)
        return
    args.games = args.games or 100_000
    if args.coverage:
        start = time.perf_counter()
        c = coverage(mixed_schedule(), args.coverage)
        print(
            f"{c.replicates} redraws, {c.regulars} regulars, {100 * c.draw_share:.1f}% draws: "
            f"coverage {100 * c.coverage:.1f}%, mean 95% half-width {c.mean_half_width:.1f} Elo "
            f"against the empirical {c.empirical_half_width:.1f} (ratio {c.width_ratio:.3f}), "
            f"RMSE {c.rmse:.2f} Elo ({time.perf_counter() - start:.1f} s)"
        )
        return
    games, true = simulated_games(args.versions, args.games, args.seed)
    timings = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        result = fit(games)
        timings.append(time.perf_counter() - start)
    fitted = np.array([_rating(result.get(v)) for v in range(args.versions)])
    print(
        f"pure fit of {args.games:,} games, {args.versions} versions: "
        f"median {statistics.median(timings) * 1000:.0f} ms, best {min(timings) * 1000:.0f} ms "
        f"({args.repeat} runs, {result.iterations} Newton steps); "
        f"mean 95% half-width {np.mean([r.half_width or np.nan for r in result.ratings]):.1f} "
        f"Elo, "
        f"correlation with the true ratings {np.corrcoef(fitted, true)[0, 1]:.4f}"
    )
    if args.database:
        database_refit(games, args.versions)


def throwaway_database(prefix: str, *, keep_url: bool = False) -> str:
    """Point Django at a new SQLite database in a temporary ``BAO_VAR_DIR`` (no broker; with
    ``keep_url`` the ``DATABASE_URL`` already set), set it up and migrate it; returns the
    directory (the caller removes it)."""
    var = tempfile.mkdtemp(prefix=prefix)
    os.environ.update(BAO_VAR_DIR=var, DJANGO_SETTINGS_MODULE="arena.settings")
    if not keep_url:
        os.environ["DATABASE_URL"] = f"sqlite:///{var}/bench.sqlite3"
    os.environ.pop("CELERY_BROKER_URL", None)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    return var


def populate(games: list[tuple[int, int, float]], versions: int) -> tuple[list[int], list[Any]]:
    """Store ``versions`` engines (``engine000``...) with one active version each, and
    ``games`` as finished rated best-of-three matches of three games, one a minute from
    2026-01-01; returns the version ids and the matches."""
    from django.contrib.auth import get_user_model

    from arena.matches.models import Game, Match
    from engines.models import Engine, EngineVersion

    owner = get_user_model().objects.create(username="bench")
    engines = Engine.objects.bulk_create(
        Engine(owner=owner, name=f"engine{i:03d}") for i in range(versions)
    )
    ids = [v.pk for v in EngineVersion.objects.bulk_create(
        EngineVersion(engine=e, number=1, status="active", original_filename="x",
                      sha256="0" * 64, size_bytes=1, storage_path="x", variants=["bao-la-kete"])
        for e in engines
    )]  # fmt: skip
    result = {1.0: "1-0", 0.5: "1/2-1/2", 0.0: "0-1"}
    clock = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    triples = [games[k : k + 3] for k in range(0, len(games), 3)]
    matches = Match.objects.bulk_create(
        Match(variant="bao-la-kete", time_control="10+0.1", engine_a_id=ids[g[0][0]],
              engine_b_id=ids[g[0][1]], seed=1, status="finished",
              finished_at=clock + dt.timedelta(minutes=k))
        for k, g in enumerate(triples)
    )  # fmt: skip
    Game.objects.bulk_create(
        (Game(match=m, index=i, south_id=ids[s], north_id=ids[n], result=result[x],
              termination="bao_hamna", rated=True, start_position="s",
              finished_at=m.finished_at)
         for m, g in zip(matches, triples, strict=True)
         for i, (s, n, x) in enumerate(g, start=1)),
        batch_size=5000,
    )  # fmt: skip
    from ratings.services import head_to_head_rebuild

    head_to_head_rebuild("bao-la-kete")  # stored directly, not recorded: count them
    return ids, matches


def simulated_counts(
    versions: int, games: int, met: float, seed: int
) -> list[tuple[int, int, int, int, int]]:
    """``(a, b, wins of a, draws, wins of b)`` for a share ``met`` of the pairs ``a < b`` of
    ``versions`` players (indexes), ``games`` spread evenly at random over them, the results
    drawn from the model of ``simulated_games``."""
    rng = np.random.default_rng(seed)
    true = rng.normal(1500.0, 200.0, versions)
    a, b = np.triu_indices(versions, 1)
    keep = rng.random(len(a)) < met
    a, b = a[keep], b[keep]
    n = rng.multinomial(games, np.full(len(a), 1.0 / len(a)))
    p = 1.0 / (1.0 + 10.0 ** (-(true[a] - true[b]) / 400.0))
    draw = 0.8 * p * (1.0 - p)
    wins = rng.binomial(n, p - draw / 2)
    draws = rng.binomial(n - wins, np.clip(draw / (1.0 - p + draw / 2), 0.0, 1.0))
    return list(
        zip(a.tolist(), b.tolist(), wins.tolist(), draws.tolist(), (n - wins - draws).tolist(),
            strict=True)
    )  # fmt: skip


def _resident_mb() -> float:
    """The process's resident memory now (MB, ``/proc/self/statm``)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def aggregate_refit(games: int, versions: int, met: float, args: argparse.Namespace) -> None:
    """The pure fit and the service's refit from ``HeadToHead`` rows (module docstring)."""
    import tracemalloc

    from ratings.stats.whr import fit_results

    counts = simulated_counts(versions, games, met, args.seed)
    print(f"{sum(r[2] + r[3] + r[4] for r in counts):,} games as {len(counts):,} head-to-head "
          f"rows, {versions} versions (load {os.getloadavg()[0]:.1f})")  # fmt: skip
    walls, cpus = [], []
    for _ in range(args.repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        result = fit_results(counts)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    tracemalloc.start()
    fit_results(counts)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(
        f"pure fit_results: median {statistics.median(walls) * 1000:.0f} ms wall, "
        f"{statistics.median(cpus) * 1000:.0f} ms CPU (best {min(walls) * 1000:.0f} ms; "
        f"{result.iterations} Newton steps); peak allocated {peak / 2**20:.0f} MB"
    )
    with contextlib.ExitStack() as stack:
        if args.postgres:
            from bench_dispatch import cluster  # type: ignore[import-not-found]

            os.environ["DATABASE_URL"] = stack.enter_context(
                cluster(Path("/usr/lib/postgresql/15/bin"), 20)
            )
        var = throwaway_database("bao-bench-ratings-", keep_url=args.postgres)
        stack.callback(shutil.rmtree, var, ignore_errors=True)
        _aggregate_service_refit(counts, versions, args.repeat)


def _aggregate_service_refit(
    counts: list[tuple[int, int, int, int, int]], versions: int, repeat: int
) -> None:
    from django.db import connection

    from ratings import services as rating_services
    from ratings.models import HeadToHead

    ids, _ = populate([], versions)
    HeadToHead.objects.bulk_create(
        (HeadToHead(variant="bao-la-kete", version_a_id=ids[a], version_b_id=ids[b], wins_a=w,
                    draws=d, wins_b=lost) for a, b, w, d, lost in counts),
        batch_size=5000,
    )  # fmt: skip
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE ratings_headtohead")
    rating_services.rating_refit("bao-la-kete")  # the first writes every Rating row
    before = _resident_mb()
    runs: list[tuple[float, float, float]] = []
    cpu = []
    for _ in range(repeat):
        start = time.perf_counter()
        rows = rating_services.head_to_head("bao-la-kete")
        read = time.perf_counter()
        rating_services.get_method(rating_services.DEFAULT_METHOD).fit_results(rows)
        fitted = time.perf_counter()
        started_cpu = time.process_time()
        rating_services.rating_refit("bao-la-kete")
        cpu.append(time.process_time() - started_cpu)
        runs.append((read - start, fitted - read, time.perf_counter() - fitted))
    read_ms, fit_ms, refit_ms = (statistics.median(r[k] for r in runs) * 1000 for k in range(3))
    print(
        f"service refit on {connection.vendor} ({len(rows):,} rows): median {refit_ms:.0f} ms "
        f"wall, {statistics.median(cpu) * 1000:.0f} ms CPU of this process per rating_refit "
        f"(read, fit, write {versions} Rating rows); the read "
        f"{read_ms:.0f} ms and the fit {fit_ms:.0f} ms (timed apart); resident memory "
        f"{before:.0f} MB before the refits, {_resident_mb():.0f} MB after"
    )


def database_refit(games: list[tuple[int, int, float]], versions: int) -> None:
    """Time ``rating_refit`` on a throw-away SQLite database holding ``games`` (module doc)."""
    var = throwaway_database("bao-bench-ratings-")
    from arena.matches.models import Game, Match
    from ratings import services as rating_services

    ids, matches = populate(games, versions)
    clock = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    start = time.perf_counter()
    rating_services.rating_refit("bao-la-kete")
    first = time.perf_counter() - start
    extra = Match.objects.create(variant="bao-la-kete", time_control="10+0.1",
                                 engine_a_id=ids[0], engine_b_id=ids[1], seed=1,
                                 status="finished", finished_at=clock)  # fmt: skip
    Game.objects.create(match=extra, index=1, south_id=ids[0], north_id=ids[1], result="1-0",
                        termination="bao_hamna", rated=True, start_position="s",
                        finished_at=clock)  # fmt: skip
    runs = []
    for _ in range(3):
        start = time.perf_counter()
        rating_services.rating_refit("bao-la-kete")
        runs.append(time.perf_counter() - start)
    print(
        f"service refit on SQLite ({Game.objects.count():,} games, {len(matches) + 1:,} matches, "
        f"{versions} versions): first {first * 1000:.0f} ms (writes every history point), "
        f"then median {statistics.median(runs) * 1000:.0f} ms per refit (read, fit, write)"
    )
    shutil.rmtree(var, ignore_errors=True)


if __name__ == "__main__":
    main()
