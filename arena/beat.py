"""Periodic jobs: registering them with django-celery-beat (database scheduler), for every app,
and the scheduler beat runs (sends retried through short broker outages)."""

from __future__ import annotations

from typing import Any

from django_celery_beat.models import IntervalSchedule, PeriodicTask
from django_celery_beat.schedulers import DatabaseScheduler


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


#: How beat retries a send that the broker refused: up to 5 times over about 15 s (a tick lost
#: to a longer outage is followed by the next one; every job is idempotent).
BEAT_RETRY_POLICY = {"max_retries": 5, "interval_start": 1, "interval_step": 2, "interval_max": 5}


class RetryingDatabaseScheduler(DatabaseScheduler):  # type: ignore[misc]  # untyped base
    """django-celery-beat's database scheduler whose sends retry through short broker
    outages (``BEAT_RETRY_POLICY``) instead of dropping the tick."""

    def apply_async(
        self, entry: Any, producer: Any = None, advance: bool = True, **kwargs: Any
    ) -> Any:
        entry = self.reserve(entry) if advance else entry
        entry.options = {**entry.options, "retry": True, "retry_policy": BEAT_RETRY_POLICY}
        return super().apply_async(entry, producer, advance=False, **kwargs)
