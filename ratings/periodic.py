"""The beat schedule of the ratings app, stored with django-celery-beat (database scheduler).

Every minute: ``refit_stale_ratings``, registered by the data migration
``tournaments.0007_refit_after_migration`` (from before the app had its own package) and
again, idempotently, by ``manage.py setup_periodic_tasks``. The task and entry keep their
tournaments names: the stored row is found by them.
"""

from __future__ import annotations

from django_celery_beat.models import PeriodicTask

from arena.beat import ensure_minute_task

REFIT_STALE_TASK = "tournaments.tasks.refit_stale_ratings"
REFIT_STALE_ENTRY = "tournaments: refit stale ratings"


def ensure_refit_task() -> PeriodicTask:
    """Create or repair the minute ``refit_stale_ratings`` entry (one row by name)."""
    return ensure_minute_task(REFIT_STALE_ENTRY, REFIT_STALE_TASK)
