"""``manage.py setup_periodic_tasks``: (re)register every beat job of the service; idempotent.

Registers by dotted task name, one django-celery-beat row each, every minute:
``tournaments.tasks.start_due_tournaments``, ``tournaments.tasks.refit_stale_ratings``,
``arena.matches.tasks.requeue_expired_leases`` (every ``BAO_REQUEUE_SCAN_SECONDS``),
``arena.matches.tasks.delete_ended_live_games``, ``tournaments.tasks.ladder_fill_all`` and
``tournaments.versiontests.tasks.refresh_version_tests`` and
``people.tasks.abort_stale_person_games``.
The data migrations do the same at ``migrate``; this command repairs a schedule edited in the
admin.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from arena.matches import periodic as matches_periodic
from ladder import periodic as ladder_periodic
from people import periodic as people_periodic
from ratings import periodic as ratings_periodic
from tournaments import periodic as tournaments_periodic
from versiontests import periodic as versiontests_periodic


class Command(BaseCommand):
    help = (
        "Register the beat jobs (start due tournaments, refit stale ratings, requeue expired "
        "match leases, delete the live games of ended matches, settle and queue version-test "
        "pairs, ladder matchmaking, abort people's games whose worker died)."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        tasks = (
            tournaments_periodic.ensure_periodic_tasks(),
            ratings_periodic.ensure_refit_task(),
            ladder_periodic.ensure_ladder_task(),
            matches_periodic.ensure_periodic_tasks(),
            matches_periodic.ensure_live_cleanup_task(),
            versiontests_periodic.ensure_periodic_tasks(),
            people_periodic.ensure_stale_sweep_task(),
        )
        for task in tasks:
            # str(IntervalSchedule) already reads "every minute" / "every 10 seconds".
            self.stdout.write(f"{task.name}: {task.task} {task.interval}")
