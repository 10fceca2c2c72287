"""Writes of ratings: refit a variant's whole history after matches are recorded.

The fit itself is pure: the rating method ``DEFAULT_METHOD`` of the registry
``ratings.stats.methods`` (the whole-history fit, ``ratings.stats.whr.fit``). This module feeds
it the variant's rated games from the database and stores the result:

* ``ratings_match_ended(event)`` is the trigger: an after-commit subscriber of
  ``arena.matches.events.MatchEnded`` (``RatingsConfig.ready``), so nothing of the fit runs
  on the match-recording path and a rolled-back match requests nothing.
  ``ratings_match_recorded(match)`` does the same from inside a transaction (for
  ``tournaments.services.match_finished``).
* ``rating_refit_request(variant)`` (that callback) counts the request on the variant's
  ``RatingPool`` and queues ``tournaments.tasks.refit_ratings`` with a short countdown
  (``REFIT_DELAY_SECONDS``) unless one is already queued: the debounce. Matches recorded while
  a refit is queued ride along with it; a broker failure is logged and left to the minute job.
* ``rating_refit(variant)`` (the task's work) reads every rated game of the variant, fits,
  and rewrites the variant's ``Rating`` rows and adds ``RatingPoint`` history rows for the
  matches seen for the first time, in one transaction. It records the request count it read
  before reading the games, and a refit whose count is older than the stored one writes
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
from typing import NamedTuple

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from arena.matches.events import MatchEnded
from arena.matches.models import Match
from arena.terminations import RATED_TERMINATIONS
from ratings.models import Rating, RatingPoint, RatingPool
from ratings.stats import whr
from ratings.stats.methods import DEFAULT_METHOD, get_method

logger = logging.getLogger(__name__)

#: The task that refits a variant (``tournaments.tasks.refit_ratings``), sent by name.
REFIT_TASK = "tournaments.tasks.refit_ratings"
#: Seconds between the first request and its refit: matches finishing together share one fit.
REFIT_DELAY_SECONDS = 2.0
#: Requests older than this with no fit are refitted by the minute job even if a task is queued.
STALE_AFTER_SECONDS = 120.0


def ratings_match_recorded(match: Match) -> None:
    """The refit trigger for a recorded ``match`` (module docstring); call it in the recording
    transaction. Nothing happens for an unrated or aborted match (no rated games)."""
    if not match.rated or match.status != Match.Status.FINISHED:
        return
    variant = match.variant
    transaction.on_commit(lambda: rating_refit_request(variant))


def ratings_match_ended(event: MatchEnded) -> None:
    """``MatchEnded`` subscriber (after commit): request a refit of the variant of a rated match
    that finished (an aborted one has no rated games)."""
    if event.rated and event.status == Match.Status.FINISHED:
        rating_refit_request(event.variant)


def rating_refit_request(variant: str) -> bool:
    """Count a refit request for ``variant`` and queue the refit task unless one is queued.

    Returns True if this call queued the task. Never raises for a broker failure (logged; the
    minute job ``rating_refit_stale`` refits later).
    """
    # By name through the project's app (tasks are leaves: this module never imports them).
    from arena.celery import registered_task

    pool = RatingPool.objects.filter(variant=variant)
    # Two queries once the pool exists (issue 19: this runs after every rated match).
    if not pool.update(requested=F("requested") + 1):
        RatingPool.objects.get_or_create(variant=variant)
        pool.update(requested=F("requested") + 1)
    if not pool.filter(refit_queued=False).update(refit_queued=True, queued_at=timezone.now()):
        return False
    try:
        # Celery takes any sequence of arguments; celery-types declares a tuple only.
        registered_task(REFIT_TASK).apply_async(
            args=[variant],  # type: ignore[arg-type]
            countdown=REFIT_DELAY_SECONDS,
        )
    except Exception:  # broker down: the stale-pool job refits
        logger.exception("ratings %s: could not queue the refit", variant)
        pool.update(refit_queued=False)
        return False
    return True


class RatedGame(NamedTuple):
    """One rated game: its match, South's and North's engine version ids, South's score."""

    match_id: int
    south: int
    north: int
    score: float


def rated_games(variant: str) -> list[RatedGame]:
    """Every rated game of ``variant`` (module docstring), in id order."""
    from arena.matches.models import Game

    rows = (
        Game.objects.filter(
            match__variant=variant,
            match__rated=True,
            rated=True,
            termination__in=RATED_TERMINATIONS,
            result__in=whr.SOUTH_SCORE,
        )
        .order_by("id")
        .values_list("match_id", "south_id", "north_id", "result")
    )
    score = whr.SOUTH_SCORE
    return [RatedGame(m, s, n, score[r]) for m, s, n, r in rows]


def rating_refit(variant: str) -> bool:
    """Refit ``variant`` from all its rated games and store the result (module docstring).

    Returns False, writing nothing, if a refit covering newer requests was stored meanwhile.
    """
    pool, _ = RatingPool.objects.get_or_create(variant=variant)
    generation = pool.requested
    started = time.perf_counter()
    games = rated_games(variant)
    read = time.perf_counter()
    result = get_method(DEFAULT_METHOD).fit((g.south, g.north, g.score) for g in games)
    fitted = time.perf_counter()
    fit_ms = (fitted - read) * 1000
    now = timezone.now()
    with transaction.atomic():
        stored = RatingPool.objects.filter(variant=variant, fitted__lte=generation).update(
            fitted=generation,
            fitted_at=now,
            games=len(games),
            rated=len(result.ratings),
            excluded=len(result.excluded),
            fit_ms=fit_ms,
        )
        if not stored:
            logger.info("ratings %s: refit of request %s superseded", variant, generation)
            return False
        _store_ratings(variant, result)
        _store_history(variant, result, games, now)
    logger.info(
        "ratings %s: %s games, %s rated, %s excluded; read %.0f ms, fit %.0f ms, write %.0f ms",
        variant,
        len(games),
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
    for k, fitted in enumerate(ranked):
        row = Rating(engine_version_id=fitted.engine, variant=variant)
        row.rating, row.low, row.high = fitted.rating, fitted.low, fitted.high
        row.games, row.wins = fitted.games, fitted.wins
        row.draws, row.losses = fitted.draws, fitted.losses
        row.bound = fitted.bound or ""
        row.provisional, row.prior = fitted.provisional, fitted.prior
        row.provisional_reason = fitted.provisional_reason
        row.superiority = (
            result.superiority(fitted.engine, ranked[k + 1].engine) if k + 1 < len(ranked) else None
        )
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
    variant: str, result: whr.RatingFit[int], games: list[RatedGame], now: dt.datetime
) -> None:
    """One ``RatingPoint`` per side of each match fitted for the first time (both sides of a
    match are in one component: rated together or not at all)."""
    from arena.matches.models import Match

    new = dict(
        Match.objects.filter(variant=variant, rated=True, rating_points__isnull=True).values_list(
            "id", "finished_at"
        )
    )
    if not new:
        return
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
