"""Celery tasks of the ratings app (thin: the work is in ``ratings.services``).

The tasks keep the names they had in the tournaments app (``tournaments.tasks.*``): queued
tasks, the django-celery-beat row of ``refit_stale_ratings`` and the beat pool
(``arena.beat_pool``) name them so.
"""

from __future__ import annotations

from celery import shared_task

from ratings import services
from ratings.models import RatingPool


@shared_task(name="tournaments.tasks.refit_ratings", ignore_result=True)
def refit_ratings(variant: str) -> bool:
    """Refit the ratings of ``variant`` (queued by ``services.rating_refit_request``).

    Clears the variant's ``refit_queued`` flag first, so a match recorded during the fit queues
    the next one. Safe to run twice: a refit older than the stored one writes nothing.
    """
    RatingPool.objects.filter(variant=variant).update(refit_queued=False)
    return services.rating_refit(variant)


@shared_task(name="tournaments.tasks.refit_stale_ratings", ignore_result=True)
def refit_stale_ratings() -> list[str]:
    """Refit variants whose refit requests were not served (beat, every minute)."""
    return services.rating_refit_stale()
