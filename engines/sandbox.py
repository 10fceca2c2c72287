"""The sandbox: the one module that starts engine processes (untrusted code).

Every engine runs as an argv list (never a shell) with its root as working directory, a fresh
writable scratch directory as ``HOME``, the environment ``PATH=/usr/bin:/bin``, ``HOME``,
``PYTHONPATH`` (where ``arena.rules`` and ``engines.sdk`` import from), ``LANG=C.UTF-8`` and
nothing else, in its own session and process group, under rlimits (``SandboxLimits``), as an
unprivileged host uid leased for this one process tree from ``UID_BASE .. UID_BASE+UID_COUNT-1``.

Modes (``SandboxConfig.mode``; ``EngineProcess.mode`` says which one ran):

``bwrap``
    bubblewrap, started as the leased uid: ``--unshare-all`` (user, pid, net, ipc, uts, cgroup
    namespaces: no network at all), ``--die-with-parent``, ``--new-session``; the filesystem is
    a read-only tmpfs holding read-only ``/usr`` (+ the ``/bin``, ``/lib*``, ``/sbin`` links),
    the engine root at ``/engine`` (read-only, the working directory), ``arena/rules`` and
    ``engines/sdk.py`` read-only under ``/bao/lib``, a read-only minimal ``/dev`` and the pid
    namespace's own ``/proc``. The only writable places are three tmpfs mounts with a size cap:
    ``/scratch`` (``HOME``, ``SandboxLimits.scratch_bytes``), ``/tmp`` and ``/dev/shm``
    (``tmp_bytes`` each). There is no scratch directory on the host. bwrap reads its options
    from a memory file (``--args``), so the namespace's pid 1 (bwrap's reaper) shows the engine
    no host path and no uid in ``/proc/1/cmdline``, only ``prlimit`` and the engine's command.
``fallback``
    where namespaces are refused to unprivileged users: ``setpriv --pdeathsig KILL`` then
    ``unshare --fork --pid --kill-child --mount-proc --net --ipc --uts`` (as root; no network,
    own pid and mount namespace) then ``engines/sandbox_mounts.py`` (still root, in that mount
    namespace: tmpfs mounts capped like bwrap's over ``/tmp``, ``/dev/shm`` and the host scratch
    directory, ``/var/tmp`` and ``/run/lock`` sharing the ``/tmp`` one; the engine root
    read-only) then ``setpriv`` to the leased uid with no capabilities and ``no_new_privs``. If even
    ``unshare`` is refused (a default docker container), only the uid, the session and the
    parent-death signal remain, the network is open and the scratch directory and world-writable
    host directories have no size cap. The engine sees the host filesystem as an unprivileged uid
    would (world-readable files are readable; the service keeps its own files in ``0700``
    directories). Its pid 1 is the engine itself (every step execs the next). A logging WARNING
    names why the full sandbox (or the size caps) were not used.
``off``
    a plain child process in its own session with the scrubbed environment: tests of the
    protocol only, never untrusted code.
``auto``
    ``bwrap`` if it works here, else ``fallback`` (loudly); ``require_full`` turns that into
    ``SandboxError``.

Limits are set by ``prlimit`` right before the engine's own command, so they bind the engine
and everything it starts, not the sandbox plumbing. ``RLIMIT_NPROC`` counts per (user namespace,
uid): in ``bwrap`` every engine has its own user namespace, in ``fallback`` its own host uid,
so one engine's fork bomb never eats another engine's budget. ``RLIMIT_CPU`` is per process.

Files (every mode but ``off``): the engine runs from a copy of its package readable only by its
leased uid (``engines.sandbox_files.give_to_uid``), removed when it is killed, so no engine ever
reads another's files; the library it may import is a world-readable copy keyed by its content
(``sandbox_files.library_dir``), never a link into a checkout.

Cleanup: ``EngineProcess.kill()`` SIGKILLs the process tree (the pid namespace's init, then every
process of the leased uid, finally ``kill(-1)`` run as that uid, which the kernel applies
atomically against a fork bomb) and reaps it. If the referee process dies, the parent-death
signal kills the sandbox, and the pid namespace takes every descendant with it. Note that
Linux sends the parent-death signal when the *thread* that started the engine exits: start
engines from a thread that lives as long as the game. bwrap sets that signal (``--die-with-
parent``) only after its ``clone``: a referee killed in those first milliseconds leaves a
namespace child waiting for ever for its killed outer bwrap, under the leased uid. That is left
to ``sweep_orphaned_uids``, which kills the processes of every uid whose holder died (a
``preexec_fn`` setting the signal before the exec would narrow the window but is unsafe in the
referee's threaded process).

Finding and killing an engine's processes through its uid, and the uid leases, live in
``engines/sandbox_procs.py``. The service must run as root to lease uids (as it does in CI and in
the docker workers).
Standard library only; no Django.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Self, TypedDict

from arena.engine_text import decode_engine_output
from engines.package import EnginePackage
from engines.sandbox_cgroup import CgroupError, EngineCgroup
from engines.sandbox_files import give_to_uid, library_dir
from engines.sandbox_memory import tree_pids, usage_bytes
from engines.sandbox_procs import (
    UidLease,
    kill_uid,
    pids_of_uid,
    proc_status,
    scan,
    sigkill,
    sweep_orphans,
)

LOG = logging.getLogger(__name__)

MODES = ("auto", "bwrap", "fallback", "off")
#: First host uid leased to engines, and how many there are (one per engine process tree alive
#: at once on this host). Override with BAO_SANDBOX_UID_BASE; far above login users and the
#: usual subordinate-uid ranges.
UID_BASE = int(os.environ.get("BAO_SANDBOX_UID_BASE", "2100000"))
UID_COUNT = 4096
#: Where the uid leases (lock files), scratch directories, the engines' private package copies
#: and the library copies live. Host-wide on purpose: uids must never be leased twice, whichever
#: checkout asks; nothing in it points into a checkout.
STATE_DIR = Path(
    os.environ.get("BAO_SANDBOX_DIR", os.path.join(tempfile.gettempdir(), "bao-sandbox"))
)

REPO_ROOT = Path(__file__).resolve().parent.parent
#: (host path relative to the repository, path under the in-sandbox library dir) made importable.
LIBRARY_FILES = (
    ("arena/__init__.py", "arena/__init__.py"),
    ("arena/rules", "arena/rules"),
    ("engines/__init__.py", "engines/__init__.py"),
    ("engines/sdk.py", "engines/sdk.py"),
)
BWRAP = shutil.which("bwrap") or "/usr/bin/bwrap"
_TOOLS = {
    name: shutil.which(name) or f"/usr/bin/{name}" for name in ("unshare", "setpriv", "prlimit")
}
#: Run as root inside the fallback's mount namespace: the size-capped tmpfs mounts.
MOUNTS_HELPER = Path(__file__).resolve().parent / "sandbox_mounts.py"
#: The interpreter engines find on their PATH (the library copy is compiled for it).
ENGINE_PYTHON = "/usr/bin/python3"

_ENGINE_ROOT_IN = "/engine"
_SCRATCH_IN = "/scratch"
_LIB_IN = "/bao/lib"
_STDERR_CHUNK = 1 << 16
#: How long ``stderr_tail`` waits, once the process exited, for the drainer to reach EOF (s).
_STDERR_SETTLE_S = 0.5
#: How long kill() waits for the init of an exited bwrap's pid namespace before it scans.
_INIT_WAIT_S = 1.0


class _RunAs(TypedDict, total=False):
    """The ``subprocess`` keyword arguments that drop a child to a leased uid (none: run as the
    service)."""

    user: int
    group: int
    extra_groups: list[int]


class SandboxError(RuntimeError):
    """The engine cannot be started safely: an infrastructure fault (the referee records
    ``aborted``), never the engine's fault."""


@dataclass(frozen=True)
class SandboxLimits:
    """Per-engine limits. Bytes, seconds and counts; every value must be positive.

    ``max_processes`` counts the engine's own processes (threads included), ``max_file_bytes``
    is the largest file it may write (``EFBIG`` / ``SIGXFSZ`` beyond), ``stderr_keep_bytes`` the
    tail of stderr kept for the record, ``max_stderr_bytes`` the stderr volume past which
    ``EngineProcess.stderr_overflow`` is set (the referee then ends the game ``output_limit``).
    ``tmp_bytes`` caps ``/tmp`` and, separately, ``/dev/shm``; ``scratch_bytes`` caps the
    scratch directory (``HOME``); past a cap writes fail with ``ENOSPC``. These are tmpfs, so
    they are memory: on top of ``memory_bytes`` (address space per process) an engine may hold
    up to ``2 * tmp_bytes + scratch_bytes`` in files. Mode ``off`` caps nothing.
    """

    cpu_seconds: int = 300
    memory_bytes: int = 1 << 30
    max_processes: int = 64
    max_file_bytes: int = 8 << 20
    max_open_files: int = 64
    stderr_keep_bytes: int = 16384
    max_stderr_bytes: int = 1 << 20
    tmp_bytes: int = 64 << 20
    scratch_bytes: int = 64 << 20

    def __post_init__(self) -> None:
        for name, value in self.__dict__.items():
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"SandboxLimits.{name} must be a positive int, not {value!r}")


@dataclass(frozen=True)
class SandboxConfig:
    """How engines are started. ``mode`` is one of ``MODES``; ``require_full`` refuses anything
    weaker than ``bwrap`` (``SandboxError``). Raises ``ValueError`` for an unknown mode."""

    mode: str = "auto"
    require_full: bool = False
    limits: SandboxLimits = field(default_factory=SandboxLimits)
    #: A delegated cgroup v2 directory ("" = none): each engine then also runs in a child
    #: cgroup of it with ``memory.max = cgroup_memory_bytes`` (``engines.sandbox_cgroup``).
    cgroup_parent: str = ""
    cgroup_memory_bytes: int = 1 << 30

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"sandbox mode must be one of {', '.join(MODES)}, not {self.mode!r}")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> SandboxConfig:
        """Read ``BAO_SANDBOX_MODE`` (default ``auto``) and ``BAO_SANDBOX_REQUIRE_FULL``
        (``1``/``0``, ``true``/``false``...). Raises ``ValueError`` on junk values."""
        env = os.environ if environ is None else environ
        mode = env.get("BAO_SANDBOX_MODE", "auto").strip().lower() or "auto"
        flag = env.get("BAO_SANDBOX_REQUIRE_FULL", "0").strip().lower()
        if flag not in ("", "0", "1", "false", "true", "no", "yes", "off", "on"):
            raise ValueError(f"BAO_SANDBOX_REQUIRE_FULL must be 0 or 1, not {flag!r}")
        return cls(mode=mode, require_full=flag in ("1", "true", "yes", "on"))


# --------------------------------------------------------------------------- probing


@dataclass(frozen=True)
class Probe:
    """What works on this host (``probe()``). Reasons are "" when the thing works.

    ``mounts_reason``: why the fallback's size-capped tmpfs mounts (``sandbox_mounts.py``) fail
    inside ``unshare``'s namespaces."""

    root: bool
    bwrap_reason: str
    unshare_reason: str
    mounts_reason: str = ""

    @property
    def bwrap_ok(self) -> bool:
        return self.root and not self.bwrap_reason

    @property
    def unshare_ok(self) -> bool:
        return self.root and not self.unshare_reason

    @property
    def mounts_ok(self) -> bool:
        return self.unshare_ok and not self.mounts_reason


_probe_lock = threading.Lock()
_probe_cache: Probe | None = None


def probe(refresh: bool = False) -> Probe:
    """Find out (once per process, about 40 ms) which sandbox modes work on this host."""
    global _probe_cache
    with _probe_lock:
        if _probe_cache is None or refresh:
            root = os.geteuid() == 0
            limits = SandboxLimits()
            bwrap = (
                _try(
                    [BWRAP, *_BWRAP_BASE, *_bwrap_writable(limits), "--", "/usr/bin/true"],
                    as_uid=UID_BASE - 1,
                )
                if root
                else "not root"
            )
            if root and not os.path.exists(BWRAP):
                bwrap = "bwrap is not installed (scripts/install-sandbox.sh installs it)"
            unshare = (
                _try([_TOOLS["unshare"], *_UNSHARE_ARGS, "--", "/usr/bin/true"])
                if root
                else "not root"
            )
            mounts = (
                _try([_TOOLS["unshare"], *_UNSHARE_ARGS, "--", *_mounts_argv(limits), "--probe"])
                if root and not unshare
                else "needs unshare"
            )
            _probe_cache = Probe(
                root=root, bwrap_reason=bwrap, unshare_reason=unshare, mounts_reason=mounts
            )
        return _probe_cache


def _try(argv: list[str], as_uid: int | None = None) -> str:
    """ "" if ``argv`` exits 0 within 5 s, else why not (its stderr, shortened)."""
    ids: _RunAs = {} if as_uid is None else {"user": as_uid, "group": as_uid, "extra_groups": []}
    try:
        done = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=5,
            cwd="/",
            env=_base_env(),
            check=False,
            **ids,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{Path(argv[0]).name}: {exc}"
    if done.returncode != 0:
        err = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"{Path(argv[0]).name} exited {done.returncode}: {err[-1] if err else 'no message'}"
    return ""


# --------------------------------------------------------------------------- command lines

_BWRAP_BASE = [
    "--unshare-all",
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "ALL",
    "--ro-bind",
    "/usr",
    "/usr",
    "--proc",
    "/proc",
    "--dev",
    "/dev",
]
for _top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
    if os.path.islink(_top):
        _BWRAP_BASE += ["--symlink", os.readlink(_top), _top]
    elif os.path.isdir(_top):
        _BWRAP_BASE += ["--ro-bind", _top, _top]
# ld.so.cache only speeds up library lookup; nothing else of /etc is shown.
_BWRAP_BASE += ["--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache"]
_UNSHARE_ARGS = [
    "--fork",
    "--pid",
    "--kill-child",
    "--mount-proc",
    "--net",
    "--ipc",
    "--uts",
]


def _base_env() -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}


def _prlimit_argv(limits: SandboxLimits) -> list[str]:
    return [
        _TOOLS["prlimit"],
        f"--cpu={limits.cpu_seconds}",
        f"--as={limits.memory_bytes}",
        f"--nproc={limits.max_processes}",
        f"--fsize={limits.max_file_bytes}",
        f"--nofile={limits.max_open_files}",
        "--core=0",
        "--",
    ]


def _bwrap_writable(limits: SandboxLimits) -> list[str]:
    """The engine's only writable places: tmpfs mounts with a size cap (``ENOSPC`` past it)."""
    return [
        "--size",
        str(limits.tmp_bytes),
        "--tmpfs",
        "/tmp",
        "--size",
        str(limits.tmp_bytes),
        "--tmpfs",
        "/dev/shm",
        "--size",
        str(limits.scratch_bytes),
        "--tmpfs",
        _SCRATCH_IN,
    ]


#: Last, once every mount point is made: the root tmpfs and /dev would otherwise be writable,
#: without a cap (bwrap's tmpfs has no size limit).
_BWRAP_READ_ONLY = ["--remount-ro", "/dev", "--remount-ro", "/"]


def _bwrap_argv(
    package: EnginePackage, root: Path, lib: Path, uid: int, limits: SandboxLimits
) -> list[str]:
    """bwrap's options (``root``: the engine's private copy); the command follows ``--``."""
    return [
        *_BWRAP_BASE,
        "--uid",
        str(uid),
        "--gid",
        str(uid),
        "--hostname",
        "engine",
        *_bwrap_writable(limits),
        "--ro-bind",
        str(lib),
        _LIB_IN,
        "--ro-bind",
        str(root),
        _ENGINE_ROOT_IN,
        *_BWRAP_READ_ONLY,
        "--chdir",
        _ENGINE_ROOT_IN,
    ]


def _args_file(args: list[str]) -> int:
    """A memory file holding ``args`` NUL-terminated, positioned at its start, for
    ``bwrap --args FD`` (any length: a pipe could fill up before bwrap reads it). bwrap takes
    options from it, not the command."""
    fd = os.memfd_create("bwrap-args")
    try:
        os.write(fd, b"".join(os.fsencode(arg) + b"\0" for arg in args))
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _mounts_argv(
    limits: SandboxLimits,
    scratch: Path | None = None,
    uid: int | None = None,
    keep: tuple[Path, ...] = (),
    chdir: Path | None = None,
) -> list[str]:
    """``sandbox_mounts.py`` with its options, up to (not including) ``--`` and the command."""
    argv = [sys.executable, "-I", "-S", str(MOUNTS_HELPER), "--tmp-bytes", str(limits.tmp_bytes)]
    if scratch is not None and uid is not None:
        argv += ["--scratch", str(scratch), "--scratch-bytes", str(limits.scratch_bytes)]
        argv += ["--owner", str(uid)]
    for path in keep:
        argv += ["--keep", str(path)]
    if chdir is not None:
        argv += ["--chdir", str(chdir)]
    return argv


def _fallback_argv(
    package: EnginePackage,
    root: Path,
    lib: Path,
    uid: int,
    scratch: Path,
    limits: SandboxLimits,
    with_unshare: bool,
    with_mounts: bool,
) -> list[str]:
    # The kernel clears the parent-death signal when the uid changes (and unshare's
    # --kill-child is one), so this setpriv sets it again after dropping to the engine uid.
    drop = [
        _TOOLS["setpriv"],
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--no-new-privs",
        "--pdeathsig=KILL",
        "--",
    ]
    tail = [*drop, *_prlimit_argv(limits), *package.argv]
    # The first setpriv gives the root-owned wrapper a parent-death signal (kept across exec);
    # with unshare, its --kill-child then takes the pid namespace down with it.
    head = [_TOOLS["setpriv"], "--pdeathsig=KILL", "--"]
    if not with_unshare:
        return [*head, *tail]
    if with_mounts:
        # What the engine must still reach once /tmp is covered (they live under STATE_DIR).
        mounts = _mounts_argv(limits, scratch, uid, (root, lib), root)
        tail = [*mounts, "--", *tail]
    return [*head, _TOOLS["unshare"], *_UNSHARE_ARGS, "--", *tail]


def _library_dir() -> Path:
    """The host directory engines import ``arena.rules`` and ``engines.sdk`` from (a copy keyed
    by its content: ``sandbox_files.library_dir``)."""
    return library_dir(REPO_ROOT, LIBRARY_FILES, STATE_DIR, ENGINE_PYTHON)


# --------------------------------------------------------------------------- the process


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
        (``engines.sandbox_memory``). About 20-50 us per process; 0 once it is gone."""
        pids = tree_pids(self.pid)
        if not self.pid_namespace and self.mode != "off":
            # No pid namespace: a double fork leaves the tree (the uid is the engine's alone).
            pids |= pids_of_uid(self.uid)
        inside = next((pid for pid in pids if pid != self.pid), None)
        return usage_bytes(pids, inside if self._memory_mounts else None, self._memory_mounts)

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


# --------------------------------------------------------------------------- starting


def start_engine(package: EnginePackage, config: SandboxConfig = SandboxConfig()) -> EngineProcess:
    """Start ``package`` in the sandbox ``config`` asks for; returns the running process.

    In every mode but ``off`` the engine runs from a private copy of ``package.root`` that only
    its leased uid can read (``sandbox_files.give_to_uid``), removed by ``kill()``.

    Raises ``SandboxError`` when it cannot be started safely: ``require_full`` and bwrap does not
    work here, a mode that needs root, no free uid, an engine root that cannot be copied, or the
    process cannot be spawned. A program that starts and then fails (say a missing
    interpreter) is not an error here: it shows up as an early exit with its stderr.
    """
    mode = _choose_mode(config)
    root = Path(package.root)
    if not root.is_dir():
        raise SandboxError(f"engine root {root} is not a directory")
    _prepare_state_dir()
    lease = _lease() if mode != "off" else None
    scratch: Path | None = None
    info_r: int | None = None  # bwrap's --info-fd: it names the pid namespace's init
    info_w: int | None = None
    copy: Path | None = None
    lib = REPO_ROOT  # mode off imports from the checkout itself
    args_fd = -1
    try:
        ids: _RunAs = {}
        env = _base_env()
        pass_fds: tuple[int, ...] = ()
        executable: str | None = None
        mounts: tuple[tuple[str, int], ...] = ()
        tmp, scratch_cap = config.limits.tmp_bytes, config.limits.scratch_bytes
        if lease is not None:
            copy = give_to_uid(
                root, STATE_DIR / f"engine-{lease.uid}-{secrets.token_hex(8)}", lease.uid
            )
            lib = _library_dir()
        if mode == "bwrap":
            assert lease is not None and copy is not None
            env.update(HOME=_SCRATCH_IN, PYTHONPATH=_LIB_IN)
            info_r, info_w = os.pipe2(os.O_CLOEXEC | os.O_NONBLOCK)
            # --info-fd: bwrap names the pid namespace's init there (see kill()).
            options = ["--info-fd", str(info_w)]
            args_fd = _args_file(
                [*options, *_bwrap_argv(package, copy, lib, lease.uid, config.limits)]
            )
            # Only the options hold host paths and uids: bwrap reads them from the memory file,
            # so its command line (pid 1's, inside) is the engine's command alone.
            argv = [
                "bwrap",
                "--args",
                str(args_fd),
                "--",
                *_prlimit_argv(config.limits),
                *package.argv,
            ]
            executable = BWRAP
            pass_fds = (args_fd, info_w)
            ids = {"user": lease.uid, "group": lease.uid, "extra_groups": []}
            mounts = ((_SCRATCH_IN, scratch_cap), ("/tmp", tmp), ("/dev/shm", tmp))
        else:
            scratch = Path(tempfile.mkdtemp(prefix="scratch-", dir=STATE_DIR))
            if lease is None:
                env.update(HOME=str(scratch), PYTHONPATH=str(lib))
                argv = list(package.argv)
            else:
                assert copy is not None
                os.chown(scratch, lease.uid, lease.uid)
                env.update(HOME=str(scratch), PYTHONPATH=str(lib))
                found = probe()
                argv = _fallback_argv(
                    package,
                    copy,
                    lib,
                    lease.uid,
                    scratch,
                    config.limits,
                    found.unshare_ok,
                    found.mounts_ok,
                )
                if found.mounts_ok:
                    mounts = (("/tmp", tmp), ("/dev/shm", tmp), (str(scratch), scratch_cap))
        started = time.monotonic_ns()
        popen = subprocess.Popen(
            argv,
            executable=executable,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
            cwd=str(copy or root),
            env=env,
            start_new_session=True,
            close_fds=True,
            pass_fds=pass_fds,
            **ids,
        )
    except (OSError, subprocess.SubprocessError, ValueError) as exc:
        _undo_start(scratch, copy, lease, info_r)
        raise SandboxError(f"cannot start engine {package.name!r} ({mode}): {exc}") from exc
    except BaseException:
        _undo_start(scratch, copy, lease, info_r)
        raise
    finally:
        if args_fd >= 0:
            os.close(args_fd)
        if info_w is not None:
            os.close(info_w)  # bwrap has its copy
    namespaced = mode == "bwrap" or (mode == "fallback" and probe().unshare_ok)
    process = EngineProcess(
        popen,
        mode,
        config.limits,
        lease,
        scratch,
        started,
        copy or root,
        copy is not None,
        pid_namespace=namespaced,
        info_fd=info_r,
        memory_mounts=mounts,
    )
    if config.cgroup_parent and mode != "off":
        try:
            process.cgroup = EngineCgroup.create(
                Path(config.cgroup_parent), f"engine-{process.uid}", config.cgroup_memory_bytes
            )
            process.cgroup.adopt(process.pid)
        except CgroupError as exc:
            process.kill()
            raise SandboxError(f"cannot start engine {package.name!r} ({mode}): {exc}") from exc
    return process


def _undo_start(
    scratch: Path | None, copy: Path | None, lease: UidLease | None, info_fd: int | None
) -> None:
    if info_fd is not None:
        os.close(info_fd)
    for path in (scratch, copy):
        if path is not None:
            shutil.rmtree(path, ignore_errors=True)
    if lease is not None:
        lease.release()


def sweep_orphaned_uids() -> list[int]:
    """Kill the processes left under engine uids whose holder died, host-wide (every checkout
    leases from ``STATE_DIR``), and mark those uids clean (``sandbox_procs.sweep_orphans``).
    Returns the uids whose processes were killed. Run by a worker when it starts and by the
    periodic requeue job: an orphan is otherwise killed only when its uid is leased again.
    Sweeps nothing without root (the lock files are root's)."""
    return sweep_orphans(STATE_DIR / "uids")


def _lease() -> UidLease:
    try:
        lease = UidLease(STATE_DIR / "uids", UID_BASE, UID_COUNT)
    except LookupError as exc:
        raise SandboxError(str(exc)) from None
    # Scratch dirs and package copies of this uid belong to an engine that was never kill()ed
    # (its referee died or forgot): we hold the uid now, so no process of it can be using them.
    # Other referees create and remove their own meanwhile: an entry may vanish between the
    # listing and the stat.
    for entry in os.scandir(STATE_DIR):
        if entry.name.startswith(f"engine-{lease.uid}-"):
            shutil.rmtree(entry.path, ignore_errors=True)
            continue
        if not entry.name.startswith("scratch-"):
            continue
        try:
            owner = entry.stat(follow_symlinks=False).st_uid
        except FileNotFoundError:
            continue
        if owner == lease.uid:
            shutil.rmtree(entry.path, ignore_errors=True)
    return lease


def _prepare_state_dir() -> None:
    """Create STATE_DIR, refusing one that someone else made (a shared /tmp)."""
    STATE_DIR.mkdir(mode=0o711, parents=True, exist_ok=True)
    st = os.lstat(STATE_DIR)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
        raise SandboxError(
            f"{STATE_DIR} is not a directory of ours: remove it or set BAO_SANDBOX_DIR"
        )
    os.chmod(STATE_DIR, 0o711)  # the engine uid must reach its scratch dir, and list nothing


def _choose_mode(config: SandboxConfig) -> str:
    if config.mode == "off":
        if config.require_full:
            raise SandboxError("sandbox mode 'off' contradicts require_full")
        return "off"
    found = probe()
    if not found.root:
        raise SandboxError("the engine sandbox needs root (to give engines their own uid)")
    if config.mode in ("auto", "bwrap") and found.bwrap_ok:
        return "bwrap"
    if config.require_full or config.mode == "bwrap":
        raise SandboxError(f"the full sandbox (bwrap) does not work here: {found.bwrap_reason}")
    if config.mode == "auto":
        _warn_once(
            "engines run in the FALLBACK sandbox because bwrap does not work here: "
            f"{found.bwrap_reason}"
        )
    if not found.unshare_ok:
        _warn_once(
            "fallback sandbox without namespaces (unshare failed: "
            f"{found.unshare_reason}): engines have network access, no pid namespace and "
            "no size cap on their scratch directory and the host's /tmp"
        )
    elif not found.mounts_ok:
        _warn_once(
            "fallback sandbox without size-capped tmpfs mounts (sandbox_mounts.py failed: "
            f"{found.mounts_reason}): engines can fill their scratch directory and the host's "
            "/tmp, /var/tmp and /dev/shm"
        )
    return "fallback"


_warned: set[str] = set()


def _warn_once(message: str) -> None:
    # Once per process and reason: loud, but not once per game.
    if message not in _warned:
        _warned.add(message)
        LOG.warning(message)
