"""Writes of ratings: refit a variant's whole history after matches are recorded.

The fit itself is pure: the rating method ``DEFAULT_METHOD`` of the registry
``ratings.stats.methods`` (the whole-history fit, ``ratings.stats.whr.fit``). This module feeds
it the variant's rated games from the database and stores the result:

* ``ratings_match_recording(event)`` is the trigger: an in-transaction subscriber of
  ``arena.matches.events.MatchEnded`` (``RatingsConfig.ready``). It adds the match's rated
  games to the variant's ``HeadToHead`` counts (one upsert, ``head_to_head_add``) and counts
  the refit request on the variant's ``RatingPool``, so both commit or roll back with the
  games; nothing of the fit runs on the recording path. After commit the request that found
  no refit queued sends ``tournaments.tasks.refit_ratings`` with a short countdown
  (``REFIT_DELAY_SECONDS``): the debounce. Matches recorded while a refit is queued ride along
  with it; a broker failure is logged and left to the minute job. ``rating_refit_request``
  does the same outside a transaction, and ``ratings_match_recorded(match)`` after the commit
  of its caller's (``tournaments.services.match_finished``). ``head_to_head_rebuild`` counts
  the head-to-head rows again from the games (the migration that made the table;
  ``refit_ratings --rebuild``).
* ``rating_refit(variant)`` (the task's work) reads the variant's head-to-head counts (one row
  per pair of versions that met: not every game, issue 32; on PostgreSQL one packed value
  viewed as an array), fits, and rewrites the variant's ``Rating`` rows and adds ``RatingPoint``
  history rows for the matches seen for the first time (the recent ones: ``HISTORY_OVERLAP``;
  reading only those matches' games), in one transaction. It records the request count it
  read before reading the games, and a refit whose count is older than the stored one writes
  nothing, so two refits racing can only leave the newer result.
* ``rating_refit_stale()`` (minute beat job) refits every variant with requests not yet fitted
  whose task is not queued or was queued more than ``STALE_AFTER_SECONDS`` ago (a lost task,
  a broker outage, the pools the migration that replaced per-game Elo marked).

Rated games: a rated match's games flagged rated, with a rated termination (not ``aborted``)
and a result ``1-0``, ``0-1`` or ``1/2-1/2``.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections import defaultdict
from collections.abc import Iterable
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
from django.db import connection, transaction
from django.db.models import Count, F, Q
from django.db.models.functions import Greatest, Least
from django.utils import timezone

from arena.matches.events import MatchEnded, RatedResult
from arena.matches.models import Match
from arena.terminations import RATED_TERMINATIONS
from ratings.models import HeadToHead, Rating, RatingPoint, RatingPool
from ratings.stats import whr
from ratings.stats.methods import DEFAULT_METHOD, get_method

logger = logging.getLogger(__name__)

#: The task that refits a variant (``tournaments.tasks.refit_ratings``), sent by name.
REFIT_TASK = "tournaments.tasks.refit_ratings"
#: Seconds between the first request and its refit: matches finishing together share one fit.
REFIT_DELAY_SECONDS = 2.0
#: Requests older than this with no fit are refitted by the minute job even if a task is queued.
STALE_AFTER_SECONDS = 120.0
#: A refit adds history points for the matches without any that finished at most this long
#: before the newest rated match the previous refit saw, or since (``rating_refit``): more than a
#: recording's commit can lag its ``finished_at`` (the time it is recorded), or the clocks
#: of two hosts differ.
HISTORY_OVERLAP = dt.timedelta(minutes=10)


def ratings_match_recorded(match: Match) -> None:
    """The refit trigger for a recorded ``match`` (module docstring); call it in the recording
    transaction. Nothing happens for an unrated or aborted match (no rated games)."""
    if not match.rated or match.status != Match.Status.FINISHED:
        return
    variant = match.variant
    transaction.on_commit(lambda: rating_refit_request(variant))


def rating_refit_request(variant: str) -> bool:
    """Count a refit request for ``variant`` and queue the refit task unless one is queued.

    Returns True if this call queued the task. Never raises for a broker failure (logged; the
    minute job ``rating_refit_stale`` refits later). For a request outside a transaction; a
    recorded match's is counted inside its transaction (``ratings_match_recording``).
    """
    return _refit_count(variant) and _refit_send(variant)


def ratings_match_recording(event: MatchEnded) -> None:
    """``MatchEnded`` subscriber (in the recording transaction): count the match's rated games
    in ``HeadToHead`` (``head_to_head_add``) and, for a rated match that finished, its refit
    request (``_refit_count``), so both commit or roll back with the games; the refit task is
    sent after commit, only by the request that found none queued (the debounce). The request
    took two statements after commit, each its own commit, after every match (issue 32)."""
    if event.rated_results:
        head_to_head_add(event.variant, event.rated_results)
    if event.rated and event.status == Match.Status.FINISHED:
        variant = event.variant
        if _refit_count(variant):
            transaction.on_commit(lambda: _refit_send(variant))


def _refit_count(variant: str) -> bool:
    """Count one request on ``variant``'s pool and mark a refit queued if none was; True if this
    call marked it (then it must send the task: ``_refit_send``). Two UPDATEs once the pool
    exists (the first matches no row while a refit is queued)."""
    pool = RatingPool.objects.filter(variant=variant)
    for _ in range(2):  # the second time round, after creating the pool
        if pool.filter(refit_queued=False).update(
            requested=F("requested") + 1, refit_queued=True, queued_at=timezone.now()
        ):
            return True
        if pool.update(requested=F("requested") + 1):
            return False
        RatingPool.objects.get_or_create(variant=variant)
    return False  # not reached: the pool exists the second time


def _refit_send(variant: str) -> bool:
    """Send the refit task of ``variant`` (its pool marked queued); on a broker failure log
    it, clear the mark (the minute job refits) and return False."""
    # By name through the project's app (tasks are leaves: this module never imports them).
    from arena.celery import registered_task

    try:
        # Celery takes any sequence of arguments; celery-types declares a tuple only.
        registered_task(REFIT_TASK).apply_async(
            args=[variant],  # type: ignore[arg-type]
            countdown=REFIT_DELAY_SECONDS,
        )
    except Exception:  # broker down: the stale-pool job refits
        logger.exception("ratings %s: could not queue the refit", variant)
        RatingPool.objects.filter(variant=variant).update(refit_queued=False)
        return False
    return True


def head_to_head_add(variant: str, results: Iterable[RatedResult]) -> None:
    """Add rated games ``(south_id, north_id, result)`` (result from South's side; any other
    result than ``1-0``, ``0-1``, ``1/2-1/2`` is skipped) to ``variant``'s ``HeadToHead`` rows:
    one ``INSERT ... ON CONFLICT DO UPDATE`` adding to the counts (PostgreSQL, SQLite), whatever
    the number of pairs. Concurrent recordings of one pair serialise on its row.
    """
    counts: dict[tuple[int, int], list[int]] = {}
    for south, north, result in results:
        south_points = whr.SOUTH_SCORE.get(result)
        if south_points is None:
            continue
        a, b = min(south, north), max(south, north)
        a_points = south_points if south == a else 1.0 - south_points
        # wins of A, draws, wins of B
        counts.setdefault((a, b), [0, 0, 0])[2 - int(2 * a_points)] += 1
    if not counts:
        return
    q = connection.ops.quote_name
    table = q(HeadToHead._meta.db_table)
    columns = _HEAD_TO_HEAD_COLUMNS
    keys, added = columns[:3], columns[3:]
    rows = ", ".join(["(" + ", ".join(["%s"] * len(columns)) + ")"] * len(counts))
    sql = (
        f"INSERT INTO {table} ({', '.join(map(q, columns))}) VALUES {rows} "
        f"ON CONFLICT ({', '.join(map(q, keys))}) DO UPDATE SET "
        + ", ".join(f"{q(c)} = {table}.{q(c)} + excluded.{q(c)}" for c in added)
    )
    params: list[str | int] = []
    for (a, b), (wins_a, draws, wins_b) in sorted(counts.items()):
        params += [variant, a, b, wins_a, draws, wins_b]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


#: ``HeadToHead``'s columns: the unique key, then the counts added.
_HEAD_TO_HEAD_COLUMNS = ("variant", "version_a_id", "version_b_id", "wins_a", "draws", "wins_b")


def head_to_head_rebuild(
    variant: str | None = None, *, game_model: Any = None, head_to_head_model: Any = None
) -> int:
    """Count ``HeadToHead`` again from the rated games (module docstring's filter) of
    ``variant`` (every variant by default), replacing its rows; returns the rows written.

    One grouped query over the games (seconds at 10^6 games: for the migration that made the
    table and repairs, never the refit's path). ``game_model``/``head_to_head_model``: the
    models to use (a migration passes its historical ones).
    """
    from arena.matches.models import Game

    games = game_model or Game
    table = head_to_head_model or HeadToHead
    rated = games.objects.filter(
        match__rated=True,
        rated=True,
        termination__in=RATED_TERMINATIONS,
        result__in=list(whr.SOUTH_SCORE),
    )
    if variant is not None:
        rated = rated.filter(match__variant=variant)
    a_won = Q(south_id=F("a"), result="1-0") | Q(north_id=F("a"), result="0-1")
    b_won = Q(south_id=F("b"), result="1-0") | Q(north_id=F("b"), result="0-1")
    rows = (
        rated.annotate(
            v=F("match__variant"),
            a=Least("south_id", "north_id"),
            b=Greatest("south_id", "north_id"),
        )
        .values("v", "a", "b")
        .annotate(
            wins_a=Count("id", filter=a_won),
            draws=Count("id", filter=Q(result="1/2-1/2")),
            wins_b=Count("id", filter=b_won),
        )
        .order_by()
    )
    with transaction.atomic():
        old = table.objects.all() if variant is None else table.objects.filter(variant=variant)
        old.delete()
        made = table.objects.bulk_create(
            (
                table(variant=r["v"], version_a_id=r["a"], version_b_id=r["b"],
                      wins_a=r["wins_a"], draws=r["draws"], wins_b=r["wins_b"])
                for r in rows.iterator(chunk_size=5000)
            ),
            batch_size=1000,
        )  # fmt: skip
    return len(made)


class RatedGame(NamedTuple):
    """One rated game: its match, South's and North's engine version ids, South's score."""

    match_id: int
    south: int
    north: int
    score: float


def rated_games(
    variant: str, *, unfitted: bool = False, since: dt.datetime | None = None
) -> list[RatedGame]:
    """The rated games of ``variant`` (module docstring), in id order: every one, or with
    ``unfitted`` those of the matches with no ``RatingPoint`` yet; with ``since``, only of
    the matches finished then or later."""
    from arena.matches.models import Game

    rows = Game.objects.filter(
        match__variant=variant,
        match__rated=True,
        rated=True,
        termination__in=RATED_TERMINATIONS,
        result__in=whr.SOUTH_SCORE,
    )
    if unfitted:
        rows = rows.filter(match__rating_points__isnull=True)
    if since is not None:
        rows = rows.filter(match__finished_at__gte=since)
    score = whr.SOUTH_SCORE
    return [
        RatedGame(m, s, n, score[r])
        for m, s, n, r in rows.order_by("id").values_list(
            "match_id", "south_id", "north_id", "result"
        )
    ]


def head_to_head(variant: str) -> npt.NDArray[np.int64]:
    """``variant``'s head-to-head counts, one row per pair of versions that played rated
    games: ``(version_a, version_b, wins_a, draws, wins_b)`` (``fit_results``'s records), as
    an integer array of shape ``(pairs, 5)`` in no particular order.

    On PostgreSQL one value: the rows packed by the server into one ``bytea`` of big-endian
    64-bit integers (``int8send``, ``string_agg``; the driver decodes its hex), viewed by numpy: no
    Python object per row (the 124,750 rows of 500 versions where every pair met in tens of
    ms, against about 200 ms through the ORM; a binary ``COPY`` is read a row per call, slower
    still). Elsewhere (SQLite) through the ORM.
    """
    columns = _HEAD_TO_HEAD_COLUMNS[1:]
    if connection.vendor == "postgresql":
        q = connection.ops.quote_name
        packed = " || ".join(f"int8send({q(c)}::bigint)" for c in columns)
        sql = (
            f"SELECT string_agg({packed}, ''::bytea) FROM {q(HeadToHead._meta.db_table)} "
            f"WHERE {q('variant')} = %s"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, [variant])
            (data,) = cursor.fetchone()
        if data is None:
            return np.zeros((0, 5), dtype=np.int64)
        return np.frombuffer(bytes(data), dtype=">i8").astype(np.int64).reshape(-1, 5)
    rows = HeadToHead.objects.filter(variant=variant)
    listed = list(rows.values_list(*(c.removesuffix("_id") for c in columns)))
    return np.array(listed, dtype=np.int64).reshape(-1, 5)


def rating_refit(variant: str, *, all_history: bool = False) -> bool:
    """Refit ``variant`` from its head-to-head counts and store the result (module
    docstring): the same fit as over every rated game, read as one row per pair of versions.

    History points are added for the rated matches without any that finished at most
    ``HISTORY_OVERLAP`` before the newest rated match the previous refit saw
    (``RatingPool.history_through``), or since: an index range of the matches table, not all
    of it (issue 32); with ``all_history``, or at a pool's first refit, for every such match
    (``refit_ratings --rebuild``).

    Returns False, writing nothing, if a refit covering newer requests was stored meanwhile.
    """
    pool, _ = RatingPool.objects.get_or_create(variant=variant)
    generation = pool.requested
    through = pool.history_through
    since = None if all_history or through is None else through - HISTORY_OVERLAP
    started = time.perf_counter()
    pairs = head_to_head(variant)
    read = time.perf_counter()
    result = get_method(DEFAULT_METHOD).fit_results(pairs)
    games = int(pairs[:, 2:].sum())
    fitted = time.perf_counter()
    fit_ms = (fitted - read) * 1000
    now = timezone.now()
    with transaction.atomic():
        stored = RatingPool.objects.filter(variant=variant, fitted__lte=generation).update(
            fitted=generation,
            fitted_at=now,
            games=games,
            rated=len(result.ratings),
            excluded=len(result.excluded),
            fit_ms=fit_ms,
        )
        if not stored:
            logger.info("ratings %s: refit of request %s superseded", variant, generation)
            return False
        _store_ratings(variant, result)
        latest = _store_history(variant, result, now, since)
        if latest is not None and (through is None or latest > through):
            RatingPool.objects.filter(variant=variant).update(history_through=latest)
    logger.info(
        "ratings %s: %s games, %s pairs, %s rated, %s excluded; "
        "read %.0f ms, fit %.0f ms, write %.0f ms",
        variant,
        games,
        len(pairs),
        len(result.ratings),
        len(result.excluded),
        (read - started) * 1000,
        fit_ms,
        (time.perf_counter() - fitted) * 1000,
    )
    return True


def _store_ratings(variant: str, result: whr.RatingFit[int]) -> None:
    rows: list[Rating] = []
    ranked = result.ratings
    neighbours = [(ranked[k].engine, ranked[k + 1].engine) for k in range(len(ranked) - 1)]
    superiority = [*result.superiorities(neighbours), None]
    for k, fitted in enumerate(ranked):
        row = Rating(engine_version_id=fitted.engine, variant=variant)
        row.rating, row.low, row.high = fitted.rating, fitted.low, fitted.high
        row.games, row.wins = fitted.games, fitted.wins
        row.draws, row.losses = fitted.draws, fitted.losses
        row.bound = fitted.bound or ""
        row.provisional, row.prior = fitted.provisional, fitted.prior
        row.provisional_reason = fitted.provisional_reason
        row.superiority = superiority[k]
        row.excluded_reason = ""
        rows.append(row)
    for left_out in result.excluded:
        row = Rating(engine_version_id=left_out.engine, variant=variant)
        row.rating = row.low = row.high = row.superiority = None
        row.games, row.provisional, row.prior = left_out.games, True, False
        row.bound, row.provisional_reason = "", left_out.reason
        row.excluded_reason = left_out.reason
        rows.append(row)
    # Every row of the variant is rewritten: replacing them is one DELETE and one INSERT,
    # where bulk_update would send a CASE per field and row (seconds for 500 versions).
    Rating.objects.filter(variant=variant).delete()
    Rating.objects.bulk_create(rows, batch_size=500)


def _store_history(
    variant: str, result: whr.RatingFit[int], now: dt.datetime, since: dt.datetime | None
) -> dt.datetime | None:
    """One ``RatingPoint`` per side of each match fitted for the first time (both sides of a
    match are in one component: rated together or not at all), among the matches finished
    ``since`` (every one if None); reads those matches' games only. Returns the latest
    ``finished_at`` of the variant's rated matches (None if none)."""
    from arena.matches.models import Match

    rated = Match.objects.filter(variant=variant, rated=True)
    # The newest rated match (match_finished_idx from its end): every match before it is
    # looked at now, so the next refit may start a little before it (HISTORY_OVERLAP).
    latest = (
        rated.filter(finished_at__isnull=False)
        .order_by("-finished_at")
        .values_list("finished_at", flat=True)
        .first()
    )
    matches = rated.filter(rating_points__isnull=True)
    if since is not None:  # an index range (match_finished_idx), not every match
        matches = matches.filter(finished_at__gte=since)
    new = dict(matches.values_list("id", "finished_at"))
    if not new:
        return latest
    games = rated_games(variant, unfitted=True, since=since)
    counts: dict[tuple[int, int], int] = defaultdict(int)  # (match, version) -> rated games
    scored: dict[tuple[int, int], float] = defaultdict(float)  # -> points
    opponent: dict[tuple[int, int], int] = {}
    for g in games:
        if g.match_id in new:
            for me, other, points in (
                (g.south, g.north, g.score),
                (g.north, g.south, 1.0 - g.score),
            ):
                key = (g.match_id, me)
                counts[key] += 1
                scored[key] += points
                opponent[key] = other
    history: list[RatingPoint] = []
    for (match_id, version), count in counts.items():
        fitted = result.get(version)
        if fitted is None:
            continue
        history.append(
            RatingPoint(
                match_id=match_id,
                engine_version_id=version,
                opponent_id=opponent[(match_id, version)],
                variant=variant,
                games=count,
                points=scored[(match_id, version)],
                rating=fitted.rating,
                low=fitted.low,
                high=fitted.high,
                finished_at=new[match_id] or now,
                fitted_at=now,
            )
        )
    RatingPoint.objects.bulk_create(history, ignore_conflicts=True, batch_size=1000)
    return latest


def rating_refit_stale(*, now: dt.datetime | None = None) -> list[str]:
    """Refit every variant whose requests are not fitted and whose refit task is not queued, or
    was queued more than ``STALE_AFTER_SECONDS`` ago. Returns the variants refitted."""
    now = now or timezone.now()
    stale_before = now - dt.timedelta(seconds=STALE_AFTER_SECONDS)
    refitted = []
    for pool in RatingPool.objects.filter(requested__gt=F("fitted")).order_by("variant"):
        if pool.refit_queued and pool.queued_at and pool.queued_at > stale_before:
            continue
        RatingPool.objects.filter(pk=pool.pk).update(refit_queued=False)
        if rating_refit(pool.variant):
            refitted.append(pool.variant)
    return refitted
