"""Registering periodic jobs with django-celery-beat (database scheduler), for every app."""

from __future__ import annotations

from django_celery_beat.models import IntervalSchedule, PeriodicTask


def ensure_interval_task(entry: str, task: str, *, seconds: int = 60) -> PeriodicTask:
    """Create or repair the periodic task ``entry`` running ``task`` (a dotted task name) every
    ``seconds``; idempotent: one row by name, re-enabled and re-pointed if someone changed it."""
    if seconds % 60 == 0:
        every, _ = IntervalSchedule.objects.get_or_create(
            every=seconds // 60, period=IntervalSchedule.MINUTES
        )
    else:
        every, _ = IntervalSchedule.objects.get_or_create(
            every=seconds, period=IntervalSchedule.SECONDS
        )
    periodic, _ = PeriodicTask.objects.update_or_create(
        name=entry,
        defaults={"task": task, "interval": every, "enabled": True},
    )
    return periodic


def ensure_minute_task(entry: str, task: str) -> PeriodicTask:
    """``ensure_interval_task`` every minute."""
    return ensure_interval_task(entry, task, seconds=60)
