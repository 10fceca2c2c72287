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


@shared_task(name="tournaments.tasks.start_tournament", ignore_result=True)
def start_tournament(tournament_id: int) -> bool:
    """Start one tournament due now (sent when a tournament without a start time is created).

    Idempotent (``services.tournament_start``'s conditional UPDATE): True if this run started it.
    """
    return services.tournament_start(tournament_id)
