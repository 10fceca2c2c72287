"""The start-up of a Celery worker: start one with ``celery -A arena.worker worker``.

``arena.celery`` is the app alone, the one services send tasks through; it imports no app. This
module sits above the apps (the project level) and is imported only where a worker process
starts (docker-compose.yml, ``arena.celery_processes.WorkerProcess``, the beat pool's own
worker): importing it connects what every worker does (``arena.worker_hooks``: the pool's size
checked at start, orphaned engine processes swept and presence announced when ready, matches
handed back at a warm shutdown), serves the worker's Prometheus samples (``arena.metrics``) and
adds the beat pool, the validation pool and the people pool (``arena.beat_pool.BeatPool``,
``ValidationPool``, ``PeoplePool``) as
bootsteps of the worker's main process.
``app`` is the same object as ``arena.celery.app``, for Celery's ``-A`` option. With the embedded
broker the worker's main process starts (or attaches to) the server on import, before its pool
forks, so a worker that started it owns it (``arena.embedded``).
"""

from __future__ import annotations

from typing import Any

from celery import signals

from arena import worker_hooks
from arena.beat_pool import BeatPool, PeoplePool, ValidationPool
from arena.celery import app, broker_url

__all__ = ["app"]


def serve_metrics(**_: Any) -> None:
    """In the worker's main process, before its pool starts: serve this host's Prometheus
    samples on ``BAO_WORKER_METRICS_PORT`` (0: not served)."""
    from django.conf import settings

    if settings.BAO_WORKER_METRICS_PORT:
        from arena.metrics import start_worker_server

        start_worker_server(settings.BAO_WORKER_METRICS_PORT)


signals.worker_init.connect(serve_metrics, weak=False)
signals.celeryd_after_setup.connect(worker_hooks.check_pool_size, weak=False)
signals.worker_shutting_down.connect(worker_hooks.hand_back_matches, weak=False)
signals.worker_ready.connect(worker_hooks.sweep_sandbox_orphans, weak=False)
signals.worker_ready.connect(worker_hooks.announce_presence, weak=False)
app.steps["worker"].add(BeatPool)
app.steps["worker"].add(ValidationPool)
app.steps["worker"].add(PeoplePool)
broker_url()
