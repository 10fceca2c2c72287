"""The command lines that start an engine: bubblewrap's options, the fallback's ``setpriv`` /
``unshare`` / ``mounts.py`` chain, and the ``prlimit`` limits right before the engine's own
command (argv lists, never a shell).

Part of the sandbox (``engines.sandbox`` is the interface; the modes are described there).
Pure: these functions only build lists; ``args_file`` alone makes a memory file.
Standard library only; no Django.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import TypedDict

from engines.package import EnginePackage
from engines.sandbox.config import SandboxLimits

BWRAP = shutil.which("bwrap") or "/usr/bin/bwrap"
TOOLS = {
    name: shutil.which(name) or f"/usr/bin/{name}" for name in ("unshare", "setpriv", "prlimit")
}
#: Run as root inside the fallback's mount namespace: the size-capped tmpfs mounts.
MOUNTS_HELPER = Path(__file__).resolve().parent / "mounts.py"

#: Inside the bwrap sandbox: the engine's root (its working directory), its HOME, the library.
ENGINE_ROOT_IN = "/engine"
SCRATCH_IN = "/scratch"
LIB_IN = "/bao/lib"


class RunAs(TypedDict, total=False):
    """The ``subprocess`` keyword arguments that drop a child to a leased uid (none: run as the
    service)."""

    user: int
    group: int
    extra_groups: list[int]


BWRAP_BASE = [
    "--unshare-all",
    # Named on its own as well: --disable-userns (BWRAP_NO_USERNS) needs it, and
    # --unshare-all only tries it.
    "--unshare-user",
    # No reaper: the engine's command is the namespace's pid 1, so /proc/1 is the engine's own
    # (bwrap's init, same uid, would show its memory, holding the host paths of its options).
    "--as-pid-1",
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
        BWRAP_BASE += ["--symlink", os.readlink(_top), _top]
    elif os.path.isdir(_top):
        BWRAP_BASE += ["--ro-bind", _top, _top]
#: Where programs under /usr link into /etc: Debian's alternatives (``/usr/bin/java`` ->
#: ``/etc/alternatives/java`` -> ``/usr/lib/jvm/.../bin/java``) and the JDK's own configuration
#: (``lib/jvm.cfg`` -> ``/etc/java-17-openjdk/jvm-amd64.cfg``). Only these trees are searched.
ETC_LINK_SOURCES = ("/usr/bin", "/usr/sbin", "/usr/lib/jvm")


def etc_link_dirs(sources: tuple[str, ...] = ETC_LINK_SOURCES, etc: str = "/etc") -> list[str]:
    """The directories under ``etc`` that symbolic links in ``sources`` lead through, each
    chain followed link by link (at most 40 hops), smallest set first: a directory inside
    another listed one is left out, and ``etc`` itself never is one. Sorted; [] when nothing
    links into ``etc``.

    The sandbox mounts each read-only at its own path, so ``java`` on ``PATH`` resolves as on
    the host and nothing else of ``/etc`` is shown. A link whose chain ends outside ``/usr``
    still dangles inside (only ``/usr`` is mounted)."""
    prefix = etc.rstrip("/") + "/"
    found: set[str] = set()
    for source in sources:
        for dirpath, dirnames, filenames in os.walk(source):
            for name in (*dirnames, *filenames):
                path = os.path.join(dirpath, name)
                for _hop in range(40):
                    if not os.path.islink(path):
                        break
                    path = os.path.join(os.path.dirname(path), os.readlink(path))
                    path = os.path.normpath(path)
                    # /etc itself is never shown whole: a link to a file directly in it dangles.
                    if path.startswith(prefix) and os.path.dirname(path) != prefix[:-1]:
                        found.add(os.path.dirname(path))
    kept: list[str] = []
    for path in sorted(found):
        if not any(path == k or path.startswith(k + "/") for k in kept):
            kept.append(path)
    return kept


# ld.so.cache only speeds up library lookup; the /etc links of etc_link_dirs() make programs
# on PATH work; nothing else of /etc is shown.
BWRAP_BASE += ["--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache"]
for _etc_dir in etc_link_dirs():
    BWRAP_BASE += ["--ro-bind-try", _etc_dir, _etc_dir]
#: No user namespace inside the sandbox (bubblewrap 0.8+): ``unshare -U`` gets ``ENOSPC``.
#: The seccomp filter (``engines.sandbox.seccomp``) refuses the same, on any bubblewrap.
BWRAP_NO_USERNS = ["--disable-userns"]
UNSHARE_ARGS = [
    "--fork",
    "--pid",
    "--kill-child",
    "--mount-proc",
    "--net",
    "--ipc",
    "--uts",
]


def base_env() -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}


def prlimit_argv(limits: SandboxLimits) -> list[str]:
    return [
        TOOLS["prlimit"],
        f"--cpu={limits.cpu_seconds}",
        f"--as={limits.memory_bytes}",
        f"--nproc={limits.max_processes}",
        f"--fsize={limits.max_file_bytes}",
        f"--nofile={limits.max_open_files}",
        "--core=0",
        "--",
    ]


def bwrap_writable(limits: SandboxLimits) -> list[str]:
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
        SCRATCH_IN,
    ]


#: Last, once every mount point is made: the root tmpfs and /dev would otherwise be writable,
#: without a cap (bwrap's tmpfs has no size limit).
BWRAP_READ_ONLY = ["--remount-ro", "/dev", "--remount-ro", "/"]


def bwrap_argv(
    package: EnginePackage,
    root: Path,
    lib: Path,
    uid: int,
    limits: SandboxLimits,
    *,
    disable_userns: bool = True,
    seccomp_fd: int | None = None,
) -> list[str]:
    """bwrap's options (``root``: the engine's private copy); the command follows ``--``.
    ``disable_userns``: add ``BWRAP_NO_USERNS`` (this bwrap has it); ``seccomp_fd``: a file
    holding the compiled filter (``seccomp.program_fd``), loaded before the command runs."""
    harden = list(BWRAP_NO_USERNS) if disable_userns else []
    if seccomp_fd is not None:
        harden += ["--seccomp", str(seccomp_fd)]
    return [
        *BWRAP_BASE,
        *harden,
        "--uid",
        str(uid),
        "--gid",
        str(uid),
        "--hostname",
        "engine",
        *bwrap_writable(limits),
        "--ro-bind",
        str(lib),
        LIB_IN,
        "--ro-bind",
        str(root),
        ENGINE_ROOT_IN,
        *BWRAP_READ_ONLY,
        "--chdir",
        ENGINE_ROOT_IN,
    ]


def args_file(args: list[str]) -> int:
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


def mounts_argv(
    limits: SandboxLimits,
    scratch: Path | None = None,
    uid: int | None = None,
    keep: tuple[Path, ...] = (),
    chdir: Path | None = None,
    seccomp_fd: int | None = None,
) -> list[str]:
    """``mounts.py`` with its options, up to (not including) ``--`` and the command.
    ``seccomp_fd``: a file holding the compiled filter, which it loads before the exec."""
    argv = [sys.executable, "-I", "-S", str(MOUNTS_HELPER), "--tmp-bytes", str(limits.tmp_bytes)]
    if scratch is not None and uid is not None:
        argv += ["--scratch", str(scratch), "--scratch-bytes", str(limits.scratch_bytes)]
        argv += ["--owner", str(uid)]
    for path in keep:
        argv += ["--keep", str(path)]
    if chdir is not None:
        argv += ["--chdir", str(chdir)]
    if seccomp_fd is not None:
        argv += ["--seccomp-fd", str(seccomp_fd)]
    return argv


def fallback_argv(
    package: EnginePackage,
    root: Path,
    lib: Path,
    uid: int,
    scratch: Path,
    limits: SandboxLimits,
    with_unshare: bool,
    with_mounts: bool,
    seccomp_fd: int | None = None,
) -> list[str]:
    """The fallback's chain (see the package docstring). ``seccomp_fd``: the compiled filter,
    loaded by ``mounts.py`` (so only ``with_mounts``) before it execs the drop to the uid."""
    # The kernel clears the parent-death signal when the uid changes (and unshare's
    # --kill-child is one), so this setpriv sets it again after dropping to the engine uid.
    drop = [
        TOOLS["setpriv"],
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--no-new-privs",
        "--pdeathsig=KILL",
        "--",
    ]
    tail = [*drop, *prlimit_argv(limits), *package.argv]
    # The first setpriv gives the root-owned wrapper a parent-death signal (kept across exec);
    # with unshare, its --kill-child then takes the pid namespace down with it.
    head = [TOOLS["setpriv"], "--pdeathsig=KILL", "--"]
    if not with_unshare:
        return [*head, *tail]
    if with_mounts:
        # What the engine must still reach once /tmp is covered (they live under STATE_DIR).
        mounts = mounts_argv(limits, scratch, uid, (root, lib), root, seccomp_fd)
        tail = [*mounts, "--", *tail]
    return [*head, TOOLS["unshare"], *UNSHARE_ARGS, "--", *tail]
