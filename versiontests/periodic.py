"""The beat schedule of version tests, stored with django-celery-beat (database scheduler)."""

from __future__ import annotations

from django_celery_beat.models import PeriodicTask

from arena.beat import ensure_minute_task

REFRESH_TASK = "tournaments.versiontests.tasks.refresh_version_tests"
REFRESH_ENTRY = "version tests: settle and queue pairs"


def ensure_periodic_tasks() -> PeriodicTask:
    """Create or repair the minute ``refresh_version_tests`` entry; idempotent (one row by
    name). The data migration ``0002_refresh_beat_job`` does the same at ``migrate``."""
    return ensure_minute_task(REFRESH_ENTRY, REFRESH_TASK)
