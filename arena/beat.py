"""Periodic jobs: registering them with django-celery-beat (database scheduler), for every app
(``ensure_interval_task`` from its ``periodic.py``, ``interval_task_operation`` in its data
migrations), and the scheduler beat runs (sends retried through short broker outages)."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.apps.registry import Apps
from django.db.migrations import RunPython
from django_celery_beat.models import IntervalSchedule, PeriodicTask
from django_celery_beat.schedulers import DatabaseScheduler


def ensure_interval_task(entry: str, task: str, *, seconds: int = 60) -> PeriodicTask:
    """Create or repair the periodic task ``entry`` running ``task`` (a dotted task name) every
    ``seconds``; idempotent: one row by name, re-enabled and re-pointed if someone changed it."""
    periodic: PeriodicTask = _ensure_interval_task(
        IntervalSchedule, PeriodicTask, entry, task, seconds
    )
    return periodic


def ensure_minute_task(entry: str, task: str) -> PeriodicTask:
    """``ensure_interval_task`` every minute."""
    return ensure_interval_task(entry, task, seconds=60)


def _ensure_interval_task(
    interval_model: Any, periodic_model: Any, entry: str, task: str, seconds: int
) -> Any:
    # The models are django-celery-beat's, or a migration's historical copies of them (which
    # have the fields but not the class constants, hence the constants of the real class).
    # Data migrations run this (register_interval_task): what it writes must never change.
    if seconds % 60 == 0:
        every, _ = interval_model.objects.get_or_create(
            every=seconds // 60, period=IntervalSchedule.MINUTES
        )
    else:
        every, _ = interval_model.objects.get_or_create(
            every=seconds, period=IntervalSchedule.SECONDS
        )
    periodic, _ = periodic_model.objects.update_or_create(
        name=entry,
        defaults={"task": task, "interval": every, "enabled": True},
    )
    return periodic


def register_interval_task(apps: Apps, entry: str, task: str, *, seconds: int = 60) -> None:
    """In a data migration: ``ensure_interval_task(entry, task, seconds=seconds)`` on the
    migration's historical models of ``django_celery_beat`` (the migration must depend on one
    of its migrations). Migrations applied and yet to apply run this code: what it writes must
    never change (a new behaviour is a new function)."""
    _ensure_interval_task(
        apps.get_model("django_celery_beat", "IntervalSchedule"),
        apps.get_model("django_celery_beat", "PeriodicTask"),
        entry,
        task,
        seconds,
    )


def unregister_interval_task(apps: Apps, entry: str) -> None:
    """In a data migration: delete the periodic task named ``entry`` (none: nothing)."""
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=entry).delete()


def interval_task_operation(entry: str, task: str, *, seconds: int = 60) -> RunPython:
    """A data migration's operation: ``register_interval_task(apps, entry, task,
    seconds=seconds)``; reversed, ``unregister_interval_task(apps, entry)``. Each app registers
    its beat jobs with one of these, its names copied into the migration (not imported from its
    ``periodic`` module, so the migration outlives changes there)."""
    return RunPython(
        partial(_register_operation, entry=entry, task=task, seconds=seconds),
        partial(_unregister_operation, entry=entry),
    )


def _register_operation(
    apps: Apps, schema_editor: Any, *, entry: str, task: str, seconds: int
) -> None:
    register_interval_task(apps, entry, task, seconds=seconds)


def _unregister_operation(apps: Apps, schema_editor: Any, *, entry: str) -> None:
    unregister_interval_task(apps, entry)


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
