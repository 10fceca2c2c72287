"""Celery tasks of the ladder (thin: the work is in ``ladder.services``).

The tasks keep the names they had in the tournaments app (``tournaments.tasks.ladder_fill*``):
queued tasks, the django-celery-beat row of ``ladder_fill_all`` and the senders
(``ladder.services``, ``engines.validation``) name them so.
"""

from __future__ import annotations

from celery import shared_task

from ladder import services


@shared_task(name="tournaments.tasks.ladder_fill", ignore_result=True)
def ladder_fill(variant: str) -> list[int]:
    """Top up ``variant``'s ladder (sent after a match is recorded); returns the match ids."""
    return services.ladder_fill(variant)


@shared_task(name="tournaments.tasks.ladder_fill_all", ignore_result=True)
def ladder_fill_all() -> dict[str, list[int]]:
    """Top up every variant's ladder (beat, every minute)."""
    return services.ladder_fill_all()
