"""``manage.py setup_periodic_tasks``: (re)register the matches beat jobs; idempotent."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from arena.matches.periodic import ensure_periodic_tasks


class Command(BaseCommand):
    help = "Register the minute requeue_expired_leases job with django-celery-beat (idempotent)."

    def handle(self, *args: Any, **options: Any) -> None:
        task = ensure_periodic_tasks()
        self.stdout.write(f"{task.name}: {task.task} every {task.interval}")
