"""The beat schedule of the tournaments app, stored with django-celery-beat (database scheduler).

Every minute: ``start_due_tournaments`` (registered by the data migration
``0003_start_due_beat_job``); again, idempotently, by ``manage.py setup_periodic_tasks``.
"""

from __future__ import annotations

from django_celery_beat.models import PeriodicTask

from arena.beat import ensure_minute_task

START_DUE_TASK = "tournaments.tasks.start_due_tournaments"
START_DUE_ENTRY = "tournaments: start due tournaments"


def ensure_periodic_tasks() -> PeriodicTask:
    """Create or repair the minute ``start_due_tournaments`` entry (one row by name)."""
    return ensure_minute_task(START_DUE_ENTRY, START_DUE_TASK)
