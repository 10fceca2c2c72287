"""The beat schedule of the matches app, stored with django-celery-beat (database scheduler)."""

from __future__ import annotations

from django_celery_beat.models import IntervalSchedule, PeriodicTask

REQUEUE_TASK = "arena.matches.tasks.requeue_expired_leases"
REQUEUE_ENTRY = "matches: requeue expired leases"


def ensure_periodic_tasks() -> PeriodicTask:
    """Create or repair the minute ``requeue_expired_leases`` entry; idempotent (one row by
    name). The data migration ``0002_requeue_beat_job`` does the same at ``migrate``."""
    every_minute, _ = IntervalSchedule.objects.get_or_create(
        every=1, period=IntervalSchedule.MINUTES
    )
    task, _ = PeriodicTask.objects.update_or_create(
        name=REQUEUE_ENTRY,
        defaults={"task": REQUEUE_TASK, "interval": every_minute, "enabled": True},
    )
    return task
