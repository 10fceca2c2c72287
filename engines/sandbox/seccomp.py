"""The seccomp filter of the sandbox: the system calls an engine never needs, refused.

Part of the sandbox (``engines.sandbox`` is the interface). bubblewrap loads it (``--seccomp FD``,
a compiled classic BPF program) right before it execs the engine's command, so it binds the
engine and everything it starts, not the sandbox plumbing; in the fallback, ``mounts.py``
loads the same program (``--seccomp-fd``) before it execs the drop to the engine's uid. Every
other call is allowed: the filter is a deny list of what no game-playing program uses, so
Python, node, a JVM, Rust and C programs run unchanged.

A refused call fails with ``EPERM`` (the process is never killed, so a runtime that probes a
feature degrades): ``clone3`` alone fails with ``ENOSYS``, its arguments being a structure the
filter cannot read, so the C library falls back to ``clone``, whose flags it can read. Refused
(``DENIED`` and the argument rules below):

- debugging and reading other processes: ``ptrace``, ``process_vm_readv`` / ``writev``,
  ``kcmp``, ``perf_event_open``, ``pidfd_getfd``;
- namespaces (a nested user namespace is a root shell over a large kernel surface):
  ``unshare``, ``setns``, and ``clone`` with any ``CLONE_NEW*`` flag;
- file systems and mounts: ``mount``, ``umount2``, ``pivot_root``, ``chroot``, the new mount
  API (``fsopen``, ``fsconfig``, ``fsmount``, ``fspick``, ``move_mount``, ``open_tree``,
  ``mount_setattr``), ``open_by_handle_at`` / ``name_to_handle_at``, ``quotactl``;
- kernel keyrings, BPF, fault handling and io_uring (large, often exploited surfaces):
  ``keyctl``, ``add_key``, ``request_key``, ``bpf``, ``userfaultfd``, ``io_uring_setup``,
  ``io_uring_enter``, ``io_uring_register``;
- the machine: ``init_module``, ``finit_module``, ``delete_module``, ``kexec_load``,
  ``kexec_file_load``, ``reboot``, ``swapon``, ``swapoff``, ``acct``, ``syslog``,
  ``settimeofday``, ``clock_settime``, ``adjtimex``, ``clock_adjtime``, ``iopl``, ``ioperm``,
  ``vhangup``, ``lookup_dcookie``, ``uselib``;
- sockets of any family but ``AF_UNIX`` (``socket``: no netlink, no packet, no inet: the
  sandbox has no network anyway, and netlink reaches kernel subsystems).

Only the native architecture's calls pass (x86-64 here): a call through another ABI (the 32-bit
``int 0x80`` entry, x32) is refused with ``ENOSYS`` rather than checked, so the list cannot be
side-stepped.

The program is built with libseccomp (Debian's ``libseccomp.so.2``) through ``pyseccomp``, a
``ctypes`` binding; without either, ``available()`` says why and the sandbox runs without the
filter (loudly), or refuses (``require_full``). Standard library and ``pyseccomp``; no Django.
"""

from __future__ import annotations

import errno
import os
import threading
from typing import Any

#: Refused outright (``EPERM``), whatever the arguments. Names unknown to this kernel's
#: libseccomp are skipped.
DENIED = (
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kcmp",
    "perf_event_open",
    "pidfd_getfd",
    "unshare",
    "setns",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "move_mount",
    "open_tree",
    "mount_setattr",
    "open_by_handle_at",
    "name_to_handle_at",
    "quotactl",
    "quotactl_fd",
    "keyctl",
    "add_key",
    "request_key",
    "bpf",
    "userfaultfd",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "syslog",
    "settimeofday",
    "clock_settime",
    "adjtimex",
    "clock_adjtime",
    "iopl",
    "ioperm",
    "vhangup",
    "lookup_dcookie",
    "uselib",
)

#: ``clone`` is refused with any of these in its flags (argument 0 on x86-64).
CLONE_NAMESPACE_FLAGS = {
    "CLONE_NEWTIME": 0x00000080,
    "CLONE_NEWNS": 0x00020000,
    "CLONE_NEWCGROUP": 0x02000000,
    "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000,
    "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
}
AF_UNIX = 1

_lock = threading.Lock()
_program: bytes | None = None
_why_not: str | None = None


def _binding() -> Any:
    # A ctypes binding with no type hints; raises ImportError or OSError without libseccomp.
    import pyseccomp  # type: ignore[import-untyped]

    return pyseccomp


def build() -> bytes:
    """The compiled filter (classic BPF, as ``bwrap --seccomp`` reads it), built once and
    cached. Raises ``ImportError`` or ``OSError`` when pyseccomp or libseccomp is missing."""
    global _program
    with _lock:
        if _program is None:
            _program = _compile()
        return _program


def available() -> str:
    """ "" when the filter can be built here, else why not (one line)."""
    global _why_not
    if _why_not is None:
        try:
            build()
            _why_not = ""
        except (ImportError, OSError, AttributeError) as exc:
            _why_not = f"no seccomp filter: {type(exc).__name__}: {exc} (pip install pyseccomp; "
            _why_not += "apt-get install libseccomp2)"
    return _why_not


def program_fd() -> int:
    """A memory file holding the filter, positioned at its start, for ``bwrap --seccomp FD``
    (the caller closes it). Raises what ``build`` raises."""
    program = build()
    fd = os.memfd_create("bao-seccomp")
    try:
        os.write(fd, program)
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _compile() -> bytes:
    sc = _binding()
    eperm = sc.ERRNO(errno.EPERM)
    flt = sc.SyscallFilter(sc.ALLOW)
    # Another ABI's call is refused unchecked (see the module docstring).
    flt.set_attr(sc.Attr.ACT_BADARCH, sc.ERRNO(errno.ENOSYS))
    for name in DENIED:
        try:
            flt.add_rule(eperm, name)
        except (OSError, ValueError):
            continue  # not a call of this architecture (iopl on arm64...)
    for flag in CLONE_NAMESPACE_FLAGS.values():
        flt.add_rule(eperm, "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
    flt.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    flt.add_rule(eperm, "socket", sc.Arg(0, sc.NE, AF_UNIX))
    fd = os.memfd_create("bao-seccomp-build")
    with os.fdopen(fd, "w+b") as sink:
        flt.export_bpf(sink)
        sink.seek(0)
        return sink.read()
