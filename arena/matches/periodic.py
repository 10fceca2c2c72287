"""The beat schedule of the matches app, stored with django-celery-beat (database scheduler)."""

from __future__ import annotations

from django_celery_beat.models import PeriodicTask

from arena.beat import ensure_minute_task

REQUEUE_TASK = "arena.matches.tasks.requeue_expired_leases"
REQUEUE_ENTRY = "matches: requeue expired leases"


def ensure_periodic_tasks() -> PeriodicTask:
    """Create or repair the minute ``requeue_expired_leases`` entry; idempotent (one row by
    name). The data migration ``0002_requeue_beat_job`` does the same at ``migrate``."""
    return ensure_minute_task(REQUEUE_ENTRY, REQUEUE_TASK)
