"""The control channel of a running match: stop requests in, liveness out. No Django.

Whoever runs a match (a worker, a script) may hand ``play_match`` a ``MatchControl``. The
referee calls ``control.check()`` before every game, before every ply and, while it waits for an
engine, at least every ``client.WATCH_INTERVAL_MS`` (through the engine client's ``watch``). So:

* **liveness**: ``seconds_since_check()`` stays near zero while the referee loop is alive,
  including during a long think (the wait itself checks, up to the engine's deadline, after
  which the referee acts); a loop stuck in our own code stops checking. A worker renews its
  lease only while the loop is alive (``arena.matches.heartbeat``).
* **stop**: ``request_stop(reason)`` from any thread kills the engines at once (their process
  groups, whatever the referee thread is doing) and makes the next ``check()`` raise
  ``MatchStopped``; ``play_match`` then kills what is left and re-raises it. No record is
  returned for a stopped match: its owner decides what the stop means (a cancel aborts it,
  a lost lease records nothing, a shutdown hands it back).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from .process import Killable

log = logging.getLogger(__name__)


class MatchStopped(Exception):
    """Raised inside the referee once a stop was requested; ``reason`` says who asked why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class MatchControl:
    """Stop flag, liveness clock and the engine processes of one running match (thread-safe).

    ``clock`` (seconds, monotonic) is swappable for tests.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._processes: list[Killable] = []
        self.reason = ""
        self.last_check = clock()

    # ------------------------------------------------------------------ referee side

    def check(self) -> None:
        """Note that the referee loop is alive; raise ``MatchStopped`` if a stop was asked."""
        self.last_check = self._clock()
        if self._stop.is_set():
            raise MatchStopped(self.reason)

    def attach(self, process: Killable) -> None:
        """Register an engine process (anything with ``kill()``) to kill on a stop. A process
        attached after the stop is killed at once."""
        with self._lock:
            self._processes.append(process)
            stopped = self._stop.is_set()
        if stopped:
            _kill(process)

    # ------------------------------------------------------------------ owner side

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def request_stop(self, reason: str) -> bool:
        """Ask the match to stop (idempotent: the first reason is kept) and kill every attached
        engine process now. Returns True for the first request."""
        with self._lock:
            if self._stop.is_set():
                return False
            self.reason = reason
            self._stop.set()
            processes, self._processes = self._processes, []
        log.info("match stop requested: %s", reason)
        for process in processes:
            _kill(process)
        return True

    def seconds_since_check(self) -> float:
        """Seconds since the referee last called ``check()`` (its loop's liveness)."""
        return max(0.0, float(self._clock()) - float(self.last_check))


def _kill(process: Killable) -> None:
    try:
        process.kill()
    except Exception:  # one engine's failure to die must not keep the other alive
        log.exception("killing an engine process on stop failed")
