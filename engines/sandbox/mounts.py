"""Size-capped writable places for an engine in the fallback sandbox (run as a program).

In the ``fallback`` sandbox (``engines.sandbox``) the engine sees the host filesystem, where
``/tmp``, ``/var/tmp``, ``/run/lock`` and ``/dev/shm`` are writable by anyone and have no size
limit of their own (``RLIMIT_FSIZE`` caps one file, not how many). ``unshare --mount-proc``
gives the engine a private mount namespace; this program runs there as root, between ``unshare``
and the ``setpriv`` that drops to the engine uid, and before exec'ing that command:

1. makes every mount private (nothing done here reaches the host);
2. covers ``/run`` (and ``/var/run`` where it is a real directory) with an empty, read-only
   tmpfs: the host's unix sockets there (PostgreSQL's ``/run/postgresql``, D-Bus, docker) are
   gone, so an engine cannot connect to a database or a daemon that trusts local users;
3. covers ``/tmp`` with a tmpfs of ``--tmp-bytes`` (mode 1777) and binds that same tmpfs over
   ``/var/tmp``, ``/run/lock`` and ``/var/lock`` where they are real directories, so they share
   one cap; covers ``/dev/shm`` with its own tmpfs of ``--tmp-bytes`` (POSIX shared memory and
   Python's ``multiprocessing`` locks keep working);
4. binds each ``--keep`` directory (the engine root, the library dir, the repository) back at
   its own path, read-only: paths under ``/tmp`` would otherwise vanish under the new tmpfs;
5. mounts a tmpfs of ``--scratch-bytes`` (mode 0700, owned by ``--owner``) at ``--scratch``
   (the engine's ``HOME``), so the host directory of that name stays empty;
6. with ``--seccomp-fd FD``, reads a compiled seccomp filter (classic BPF, as ``bwrap
   --seccomp`` takes it: ``engines.sandbox.seccomp``) from that file, closes it and loads the
   filter (as root: no ``no_new_privs`` needed), so it binds the engine as in bubblewrap;
7. changes to ``--chdir`` and execs the command after ``--``.

The tmpfs mounts live as long as the mount namespace, that is as long as any engine process:
``EngineProcess.kill()`` frees them all. Sizes are bytes (rounded up to pages by the kernel);
past a cap, writes fail with ``ENOSPC``.

Usage (the order of options is free; every option but ``--keep`` once)::

    python3 -I -S mounts.py --tmp-bytes N --scratch DIR --scratch-bytes N --owner UID
        [--keep DIR]... --chdir DIR [--seccomp-fd FD] -- COMMAND...

``--probe`` instead of a command does the mounts (no scratch needed) and exits 0, to find
out whether this host allows them. Any failure prints ``bao-sandbox-mounts: <why>`` on stderr
and exits 125 before the engine runs. Standard library only; never imported by the service.
"""

from __future__ import annotations

import ctypes
import os
import sys

MS_RDONLY = 0x1
MS_NOSUID = 0x2
MS_NODEV = 0x4
MS_REMOUNT = 0x20
MS_BIND = 0x1000
MS_REC = 0x4000
MS_PRIVATE = 0x40000

#: World-writable host directories that share the engine's /tmp tmpfs (and its cap).
SHARED_WITH_TMP = ("/var/tmp", "/run/lock", "/var/lock")
#: Host directories of sockets and daemon state, covered by an empty read-only tmpfs.
HIDDEN = ("/run", "/var/run")
EXIT_FAILED = 125

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = [
    ctypes.c_char_p,
    ctypes.c_char_p,
    ctypes.c_char_p,
    ctypes.c_ulong,
    ctypes.c_char_p,
]


class MountError(Exception):
    """A mount step failed; the message says which and why."""


def mount(
    source: str | None, target: str, fstype: str | None, flags: int, data: str | None
) -> None:
    """mount(2). Raises ``MountError`` naming the target and the errno."""

    def enc(text: str | None) -> bytes | None:
        return None if text is None else os.fsencode(text)

    if _libc.mount(enc(source), enc(target), enc(fstype), flags, enc(data)) != 0:
        err = ctypes.get_errno()
        raise MountError(f"mount {fstype or 'bind'} on {target}: {os.strerror(err)}")


def real_dir(path: str) -> bool:
    return os.path.isdir(path) and not os.path.islink(path)


def parse(argv: list[str]) -> tuple[dict[str, str], list[str], list[str]]:
    """(single options, --keep dirs, command). Raises ``MountError`` on a malformed line."""
    single: dict[str, str] = {}
    keep: list[str] = []
    i = 0
    while i < len(argv) and argv[i] != "--":
        name = argv[i]
        if name == "--probe":
            single["probe"] = "1"
            i += 1
            continue
        if i + 1 >= len(argv) or not name.startswith("--"):
            raise MountError(f"bad argument {name!r}")
        if name == "--keep":
            keep.append(argv[i + 1])
        else:
            single[name[2:]] = argv[i + 1]
        i += 2
    return single, keep, argv[i + 1 :]


def setup(single: dict[str, str], keep: list[str]) -> None:
    """Steps 1 to 5 of the module docstring. Raises ``MountError``, ``KeyError``, ``ValueError``."""
    tmp_bytes = int(single["tmp-bytes"])
    # Opened before /tmp is covered: the bind sources must be the host's directories.
    fds = sorted(
        (os.path.realpath(path), os.open(path, os.O_PATH | os.O_DIRECTORY)) for path in keep
    )
    mount(None, "/", None, MS_REC | MS_PRIVATE, None)
    flags = MS_NOSUID | MS_NODEV
    # Decided before /run is covered: which of its places are real directories on the host.
    shared = [path for path in SHARED_WITH_TMP if real_dir(path)]
    hidden = [path for path in HIDDEN if real_dir(path)]
    for path in hidden:
        mount("bao-engine-run", path, "tmpfs", flags, "size=64k,mode=0755")
    for path in shared:
        os.makedirs(path, mode=0o755, exist_ok=True)  # in a covered /run: an empty mount point
    for path in hidden:
        mount(None, path, None, MS_REMOUNT | MS_RDONLY | flags, "size=64k,mode=0755")
    mount("bao-engine-tmp", "/tmp", "tmpfs", flags, f"size={tmp_bytes},mode=1777")
    for path in shared:
        mount("/tmp", path, None, MS_BIND, None)
    if real_dir("/dev/shm"):
        mount("bao-engine-shm", "/dev/shm", "tmpfs", flags, f"size={tmp_bytes},mode=1777")
    # Parents before children, so a child's bind is not hidden under its parent's.
    for path, fd in sorted(fds, key=lambda item: item[0].count("/")):
        os.makedirs(path, mode=0o755, exist_ok=True)
        mount(f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC, None)
        mount(None, path, None, MS_REMOUNT | MS_BIND | MS_RDONLY | flags, None)
        os.close(fd)
    if "scratch" in single:
        scratch, owner = single["scratch"], int(single["owner"])
        os.makedirs(scratch, mode=0o700, exist_ok=True)
        data = f"size={int(single['scratch-bytes'])},mode=0700,uid={owner},gid={owner}"
        mount("bao-engine-scratch", scratch, "tmpfs", flags, data)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2


def load_seccomp(fd: int) -> None:
    """Load the classic BPF program held by ``fd`` (closed here). Raises ``MountError``."""
    with os.fdopen(fd, "rb") as handle:
        program = handle.read()
    if not program or len(program) % 8:
        raise MountError(f"seccomp filter of {len(program)} bytes is not a BPF program")
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    _libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p]
    if _libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog)) != 0:
        raise MountError(f"loading the seccomp filter: {os.strerror(ctypes.get_errno())}")


def main(argv: list[str]) -> int:
    try:
        single, keep, command = parse(argv)
        setup(single, keep)
        if "probe" in single:
            return 0
        if not command:
            raise MountError("no command after --")
        os.chdir(single["chdir"])
        if "seccomp-fd" in single:
            load_seccomp(int(single["seccomp-fd"]))
        os.execv(command[0], command)
    except (MountError, OSError, KeyError, ValueError) as exc:
        what = f"missing option --{exc.args[0]}" if isinstance(exc, KeyError) else str(exc)
        print(f"bao-sandbox-mounts: {what}", file=sys.stderr, flush=True)
    return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
