"""The beat schedule of people's games, stored with django-celery-beat (database scheduler)."""

from __future__ import annotations

from django_celery_beat.models import PeriodicTask

from arena.beat import ensure_minute_task

STALE_SWEEP_TASK = "people.tasks.abort_stale_person_games"
STALE_SWEEP_ENTRY = "people: abort games whose worker died"


def ensure_stale_sweep_task() -> PeriodicTask:
    """Create or repair the minute ``abort_stale_person_games`` entry (one row by name); the
    data migration ``0003_stale_sweep_beat_job`` does the same at ``migrate``."""
    return ensure_minute_task(STALE_SWEEP_ENTRY, STALE_SWEEP_TASK)
