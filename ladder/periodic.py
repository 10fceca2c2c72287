"""The beat schedule of the ladder, stored with django-celery-beat (database scheduler).

Every minute: ``ladder_fill_all``, registered by the data migration
``tournaments.0010_ladder_beat_job`` (from before the ladder had its own app) and again,
idempotently, by ``manage.py setup_periodic_tasks``. The task and entry keep their tournaments
names: the stored row is found by them.
"""

from __future__ import annotations

from django_celery_beat.models import PeriodicTask

from arena.beat import ensure_minute_task

LADDER_TASK = "tournaments.tasks.ladder_fill_all"
LADDER_ENTRY = "tournaments: ladder matchmaking"


def ensure_ladder_task() -> PeriodicTask:
    """Create or repair the minute ``ladder_fill_all`` entry (one row by name)."""
    return ensure_minute_task(LADDER_ENTRY, LADDER_TASK)
