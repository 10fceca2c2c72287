"""Bao Arena: the Django project (settings, urls, Celery app), the rules engine and the referee.

Kept empty on purpose: ``arena.rules`` must import without Django or Celery.
The Celery app lives in ``arena.celery``, a worker's start-up in ``arena.worker``.
"""
