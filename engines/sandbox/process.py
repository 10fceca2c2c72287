"""A running engine (``EngineProcess``): its pipes, its stderr drained by a thread, its exit
status, the memory it holds, and its end, which kills its whole process tree and gives back its
uid, scratch directory and package copy.

Part of the sandbox (``engines.sandbox`` is the interface; ``launch.start_engine`` makes these).
Standard library only; no Django.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import select
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import IO, Self

from arena.engine_text import decode_engine_output
from engines.sandbox.cgroup import EngineCgroup
from engines.sandbox.config import SandboxLimits
from engines.sandbox.cpu import cpu_seconds
from engines.sandbox.memory import tree_pids, usage_bytes
from engines.sandbox.procs import UidLease, kill_uid, pids_of_uid, proc_status, scan, sigkill

LOG = logging.getLogger("engines.sandbox")

_STDERR_CHUNK = 1 << 16
#: How long ``stderr_tail`` waits, once the process exited, for the drainer to reach EOF (s).
_STDERR_SETTLE_S = 0.5
#: How long kill() waits for the init of an exited bwrap's pid namespace before it scans.
_INIT_WAIT_S = 1.0


class EngineProcess:
    """A running engine. Use as a context manager: leaving it kills the engine.

    ``stdin`` takes the referee's commands (unbuffered binary), ``stdout_fd`` is the raw fd of the
    engine's stdout (the reader may make it non-blocking). stderr is drained by a thread:
    ``stderr_bytes`` counts it, ``stderr_tail()`` gives the last ``stderr_keep_bytes``,
    ``stderr_overflow`` is set past ``max_stderr_bytes`` (memory stays bounded either way).
    ``scratch`` is the host directory that is the engine's ``HOME`` (modes ``fallback`` and
    ``off``; in the fallback a capped tmpfs covers it, so it stays empty on the host), None in
    ``bwrap``, whose ``/scratch`` exists only inside the sandbox. ``root`` is the host directory
    the engine runs from: its private copy of the package (the package root itself in ``off``).
    """

    def __init__(
        self,
        popen: subprocess.Popen[bytes],
        mode: str,
        limits: SandboxLimits,
        lease: UidLease | None,
        scratch: Path | None,
        started_ns: int,
        root: Path,
        private_root: bool,
        *,
        pid_namespace: bool = False,
        info_fd: int | None = None,
        memory_mounts: tuple[tuple[str, int], ...] = (),
    ) -> None:
        self._popen = popen
        # The engine's processes live in a pid namespace of their own (bwrap; the fallback with
        # unshare --fork --pid), whose end kill() can tell without a scan; bwrap reports the
        # namespace's init on ``info_fd`` (``--info-fd``): see _exited_with_namespace().
        self.pid_namespace = pid_namespace
        self._info_fd = info_fd
        self.pid = popen.pid
        self.mode = mode
        self.limits = limits
        self._lease = lease
        self.uid = lease.uid if lease else os.getuid()
        self.scratch = scratch
        self.root = root
        self._private_root = private_root
        # What memory_bytes() measures: the tmpfs mounts as the engine sees them.
        self._memory_mounts = memory_mounts
        self.cgroup: EngineCgroup | None = None  # the kernel cap, if the config asks for one
        assert popen.stdin is not None and popen.stdout is not None and popen.stderr is not None
        self.stdin: IO[bytes] = popen.stdin
        self._stdout = popen.stdout
        self.stdout_fd = popen.stdout.fileno()
        self.stderr_bytes = 0
        self.stderr_overflow = False
        self.start_ms = (time.monotonic_ns() - started_ns) / 1e6
        self._tail = bytearray()
        self._tail_lock = threading.Lock()
        self._killed = False
        self._kill_lock = threading.Lock()
        self._drainer = threading.Thread(
            target=self._drain,
            args=(popen.stderr,),
            name=f"engine-stderr-{self.pid}",
            daemon=True,
        )
        self._drainer.start()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()

    def __repr__(self) -> str:
        return f"<EngineProcess pid={self.pid} mode={self.mode} uid={self.uid} exit={self.poll()}>"

    def _drain(self, stream: IO[bytes]) -> None:
        keep = self.limits.stderr_keep_bytes
        fd = stream.fileno()
        while True:
            try:
                chunk = os.read(fd, _STDERR_CHUNK)
            except OSError:
                break
            if not chunk:
                break
            with self._tail_lock:
                self.stderr_bytes += len(chunk)
                if self.stderr_bytes > self.limits.max_stderr_bytes:
                    self.stderr_overflow = True
                self._tail += chunk
                if len(self._tail) > keep:
                    del self._tail[: len(self._tail) - keep]
        stream.close()

    def stderr_tail(self) -> str:
        """The last ``stderr_keep_bytes`` of stderr as text for the record: UTF-8, with
        undecodable bytes and control characters other than tab and newline (NUL included)
        replaced by U+FFFD (``arena.engine_text.decode_engine_output``). Once the process
        has exited, waits up to ``_STDERR_SETTLE_S`` for the drainer to read the rest: what
        an engine wrote just before it died must reach the record (under load the drainer
        thread was seen to lag behind the referee that noticed the exit)."""
        if self._drainer.is_alive() and self._popen.poll() is not None:
            self._drainer.join(_STDERR_SETTLE_S)
        with self._tail_lock:
            raw = bytes(self._tail)
        return decode_engine_output(raw, multiline=True)

    def stderr_since(self, offset: int) -> tuple[str, int]:
        """What the engine wrote to stderr after its first ``offset`` bytes (``stderr_bytes``
        then): the part of it still in the tail (the last ``stderr_keep_bytes``) as text, as
        ``stderr_tail`` cleans it, and how many bytes of it the tail no longer holds. The
        referee's stderr of one game (docs/referee.md, "Stored output")."""
        if self._drainer.is_alive() and self._popen.poll() is not None:
            self._drainer.join(_STDERR_SETTLE_S)
        with self._tail_lock:
            total = self.stderr_bytes
            raw = bytes(self._tail)
        offset = max(0, min(offset, total))
        raw = raw[max(0, offset - (total - len(raw))) :]
        return decode_engine_output(raw, multiline=True), total - offset - len(raw)

    def poll(self) -> int | None:
        """Exit status like ``Popen.returncode`` (negative: killed by that signal).

        None while running.
        """
        return self._status(self._popen.poll())

    def wait(self, timeout: float) -> int | None:
        """Wait up to ``timeout`` seconds; the exit status, or None if still running.

        Woken by the exit itself (a pidfd), not by ``Popen.wait``'s sleeps, which double from
        1 ms and so overshoot an exit by up to its own duration (an engine that takes 9 ms to
        quit was seen at 15 ms): every match waits so for both engines' ``quit``."""
        code = self._popen.poll()
        if code is not None or timeout <= 0:
            return self._status(code)
        try:
            pidfd = os.pidfd_open(self.pid)
        except OSError:  # reaped meanwhile, or no pidfd on this kernel
            try:
                return self._status(self._popen.wait(timeout))
            except subprocess.TimeoutExpired:
                return None
        try:
            select.select([pidfd], [], [], timeout)
        finally:
            os.close(pidfd)
        return self._status(self._popen.poll())

    def _status(self, code: int | None) -> int | None:
        # bwrap reports a child killed by signal n as exit code 128+n.
        if code is not None and self.mode == "bwrap" and 128 < code <= 128 + 64:
            return -(code - 128)
        return code

    def alive_pids(self) -> set[int]:
        """Host pids of this engine's processes still alive (zombies excluded)."""
        # A leased uid is still scanned after kill() released it: tests check that nothing is
        # left. (Once another engine leases the uid again, its processes would show here.)
        pids = scan(match_sid=self.pid) if self.mode == "off" else pids_of_uid(self.uid)
        if self._popen.returncode is None:  # the sandbox wrapper itself, until reaped
            st = proc_status(str(self.pid))
            if st is not None and st[2] != "Z":
                pids.add(self.pid)
        return pids

    def memory_bytes(self) -> int:
        """The memory the engine holds now, in bytes: the summed proportional set size of all
        its processes plus the bytes used in its size-capped tmpfs mounts
        (``engines.sandbox.memory``). About 20-50 us per process; 0 once it is gone."""
        pids = self._tree()
        inside = next((pid for pid in pids if pid != self.pid), None)
        return usage_bytes(pids, inside if self._memory_mounts else None, self._memory_mounts)

    def cpu_seconds(self) -> float:
        """The CPU time, user and system, all the engine's processes have used since it started,
        in seconds (``engines.sandbox.cpu``: those still alive and the children they reaped).
        About 10 us per process; 0 once it is gone."""
        return cpu_seconds(self._tree())

    def _tree(self) -> set[int]:
        pids = tree_pids(self.pid)
        if not self.pid_namespace and self.mode != "off":
            # No pid namespace: a double fork leaves the tree (the uid is the engine's alone).
            pids |= pids_of_uid(self.uid)
        return pids

    def oom_killed(self) -> bool:
        """Whether the kernel killed the engine at its cgroup's memory cap (False without one)."""
        return self.cgroup is not None and self.cgroup.oom_killed()

    def sigkill_all(self) -> None:
        """SIGKILL every process of the engine at once, from any thread (the referee's memory
        watchdog). Only signals: the pipes, the scratch directory and the uid stay until
        ``kill()``, which the thread that owns the engine calls."""
        self._signal_all()
        if self.mode != "off":
            kill_uid(self.uid)

    def kill(self) -> None:
        """SIGKILL every process the engine started and reap; close the pipes, remove the scratch
        directory and the private package copy, release the uid. Idempotent. Logs an ERROR if
        something survives 2 s.

        An engine that already exited by itself (after ``quit``) in its own pid namespace is
        only reaped: no signal, no scan of ``/proc`` (the scans cost milliseconds per engine).
        """
        with self._kill_lock:
            if self._killed:
                return
            self._killed = True
            # Whether every process of the engine is known to be gone: its uid is then released
            # as clean, and its next lease skips the scan for leftovers.
            gone = self._exited_with_namespace() or self._kill_tree()
            try:
                self._popen.wait(2.0)
            except subprocess.TimeoutExpired:
                LOG.error("engine pid %d could not be reaped", self.pid)
            for stream in (self.stdin, self._stdout):
                with contextlib.suppress(OSError):
                    stream.close()
            self._drainer.join(1.0)
            if self._info_fd is not None:
                os.close(self._info_fd)
                self._info_fd = None
            if self.cgroup is not None:
                self.cgroup.remove()
            for path in (self.scratch, self.root if self._private_root else None):
                if path is not None:
                    shutil.rmtree(path, ignore_errors=True)
            if self._lease is not None:
                self._lease.release(clean=gone)

    def _exited_with_namespace(self) -> bool:
        """True when the wrapper has exited normally and the engine's pid namespace is empty.

        The kernel kills every other process of a pid namespace whose init exits, and reaps
        them all before that exit completes. The fallback's ``unshare --fork`` waits for that
        init (its child) before it exits; bwrap's outer process exits as soon as its init
        reports the engine's status, so the init it named on ``--info-fd`` is waited for here
        (a pidfd: no scan, at most ``_INIT_WAIT_S``). A wrapper killed by a signal proves
        nothing, nor does an engine without a namespace: those get the full kill. Polling
        reaps the wrapper: what already exited is not waited for.
        """
        if not self.pid_namespace:
            return False
        code = self._popen.poll()
        if code is None or code < 0:
            return False
        return self._info_fd is None or self._namespace_init_gone()

    def _namespace_init_gone(self) -> bool:
        """True once the init bwrap reported on its info fd has exited (or is already gone)."""
        assert self._info_fd is not None
        try:
            child = int(json.loads(os.read(self._info_fd, 4096))["child-pid"])
        except (OSError, ValueError, KeyError, TypeError):
            return False  # no report (bwrap failed early): scan
        try:
            pidfd = os.pidfd_open(child)
        except ProcessLookupError:
            return True  # exited and reaped
        except OSError:
            return False
        try:
            return bool(select.select([pidfd], [], [], _INIT_WAIT_S)[0])
        finally:
            os.close(pidfd)

    def _kill_tree(self) -> bool:
        """SIGKILL the wrapper and every process of the engine's uid (or session), until none
        is left (True) or 2 s have passed (False, and an ERROR is logged)."""
        self._signal_all()
        deadline = time.monotonic() + 2.0
        while True:
            survivors = self.alive_pids()
            if not survivors:
                return True
            if time.monotonic() > deadline:
                LOG.error(
                    "engine pid %d: processes %s survived SIGKILL",
                    self.pid,
                    sorted(survivors),
                )
                return False
            if self.mode == "off":
                for pid in survivors:
                    sigkill(pid)
            else:
                kill_uid(self.uid)
            time.sleep(0.005)

    def _signal_all(self) -> None:
        if self._popen.returncode is None:
            sigkill(self.pid)
        if self.mode == "off":
            with contextlib.suppress(OSError):
                os.killpg(self.pid, signal.SIGKILL)
            return
        # Every process of the engine (and only those) runs as the leased uid: killing them
        # all also kills the pid namespace's init, which takes the rest of the namespace along.
        for pid in pids_of_uid(self.uid):
            sigkill(pid)
