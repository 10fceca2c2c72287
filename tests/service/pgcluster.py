"""A PostgreSQL cluster of a test's own (``initdb`` in a temporary directory), so fault tests
never touch a shared server; or, in CI, the server ``DATABASE_URL`` names.

``postgres_server()`` yields the server's ``(host, port)`` and a ``postgres://`` URL of it; it
skips the test with the reason when neither is available.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from .faults import free_port

#: Where Debian puts the server's programs.
PG_BIN_DIRS = ("/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin",
               "/usr/lib/postgresql/15/bin")  # fmt: skip


def _pg_bin() -> Path | None:
    for directory in PG_BIN_DIRS:
        if (Path(directory) / "initdb").exists():
            return Path(directory)
    found = shutil.which("initdb")
    return Path(found).parent if found else None


def _run_as() -> tuple[int, int] | None:
    """The uid and gid to run the server as: ours, or ``postgres`` when we are root (the
    server refuses to run as root)."""
    if os.geteuid() != 0:
        return None
    try:
        entry = pwd.getpwnam("postgres")
    except KeyError:
        entry = pwd.getpwnam("nobody")
    return entry.pw_uid, entry.pw_gid


@contextlib.contextmanager
def private_cluster() -> Iterator[tuple[tuple[str, int], str]]:
    """A throw-away cluster on 127.0.0.1 (trust authentication), stopped and deleted after."""
    bin_dir = _pg_bin()
    if bin_dir is None:
        pytest.skip("no PostgreSQL server programs (initdb) on this machine")
    owner = _run_as()

    def demote() -> None:
        if owner is not None:
            os.setgid(owner[1])
            os.setuid(owner[0])

    root = Path(tempfile.mkdtemp(prefix="bao-pg-"))
    data = root / "data"
    if owner is not None:
        os.chown(root, *owner)
    user = pwd.getpwuid(owner[0] if owner else os.geteuid()).pw_name
    port = free_port()
    server: subprocess.Popen[bytes] | None = None
    try:
        subprocess.run(
            [str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", user, "-E", "UTF8"],
            check=True, capture_output=True, preexec_fn=demote,
        )  # fmt: skip
        log = open(root / "server.log", "wb")  # noqa: SIM115  (the server's log)
        server = subprocess.Popen(
            [str(bin_dir / "postgres"), "-D", str(data), "-h", "127.0.0.1", "-p", str(port),
             "-k", str(root), "-c", "fsync=off", "-c", "max_connections=40"],
            stdout=log, stderr=subprocess.STDOUT, preexec_fn=demote, start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
                break
            if time.monotonic() > deadline or server.poll() is not None:
                raise RuntimeError(f"the private PostgreSQL did not start: {root}/server.log")
            time.sleep(0.1)
        time.sleep(0.3)  # listening precedes accepting logins by a moment
        yield ("127.0.0.1", port), f"postgres://{user}@127.0.0.1:{port}/postgres"
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def postgres_server() -> Iterator[tuple[tuple[str, int], str]]:
    """CI's server when this process runs on PostgreSQL (``DATABASE_URL``), else a private
    cluster."""
    from django.db import connection

    if connection.vendor == "postgresql":
        from arena.celery_processes import database_url

        db = connection.settings_dict
        yield (str(db.get("HOST") or "127.0.0.1"), int(db.get("PORT") or 5432)), database_url()
        return
    with private_cluster() as server:
        yield server
