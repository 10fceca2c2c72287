"""Celery tasks of version tests (thin: the work is in ``versiontests.services``).

The task keeps the name it had when the app lived at ``tournaments/versiontests/``: queued
tasks and the django-celery-beat row (migration ``0002_refresh_beat_job``) name it so.
"""

from __future__ import annotations

from celery import shared_task

from versiontests import services


@shared_task(name="tournaments.versiontests.tasks.refresh_version_tests", ignore_result=True)
def refresh_version_tests() -> list[int]:
    """Settle missed pairs and queue missing ones of running tests (beat, every minute);
    idempotent. Returns the ids of the tests changed."""
    return services.version_tests_refresh()
