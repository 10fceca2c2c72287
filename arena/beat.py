"""Registering minute jobs with django-celery-beat (database scheduler), for every app."""

from __future__ import annotations

from django_celery_beat.models import IntervalSchedule, PeriodicTask


def ensure_minute_task(entry: str, task: str) -> PeriodicTask:
    """Create or repair the periodic task ``entry`` running ``task`` (a dotted task name) every
    minute; idempotent: one row by name, re-enabled and re-pointed if someone changed it."""
    every_minute, _ = IntervalSchedule.objects.get_or_create(
        every=1, period=IntervalSchedule.MINUTES
    )
    periodic, _ = PeriodicTask.objects.update_or_create(
        name=entry,
        defaults={"task": task, "interval": every_minute, "enabled": True},
    )
    return periodic
