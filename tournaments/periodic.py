"""The beat schedule of the tournaments app, stored with django-celery-beat (database scheduler).

Every minute: ``start_due_tournaments`` (registered by the data migration
``0003_start_due_beat_job``) and ``refit_stale_ratings`` (``0007_refit_after_migration``); both
again, idempotently, by ``manage.py setup_periodic_tasks`` (which also registers the matches
app's requeue job).
"""

from __future__ import annotations

from django_celery_beat.models import PeriodicTask

from arena.beat import ensure_minute_task

START_DUE_TASK = "tournaments.tasks.start_due_tournaments"
START_DUE_ENTRY = "tournaments: start due tournaments"
REFIT_STALE_TASK = "tournaments.tasks.refit_stale_ratings"
REFIT_STALE_ENTRY = "tournaments: refit stale ratings"


def ensure_periodic_tasks() -> PeriodicTask:
    """Create or repair the minute ``start_due_tournaments`` entry (one row by name)."""
    return ensure_minute_task(START_DUE_ENTRY, START_DUE_TASK)


def ensure_refit_task() -> PeriodicTask:
    """Create or repair the minute ``refit_stale_ratings`` entry (one row by name)."""
    return ensure_minute_task(REFIT_STALE_ENTRY, REFIT_STALE_TASK)


LADDER_TASK = "tournaments.tasks.ladder_fill_all"
LADDER_ENTRY = "tournaments: ladder matchmaking"


def ensure_ladder_task() -> PeriodicTask:
    """Create or repair the minute ``ladder_fill_all`` entry (one row by name)."""
    return ensure_minute_task(LADDER_ENTRY, LADDER_TASK)
