"""The sandbox: the one package that starts engine processes (untrusted code).

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
    namespace's own ``/proc``. Of ``/etc`` only ``ld.so.cache`` and the directories that links
    under ``/usr`` lead through (``commands.etc_link_dirs``: ``/etc/alternatives``, the JDK's
    ``/etc/java-17-openjdk``...) are shown, read-only, so ``java`` on ``PATH`` works. The only
    writable places are three tmpfs mounts with a size cap:
    ``/scratch`` (``HOME``, ``SandboxLimits.scratch_bytes``), ``/tmp`` and ``/dev/shm``
    (``tmp_bytes`` each). There is no scratch directory on the host. bwrap reads its options
    from a memory file (``--args``) and runs no reaper (``--as-pid-1``): the engine's command is
    the namespace's pid 1, so ``/proc/1`` is the engine's own. ``--disable-userns`` (where this
    bwrap has it) and a seccomp filter (``engines.sandbox.seccomp``: ptrace, namespaces,
    mounts, keyrings, BPF, sockets but ``AF_UNIX``... refused with ``EPERM``) keep the engine
    from the kernel's larger surfaces; without libseccomp the filter is left out with a WARNING,
    or ``require_full`` refuses.
``fallback``
    where namespaces are refused to unprivileged users: ``setpriv --pdeathsig KILL`` then
    ``unshare --fork --pid --kill-child --mount-proc --net --ipc --uts`` (as root; no network,
    own pid and mount namespace) then ``engines/sandbox/mounts.py`` (still root, in that mount
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
so one engine's fork bomb never eats another engine's budget. ``RLIMIT_CPU`` is per process:
the referee's watchdog caps the sum (``EngineProcess.cpu_seconds``, ``cpu_limit``).

Files (every mode but ``off``): the engine runs from a copy of its package readable only by its
leased uid (``engines.sandbox.files.give_to_uid``), removed when it is killed, so no engine ever
reads another's files; the library it may import is a world-readable copy keyed by its content
(``files.library_dir``), never a link into a checkout.

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

The service must run as root to lease uids (as it does in CI and in the docker workers).

This module is the interface (what callers import); by concept, the package holds:

- ``config``: ``SandboxConfig``, ``SandboxLimits``, ``SandboxError``;
- ``modes``: what works on this host (``probe``) and the mode a config gets;
- ``commands``: the command lines of each mode (bwrap's options, the fallback's chain, prlimit);
- ``state``: the host-wide state directory, the uid range and leases, the library copy;
- ``launch``: ``start_engine``; ``process``: ``EngineProcess``, the running engine and its end;
- ``procs``: an engine's processes found and killed through its uid, the uid lease itself;
- ``files``: the private package copy and the content-keyed library directory;
- ``memory``: what an engine holds, from ``/proc``; ``cpu``: the CPU time it used, from
  ``/proc``; ``cgroup``: the kernel's memory cap; ``seccomp``: bwrap's system call filter;
- ``mounts``: the fallback's size-capped tmpfs mounts, a script run by path as root in the
  engine's mount namespace (standard library only, imports nothing of the package);
- ``runtimes``: the runtimes an engine gets here (Python, node, Java, the C and C++ libraries),
  probed in the sandbox, and the program a package's command needs;
- ``check``: ``python -m engines.sandbox.check``, which mode works here and why.

The constants here are copies of their module's: code (and a test) that changes one changes it
where it is read (``state.UID_BASE``, ``commands.BWRAP``).
Standard library only; no Django.
"""

from __future__ import annotations

from engines.sandbox.commands import BWRAP, MOUNTS_HELPER
from engines.sandbox.config import MODES, SandboxConfig, SandboxError, SandboxLimits
from engines.sandbox.launch import start_engine
from engines.sandbox.modes import Probe, probe
from engines.sandbox.process import EngineProcess
from engines.sandbox.state import (
    ENGINE_PYTHON,
    LIBRARY_FILES,
    REPO_ROOT,
    STATE_DIR,
    UID_BASE,
    UID_COUNT,
    sweep_orphaned_uids,
)

__all__ = [
    "BWRAP",
    "ENGINE_PYTHON",
    "LIBRARY_FILES",
    "MODES",
    "MOUNTS_HELPER",
    "REPO_ROOT",
    "STATE_DIR",
    "UID_BASE",
    "UID_COUNT",
    "EngineProcess",
    "Probe",
    "SandboxConfig",
    "SandboxError",
    "SandboxLimits",
    "probe",
    "start_engine",
    "sweep_orphaned_uids",
]
