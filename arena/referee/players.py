"""One engine of a match: its process, its client, and the lifecycle between games.

The slot starts the engine through the sandbox (``engines.sandbox.start_engine`` unless the
config swaps it), does the handshake, and before each game either resynchronises a healthy
engine (``stop``/``isready``/drain, ``newgame``) or restarts a crashed, killed or broken one
(fresh process, handshake). ``launch`` starts a process and writes ``bep`` without waiting,
so the two engines of a game boot side by side. ``close_all`` (``close`` for one) always kills
the processes, after one shared ``quit`` wait: every exit path of a match ends in it.
"""

from __future__ import annotations

import logging
import signal
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from arena import terminations as T
from arena.engine_text import clean_engine_text

from .client import EngineClient, EngineFault, EngineId
from .config import RefereeConfig
from .control import MatchControl
from .output_cap import OUTPUT_KEEP_BYTES, cap_text_tail
from .process import EngineProcessLike, Starter
from .transport import EngineProcessPipes, PipeTransport, Transport
from .watchdog import EngineWatchdog

if TYPE_CHECKING:
    from engines.package import EnginePackage

log = logging.getLogger(__name__)

#: How often ``EngineSlot.check_limits`` asks the kernel whether it OOM-killed the engine, in
#: ns: the memory watchdog's sampling period (``RefereeConfig.memory_interval_ms``, 20 ms).
OOM_CHECK_INTERVAL_NS = 20_000_000


class StartError(RuntimeError):
    """The engine could not be started for a reason that is not its fault (``SandboxError``,
    a missing sandbox module, a bad config): the game is ``aborted``."""


class EngineSlot:
    """A named engine package taking part in a match (``name`` is unique within the match).

    ``process``: the running engine (``engines.sandbox.EngineProcess``, or what the config's
    starter returns), None between a kill and the next start."""

    def __init__(
        self,
        package: EnginePackage,
        name: str,
        config: RefereeConfig,
        control: MatchControl | None = None,
    ) -> None:
        self.package = package
        self.name = name
        self.config = config
        self.control = control
        self.process: EngineProcessLike | None = None
        self.client: EngineClient | None = None
        self.ident: EngineId | None = None
        self.watchdog: EngineWatchdog | None = None  # of the current process, if it has limits
        self.starts = 0  # how many processes were started (restarts = starts - 1)
        self._last_stderr = ""  # this game's stderr of a process killed since the last start
        self._stderr_mark = 0  # the current process's stderr_bytes when this game began
        self._handshake: tuple[int, int] | None = None  # begun by launch, read by prepare
        self._launched_at = 0.0  # time.monotonic() when launch started the process
        self._oom_check_due = 0  # time.monotonic_ns() from which check_limits asks the kernel

    # ------------------------------------------------------------------ lifecycle

    def launch(self) -> None:
        """Start a new process if the engine has none that works, and write its ``bep``
        without waiting for the answer: ``prepare`` reads it. Starting both engines of a game
        this way lets them boot side by side. Raises ``StartError`` or ``EngineFault``."""
        if self._healthy() or self._handshake is not None:
            return
        self.kill()
        self.watchdog = None
        self._oom_check_due = 0
        self._last_stderr = ""
        self._stderr_mark = 0
        began = time.monotonic()
        starter: Starter | None = self.config.starter
        if starter is None:
            try:
                from engines.sandbox import start_engine
            except ImportError as exc:
                raise StartError(f"the sandbox module is not available: {exc}") from exc
            starter = start_engine
        try:
            if self.config.sandbox is None:
                process = starter(self.package)
            else:
                process = starter(self.package, self.config.sandbox)
        except Exception as exc:  # SandboxError and anything else the starter raises: ours
            raise StartError(f"cannot start {self.name}: {type(exc).__name__}: {exc}") from exc
        self.process = process
        self.starts += 1
        if self.control is not None:
            self.control.attach(process)  # a stop kills it from any thread
            self.control.check()  # stopped while it started: it is dead already
        cap, cpu = self.config.memory_cap_bytes, self.config.cpu_budget
        if (cap is not None or cpu is not None) and EngineWatchdog.supports(process):
            self.watchdog = EngineWatchdog(
                process, cap, interval_ms=self.config.memory_interval_ms, cpu=cpu
            ).start()
        factory = self.config.transport_factory
        transport: Transport
        if factory is None:
            # The pipes of the default starter's EngineProcess; a starter whose processes have
            # none comes with its transport_factory.
            transport = PipeTransport.for_process(
                cast("EngineProcessPipes", process),
                max_line_bytes=self.config.max_line_bytes,
                max_stdout_bytes=self.config.max_stdout_bytes,
            )
        else:
            transport = factory(process)
        # The handshake already watches stderr: an engine flooding it instead of answering
        # is an output_limit at once, not a handshake_failed at the timeout.
        self.client = EngineClient(transport, watch=self.watch)
        self._handshake = self.client.begin_handshake(self.config.handshake_timeout_ms)
        self._launched_at = began

    def prepare(self, variant_id: str, options: dict[str, str] | None = None) -> EngineClient:
        """Make the engine ready for a new game of ``variant_id``, send ``setoption`` for each
        of ``options`` the engine declared, then ``newgame``.

        A launched engine finishes its handshake; one without a working process is started
        (``launch``) first; a running one is resynchronised. Raises ``EngineFault`` (its
        termination: ``handshake_failed``, ``crash``, ...) or ``StartError`` (``aborted``).
        """
        if self._handshake is None and self._healthy():
            assert self.client is not None
            try:
                self.client.resync(self.config.ready_timeout_ms)
            except EngineFault as fault:
                # A stuck or confused engine gets a fresh process rather than a second chance
                # on the same stream (late lines could otherwise leak into the new game).
                log.info("%s: resync failed (%s); restarting", self.name, fault)
                self.kill()
        self.launch()
        if self._handshake is not None:
            assert self.client is not None
            started, self._handshake = self._handshake, None
            self.ident = self.client.finish_handshake(started)
            self.config.metric("engine_start_seconds", time.monotonic() - self._launched_at)
        assert self.client is not None and self.ident is not None
        if self.ident.variants and variant_id not in self.ident.variants:
            raise EngineFault(
                T.HANDSHAKE_FAILED,
                f"engine plays {', '.join(self.ident.variants)}, not {variant_id}",
            )
        for name, value in (options or {}).items():
            if name in self.ident.options:
                self.client.setoption(name, value)
        self.client.newgame(variant_id)
        return self.client

    def _healthy(self) -> bool:
        return (
            self.process is not None
            and self.client is not None
            and not self.client.broken
            and self.process.poll() is None
        )

    def stderr_overflow(self) -> bool:
        """True once the current process wrote more stderr than the sandbox's cap
        (``EngineProcess.stderr_overflow``, set by its stderr drain)."""
        return bool(getattr(self.process, "stderr_overflow", False))

    def check_stderr(self) -> None:
        """Raises ``EngineFault(output_limit)`` if ``stderr_overflow()``; the engine client's
        ``watch`` (docs/protocol.md 6: stderr over its cap is ``output_limit``)."""
        if self.stderr_overflow():
            limits = getattr(self.process, "limits", None)
            cap = getattr(limits, "max_stderr_bytes", None)
            what = f"{cap} bytes" if isinstance(cap, int) else "the sandbox's max_stderr_bytes"
            raise EngineFault(T.OUTPUT_LIMIT, f"more than {what} on stderr")

    def watch(self) -> None:
        """The engine client's ``watch``: the match control's ``check()`` (stop, liveness),
        then ``check_limits()``."""
        if self.control is not None:
            self.control.check()
        self.check_limits()

    def check_memory(self) -> None:
        """Raises ``EngineFault(memory_limit)`` or ``EngineFault(cpu_limit)`` once the watchdog
        killed the current process (docs/referee.md: an engine over its memory cap or its CPU
        budget loses)."""
        fault = self._limit_fault()
        if fault is not None:
            raise fault

    def check_limits(self) -> None:
        """``check_stderr`` and ``check_memory``: the engine client's ``watch``, run every ply.

        The kernel's OOM record (``EngineProcess.oom_killed``: a file read when the engine has
        a cgroup) is asked at most every ``OOM_CHECK_INTERVAL_NS``, the watchdog's own
        sampling period; an OOM kill takes the whole engine down (``memory.oom.group``), and
        ``fault_cause`` always asks, so the crash it causes is still ``memory_limit``."""
        if getattr(self.process, "stderr_overflow", False):
            self.check_stderr()
        dog = self.watchdog
        if dog is not None and dog.tripped:
            self.check_memory()
            return
        now = time.monotonic_ns()
        if now >= self._oom_check_due:
            self._oom_check_due = now + OOM_CHECK_INTERVAL_NS
            self.check_memory()

    def fault_cause(self, fault: EngineFault) -> EngineFault:
        """The fault to record for ``fault``: ``memory_limit`` or ``cpu_limit`` if the watchdog
        killed the engine (its pipes closing may be what the referee saw first: a ``crash``),
        else ``fault`` itself."""
        return self._limit_fault() or fault

    def _limit_fault(self) -> EngineFault | None:
        oom_killed = getattr(self.process, "oom_killed", None)
        if callable(oom_killed) and oom_killed():
            return EngineFault(
                T.MEMORY_LIMIT, "killed by the kernel at the memory cap of its cgroup"
            )
        dog = self.watchdog
        if dog is None:
            return None
        if dog.cpu_exceeded is not None and dog.cpu is not None:
            used, wall = dog.cpu_exceeded
            return EngineFault(
                T.CPU_LIMIT,
                f"used {used:.1f} s of CPU (all processes) in {wall:.1f} s, "
                f"over its budget of {dog.cpu} ({dog.cpu.limit_s(wall):.1f} s)",
            )
        if dog.exceeded_bytes is None or dog.cap_bytes is None:
            return None
        return EngineFault(
            T.MEMORY_LIMIT,
            f"held {dog.exceeded_bytes / 2**20:.0f} MiB (all processes and tmpfs), "
            f"the cap is {dog.cap_bytes / 2**20:.0f} MiB",
        )

    def begin_game(self) -> None:
        """A game begins: ``game_stderr`` counts from here (the stderr of earlier games of
        the same process, and of a process killed before, is not this game's)."""
        self._last_stderr = ""
        self._stderr_mark = int(getattr(self.process, "stderr_bytes", 0) or 0)

    def stderr_tail(self) -> str:
        """The last stderr of the current process, or of the one killed since the last start
        (a crashed engine's traceback must reach the record), as clean text (control
        characters but tab and newline replaced: ``arena.engine_text``)."""
        if self.process is None:
            return self._last_stderr
        tail = getattr(self.process, "stderr_tail", None)
        try:
            # EngineProcess cleans its tail already; a swapped-in starter's process may not.
            return clean_engine_text(str(tail()), multiline=True) if callable(tail) else ""
        except Exception:
            log.exception("reading the stderr of %s failed", self.name)
            return ""

    def game_stderr(self) -> str:
        """The engine's stderr in this game (since ``begin_game``, or since the start of a
        process started in it), of the process killed in it if it was: the last
        ``OUTPUT_KEEP_BYTES`` at most, behind one marker line with the count of bytes cut
        (``output_cap``). Clean text, as ``stderr_tail``."""
        if self.process is None:
            return self._last_stderr
        since = getattr(self.process, "stderr_since", None)
        try:
            if callable(since):
                text, cut = since(self._stderr_mark)
                text = clean_engine_text(str(text), multiline=True)
            else:  # a swapped-in starter's process: its whole tail
                text, cut = self.stderr_tail(), 0
        except Exception:
            log.exception("reading the stderr of %s failed", self.name)
            return ""
        data = text.encode("utf-8", "replace")
        if len(data) > OUTPUT_KEEP_BYTES:
            cut += len(data) - OUTPUT_KEEP_BYTES
            text = data[-OUTPUT_KEEP_BYTES:].decode("utf-8", "replace")
        return cap_text_tail(text, cut)

    def exit_detail(self, wait_s: float = 0.5) -> str:
        """How the process ended: ``exit code 3`` / ``killed by signal 9 (SIGKILL)`` / ``still
        running`` (used in ``crash`` details)."""
        if self.process is None:
            return "not started"
        # EngineProcess.wait returns None on timeout (it does not raise like Popen.wait).
        code = self.process.wait(wait_s)
        if code is None:
            return "still running"
        if code < 0:
            try:
                sig = signal.Signals(-code).name
            except ValueError:
                sig = "unknown signal"
            return f"killed by signal {-code} ({sig})"
        return f"exit code {code}"

    def kill(self) -> None:
        """Kill the engine's processes (idempotent); the slot can start a new one later."""
        if self.process is not None:
            self._last_stderr = self.game_stderr()
        process, self.process = self.process, None
        if self.watchdog is not None:
            self.watchdog.stop()  # its verdict stays readable until the next start
        if self.client is not None:
            self.client.transport.close()
        self.client = None
        self._handshake = None
        if process is not None:
            try:
                process.kill()
            except Exception:
                log.exception("killing %s failed", self.name)

    def close(self) -> None:
        """``quit``, a short wait (``quit_timeout_ms``), then kill whatever is left."""
        close_all([self])


def close_all(slots: Sequence[EngineSlot]) -> None:
    """Close every slot together: ``quit`` to each running engine, then one shared wait of at
    most ``quit_timeout_ms`` for them to exit, then ``kill`` each (cheap for an engine that
    has exited: ``EngineProcess.kill``). Every process is gone when it returns, also if a
    kill raises (logged)."""
    try:
        quitting = []
        for slot in slots:
            if slot.process is not None and slot.client is not None and slot._healthy():
                slot.client.quit()
                quitting.append(slot)
        if quitting:
            deadline = time.monotonic() + max(s.config.quit_timeout_ms for s in quitting) / 1000
            for slot in quitting:
                if slot.process is not None:
                    slot.process.wait(max(0.0, deadline - time.monotonic()))
    finally:
        for slot in slots:
            slot.kill()
