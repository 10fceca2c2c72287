"""The beat pool: a small extra pool in every worker for the periodic jobs (issue 11).

Periodic and housekeeping jobs (``BEAT_TASKS``: the requeue scan, starting tournaments, rating
refits) must never wait behind a match nor take a match slot. They are routed to their own
queue (``beat_queue()``: ``settings.BAO_BEAT_QUEUE``, else the default queue's name plus
``.beat``, so a worker given its own default queue gets its own beat queue too), and every
``celery -A arena.worker worker`` starts, as a bootstep of its main process, a second Celery
worker consuming only that queue with a pool of ``BEAT_POOL_THREADS`` threads (the jobs are short
database work). It runs beside the match pool, lives and dies with its worker (SIGTERM on a warm
shutdown; the kernel's parent-death signal if the worker is killed), and logs to the same
output. The command that starts a worker stays the same everywhere (README, compose, tests).

The validation pool (issue 29) is the same kind of side pool for a new version's validation
(``VALIDATION_TASKS``): its own queue (``validation_queue()``: ``settings.BAO_VALIDATION_QUEUE``,
else the default queue's name plus ``.validation``) consumed by every worker with
``settings.BAO_VALIDATION_SLOTS`` threads of its own (default 1), so a validation never waits
behind the ``run_match`` messages of automatic rated play in the broker, nor for a match slot
to free: it is played within seconds even while the ladder fills every slot. That slot is one
game beyond the match slots (a 5+0.1 game of at most 40 plies per variant).

The people pool (issue 33) is the third: people's games against engines (``PEOPLE_TASKS``,
docs/play.md) on their own queue (``people_queue()``: ``settings.BAO_PEOPLE_QUEUE``, else the
default queue's name plus ``.people``) with ``settings.BAO_PEOPLE_SLOTS`` threads per worker
(default 2). That number is the documented cap on the slots people's games hold: they never
take a match slot of rated play or tournaments, and a game asked while every people slot is
busy waits (``pending``) in its queue. A slot holds one engine process and mostly waits for
the person (a database read every ``people.runner.POLL_S``).
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import subprocess
import sys
from typing import Any

from celery import bootsteps

log = logging.getLogger(__name__)

#: The tasks routed to the beat queue (by name: senders need not import them).
BEAT_TASKS = frozenset(
    {
        "arena.matches.tasks.requeue_expired_leases",
        "tournaments.tasks.start_due_tournaments",
        "tournaments.tasks.start_tournament",
        "tournaments.tasks.refit_ratings",
        "tournaments.tasks.refit_stale_ratings",
        "people.tasks.abort_stale_person_games",
    }
)
#: The tasks routed to the validation queue.
VALIDATION_TASKS = frozenset({"engines.tasks.validate_engine_version"})
#: The tasks routed to the people queue.
PEOPLE_TASKS = frozenset({"people.tasks.play_person_game"})
#: Set in a side pool's environment (beat or validation: it must not start side pools of its
#: own, nor announce match slots).
MARKER = "BAO_BEAT_POOL"
BEAT_POOL_THREADS = 2
PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:  # runs in the child between fork and exec
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def beat_queue() -> str:
    """The queue of the beat jobs (module docstring)."""
    from django.conf import settings

    from arena.celery import app

    return str(settings.BAO_BEAT_QUEUE or f"{app.conf.task_default_queue}.beat")


def validation_queue() -> str:
    """The queue of the validations (module docstring)."""
    from django.conf import settings

    from arena.celery import app

    return str(settings.BAO_VALIDATION_QUEUE or f"{app.conf.task_default_queue}.validation")


def people_queue() -> str:
    """The queue of people's games (module docstring)."""
    from django.conf import settings

    from arena.celery import app

    return str(settings.BAO_PEOPLE_QUEUE or f"{app.conf.task_default_queue}.people")


def route_beat_tasks(
    name: str, args: Any, kwargs: Any, options: Any, task: Any = None, **extra: Any
) -> dict[str, str] | None:
    """Celery router (``CELERY_TASK_ROUTES``): ``BEAT_TASKS`` to ``beat_queue()``,
    ``VALIDATION_TASKS`` to ``validation_queue()``, ``PEOPLE_TASKS`` to ``people_queue()``."""
    if name in BEAT_TASKS:
        return {"queue": beat_queue()}
    if name in VALIDATION_TASKS:
        return {"queue": validation_queue()}
    if name in PEOPLE_TASKS:
        return {"queue": people_queue()}
    return None


def is_beat_pool() -> bool:
    """Whether this process is a beat pool (not a match worker)."""
    return os.environ.get(MARKER) == "1"


class BeatPool(bootsteps.StartStopStep):
    """Starts and stops the beat pool of a worker (not of a side pool itself)."""

    #: The pool's node name is this prefix and the worker's.
    prefix = "beat"

    def __init__(self, worker: Any, **kwargs: Any) -> None:
        super().__init__(worker, **kwargs)
        self.popen: subprocess.Popen[bytes] | None = None

    def queue(self) -> str:
        return beat_queue()

    def threads(self) -> int:
        return BEAT_POOL_THREADS

    def start(self, worker: Any) -> None:
        if is_beat_pool():
            return
        if self.threads() < 1:
            log.info("%s pool not started: 0 threads", self.prefix)
            return
        queue = self.queue()
        argv = [
            sys.executable, "-m", "celery", "-A", "arena.worker", "worker",
            "--pool=threads", f"--concurrency={self.threads()}",
            "-Q", queue, "-n", f"{self.prefix}.{worker.hostname}",
            "--without-gossip", "--without-mingle", "--without-heartbeat",
            "-l", str(logging.getLevelName(worker.loglevel)),
        ]  # fmt: skip
        env = {**os.environ, MARKER: "1"}
        self.popen = subprocess.Popen(argv, env=env, preexec_fn=_die_with_parent)
        log.info("%s pool started (pid %s) on queue %s", self.prefix, self.popen.pid, queue)

    def stop(self, worker: Any) -> None:
        popen, self.popen = self.popen, None
        if popen is None or popen.poll() is not None:
            return
        popen.terminate()
        try:
            popen.wait(timeout=15)
        except subprocess.TimeoutExpired:
            popen.kill()
            popen.wait()

    def terminate(self, worker: Any) -> None:
        self.stop(worker)


class ValidationPool(BeatPool):
    """Starts and stops the validation pool of a worker (module docstring)."""

    prefix = "validation"

    def queue(self) -> str:
        return validation_queue()

    def threads(self) -> int:
        from django.conf import settings

        return int(settings.BAO_VALIDATION_SLOTS)


class PeoplePool(BeatPool):
    """Starts and stops the people pool of a worker (module docstring)."""

    prefix = "people"

    def queue(self) -> str:
        return people_queue()

    def threads(self) -> int:
        from django.conf import settings

        return int(settings.BAO_PEOPLE_SLOTS)
