"""The beat schedule of the matches app, stored with django-celery-beat (database scheduler)."""

from __future__ import annotations

from django.conf import settings
from django_celery_beat.models import PeriodicTask

from arena.beat import ensure_interval_task, ensure_minute_task

REQUEUE_TASK = "arena.matches.tasks.requeue_expired_leases"
REQUEUE_ENTRY = "matches: requeue expired leases"


def ensure_periodic_tasks() -> PeriodicTask:
    """Create or repair the ``requeue_expired_leases`` entry, every
    ``settings.BAO_REQUEUE_SCAN_SECONDS``; idempotent (one row by name). The data migrations
    ``0002_requeue_beat_job`` and ``0008_requeue_scan_interval`` do the same at ``migrate``."""
    return ensure_interval_task(
        REQUEUE_ENTRY, REQUEUE_TASK, seconds=int(settings.BAO_REQUEUE_SCAN_SECONDS)
    )


LIVE_CLEANUP_TASK = "arena.matches.tasks.delete_ended_live_games"
LIVE_CLEANUP_ENTRY = "matches: delete ended live games"


def ensure_live_cleanup_task() -> PeriodicTask:
    """Create or repair the minute ``delete_ended_live_games`` entry (one row by name); the
    data migration ``0012_live_cleanup_beat_job`` does the same at ``migrate``."""
    return ensure_minute_task(LIVE_CLEANUP_ENTRY, LIVE_CLEANUP_TASK)
