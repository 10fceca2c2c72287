"""Celery tasks of the tournaments app (thin: the work is in ``tournaments.services``)."""

from __future__ import annotations

from celery import shared_task

from tournaments import services


@shared_task(name="tournaments.tasks.start_due_tournaments", ignore_result=True)
def start_due_tournaments() -> list[int]:
    """Start every scheduled tournament whose start time has passed (beat, every minute).

    Idempotent: a tournament is started by a conditional UPDATE, so overlapping runs start it
    once. Returns the ids started by this run.
    """
    return services.start_due_tournaments()
