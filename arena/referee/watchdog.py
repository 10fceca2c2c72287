"""The memory watchdog: one thread per running engine that kills it at its memory cap.

An engine may start many processes (``SandboxLimits.max_processes``), each under its own
address-space limit, and fill its tmpfs mounts: only the sum says what it takes from the host.
Every ``interval_ms`` (at most 20 ms: at 100 ms a fast allocator was seen reaching 1.6 GiB
under a 1 GiB cap) the watchdog asks the process for ``memory_bytes()`` (the summed
proportional set size of all its processes plus its tmpfs usage: ``engines.sandbox.memory``)
and, at ``cap_bytes`` or more, SIGKILLs every process of the engine at once
(``sigkill_all()``) and records what it measured. The referee then ends the game with
``memory_limit`` against that engine (``EngineSlot.check_limits`` while it waits for a reply,
and ``EngineSlot.fault_cause`` for a fault the kill caused first, such as a closed pipe).

The watchdog only reads ``/proc`` and sends signals; it never touches the engine's pipes, so it
cannot race the referee thread that owns them. Standard library only; any process object with
``memory_bytes()`` and ``sigkill_all()`` works (the referee's fakes have none, so they get no
watchdog).
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Protocol, TypeGuard

log = logging.getLogger(__name__)

#: Longest allowed sampling interval, ms (see the module docstring).
MAX_INTERVAL_MS = 20


class WatchedProcess(Protocol):
    """What the watchdog needs of an engine (``engines.sandbox.EngineProcess`` has it)."""

    def memory_bytes(self) -> int:
        """Memory the engine holds now, in bytes: all its processes and its tmpfs."""
        ...

    def sigkill_all(self) -> None:
        """SIGKILL every process of the engine at once (no reaping)."""
        ...


class MemoryWatchdog:
    """Samples ``process`` every ``interval_ms`` (1 to ``MAX_INTERVAL_MS``) from a daemon
    thread until ``stop()``, killing it at ``cap_bytes``. ``exceeded_bytes``: the sample that
    reached the cap (None while under it); ``peak_bytes``: the largest sample; ``samples``:
    how many were taken. Raises ``ValueError`` for a cap or interval out of range."""

    def __init__(
        self, process: WatchedProcess, cap_bytes: int, *, interval_ms: int = MAX_INTERVAL_MS
    ):
        if cap_bytes <= 0:
            raise ValueError(f"cap_bytes must be positive, not {cap_bytes}")
        if not 1 <= interval_ms <= MAX_INTERVAL_MS:
            raise ValueError(f"interval_ms must be 1 to {MAX_INTERVAL_MS}, not {interval_ms}")
        self.process = process
        self.cap_bytes = cap_bytes
        self.interval_s = interval_ms / 1000
        self.exceeded_bytes: int | None = None
        self.peak_bytes = 0
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name=f"memory-watchdog-{getattr(process, 'pid', '?')}", daemon=True
        )

    @classmethod
    def supports(cls, process: object) -> TypeGuard[WatchedProcess]:
        """Whether ``process`` can be watched (has ``memory_bytes`` and ``sigkill_all``)."""
        return callable(getattr(process, "memory_bytes", None)) and callable(
            getattr(process, "sigkill_all", None)
        )

    def start(self) -> MemoryWatchdog:
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop sampling (idempotent); returns once the thread has ended."""
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join()

    def _run(self) -> None:
        # Samples start on a fixed grid, so a slow sample shortens the next sleep instead of
        # stretching the interval.
        due = time.monotonic()
        while not self._stop.is_set():
            try:
                used = int(self.process.memory_bytes())
            except Exception:
                log.exception("memory watchdog: sampling %r failed; watching stops", self.process)
                return
            self.samples += 1
            self.peak_bytes = max(self.peak_bytes, used)
            if used >= self.cap_bytes:
                self.exceeded_bytes = used  # set before the kill: whoever sees the death sees it
                try:
                    self.process.sigkill_all()
                except Exception:
                    log.exception("memory watchdog: killing %r failed", self.process)
                return
            due += self.interval_s
            delay = due - time.monotonic()
            if delay < 0:  # fell behind (a loaded machine): sample again at once
                due = time.monotonic()
                delay = 0
            self._stop.wait(delay)
