"""The engine watchdog: one thread per running engine that kills it at its memory cap or past its
CPU budget.

Memory. An engine may start many processes (``SandboxLimits.max_processes``), each under its
own address-space limit, and fill its tmpfs mounts: only the sum says what it takes from the
host. Every ``interval_ms`` (at most 20 ms: at 100 ms a fast allocator was seen reaching 1.6 GiB
under a 1 GiB cap) the watchdog asks the process for ``memory_bytes()`` (the summed
proportional set size of all its processes plus its tmpfs usage: ``engines.sandbox.memory``)
and, at ``cap_bytes`` or more, SIGKILLs every process of the engine at once
(``sigkill_all()``) and records what it measured. The referee then ends the game with
``memory_limit`` against that engine (``EngineSlot.check_limits`` while it waits for a reply,
and ``EngineSlot.fault_cause`` for a fault the kill caused first, such as a closed pipe).

CPU. ``RLIMIT_CPU`` is per process, so a fork hog (40 busy loops) takes every core of the host
from the other engine and the other games. Every ``CPU_EVERY`` memory samples (100 ms) the
watchdog asks for ``cpu_seconds()`` (user + system time of all the engine's processes:
``engines.sandbox.cpu``) and compares it with the engine's ``CpuBudget``: ``allowance_s +
factor * wall_s``, ``wall_s`` the time since the watchdog started (the engine's start, within
milliseconds). The budget is an average over the engine's life: a start-up burst (a JVM's
class loading and JIT, node's compiler) spends the allowance, a search in its own turn runs at
one core; only an engine that keeps more than ``factor`` cores busy for long, or burns the
allowance and then stays above ``factor``, goes over. Past the budget on two samples in a row
(one sample may count a child reaped mid-read twice), it is killed like a memory hog and the
referee ends the game with ``cpu_limit``. The figures behind the defaults are in
``docs/sandbox.md`` ("CPU budget").

The watchdog only reads ``/proc`` and sends signals; it never touches the engine's pipes, so it
cannot race the referee thread that owns them. Standard library only; any process object with
``memory_bytes()`` and ``sigkill_all()`` works (``cpu_seconds()`` too for the CPU budget; the
referee's fakes have none, so they get no watchdog).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TypeGuard

log = logging.getLogger(__name__)

#: Longest allowed sampling interval, ms (see the module docstring).
MAX_INTERVAL_MS = 20
#: The CPU time is sampled every this many memory samples.
CPU_EVERY = 5


@dataclass(frozen=True)
class CpuBudget:
    """The CPU time an engine may use: ``allowance_s + factor * wall_s`` seconds after
    ``wall_s`` seconds of its life (all its processes together, user and system time).
    ``factor`` is in cores (1.0: one core busy all the time). Raises ``ValueError`` unless
    both are positive."""

    allowance_s: float = 5.0
    factor: float = 1.25

    def __post_init__(self) -> None:
        if not (self.allowance_s > 0 and self.factor > 0):
            raise ValueError(f"CpuBudget needs a positive allowance and factor, not {self}")

    def limit_s(self, wall_s: float) -> float:
        """The CPU seconds allowed after ``wall_s`` seconds."""
        return self.allowance_s + self.factor * wall_s

    def __str__(self) -> str:
        return f"{self.allowance_s:g} s + {self.factor:g} x wall time"


class WatchedProcess(Protocol):
    """What the watchdog needs of an engine (``engines.sandbox.EngineProcess`` has it, and
    ``cpu_seconds()`` besides, which the CPU budget needs)."""

    def memory_bytes(self) -> int:
        """Memory the engine holds now, in bytes: all its processes and its tmpfs."""
        ...

    def sigkill_all(self) -> None:
        """SIGKILL every process of the engine at once (no reaping)."""
        ...


class EngineWatchdog:
    """Samples ``process`` every ``interval_ms`` (1 to ``MAX_INTERVAL_MS``) from a daemon
    thread until ``stop()``, killing it at ``cap_bytes`` (None: memory not capped) or past
    ``cpu`` (None, or a process without ``cpu_seconds()``: CPU not watched).

    ``exceeded_bytes``: the sample that reached the cap (None while under it); ``peak_bytes``:
    the largest sample; ``samples``: how many were taken. ``cpu_exceeded``: (CPU seconds, wall
    seconds) of the sample that went over the budget, else None; ``cpu_used_s``: the last CPU
    sample. Raises ``ValueError`` for a cap or interval out of range."""

    def __init__(
        self,
        process: WatchedProcess,
        cap_bytes: int | None,
        *,
        interval_ms: int = MAX_INTERVAL_MS,
        cpu: CpuBudget | None = None,
    ):
        if cap_bytes is not None and cap_bytes <= 0:
            raise ValueError(f"cap_bytes must be positive, not {cap_bytes}")
        if not 1 <= interval_ms <= MAX_INTERVAL_MS:
            raise ValueError(f"interval_ms must be 1 to {MAX_INTERVAL_MS}, not {interval_ms}")
        self.process = process
        self.cap_bytes = cap_bytes
        self.interval_s = interval_ms / 1000
        reader = getattr(process, "cpu_seconds", None)
        self._cpu_seconds: Callable[[], float] | None = reader if callable(reader) else None
        self.cpu = cpu if self._cpu_seconds is not None else None
        self.exceeded_bytes: int | None = None
        self.peak_bytes = 0
        self.samples = 0
        self.cpu_exceeded: tuple[float, float] | None = None
        self.cpu_used_s = 0.0
        self._over = 0  # CPU samples over the budget in a row
        self._started = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name=f"engine-watchdog-{getattr(process, 'pid', '?')}", daemon=True
        )

    @classmethod
    def supports(cls, process: object) -> TypeGuard[WatchedProcess]:
        """Whether ``process`` can be watched (has ``memory_bytes`` and ``sigkill_all``)."""
        return callable(getattr(process, "memory_bytes", None)) and callable(
            getattr(process, "sigkill_all", None)
        )

    @property
    def tripped(self) -> bool:
        """Whether the watchdog killed the engine (memory or CPU)."""
        return self.exceeded_bytes is not None or self.cpu_exceeded is not None

    def start(self) -> EngineWatchdog:
        self._started = time.monotonic()
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
                over = self._sample()
            except Exception:
                log.exception("engine watchdog: sampling %r failed; watching stops", self.process)
                return
            if over:
                try:
                    self.process.sigkill_all()
                except Exception:
                    log.exception("engine watchdog: killing %r failed", self.process)
                return
            due += self.interval_s
            delay = due - time.monotonic()
            if delay < 0:  # fell behind (a loaded machine): sample again at once
                due = time.monotonic()
                delay = 0
            self._stop.wait(delay)

    def _sample(self) -> bool:
        """One sample; True when the engine must die (its verdict set before the kill:
        whoever sees the death sees why)."""
        self.samples += 1
        if self.cap_bytes is not None:
            used = int(self.process.memory_bytes())
            self.peak_bytes = max(self.peak_bytes, used)
            if used >= self.cap_bytes:
                self.exceeded_bytes = used
                return True
        if self.cpu is None or self._cpu_seconds is None or self.samples % CPU_EVERY:
            return False
        wall = time.monotonic() - self._started
        used_s = float(self._cpu_seconds())
        self.cpu_used_s = used_s
        self._over = self._over + 1 if used_s > self.cpu.limit_s(wall) else 0
        if self._over >= 2:
            self.cpu_exceeded = (used_s, wall)
            return True
        return False
