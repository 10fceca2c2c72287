"""This test's own leftover engine processes, on a host other test runs share.

Other checkouts' suites run the same engine scripts at the same time, under uids of the same
host-wide range, so a scan of every process for a script name sees theirs too. A process is
this test's when it runs the script, as a uid the sandbox leased to this test's engines, and
it started before those engines were all ended (``boot_ticks()`` then): whoever leases that
uid next starts its processes after the lease was given back.
"""

from __future__ import annotations

import os
import time

_TICKS = os.sysconf("SC_CLK_TCK")


def boot_ticks() -> int:
    """Now, in the unit of a process's start time in ``/proc/<pid>/stat`` (clock ticks since
    boot)."""
    return int(time.clock_gettime(time.CLOCK_BOOTTIME) * _TICKS) + 1


def _facts(pid: str) -> tuple[list[str], int, int, int] | None:
    """(argv, real uid, parent pid, start time in ticks) of ``pid``; None once it is gone."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            argv = fh.read().decode(errors="replace").split("\0")
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        with open(f"/proc/{pid}/status", "rb") as fh:
            uid_line = next(line for line in fh if line.startswith(b"Uid:"))
    except (OSError, StopIteration):
        return None
    return argv, int(uid_line.split()[1]), int(fields[1]), int(fields[19])


def _all() -> dict[int, tuple[list[str], int, int, int]]:
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (facts := _facts(entry)) is not None:
            found[int(entry)] = facts
    return found


def _runs(argv: list[str], script: str) -> bool:
    """Whether ``argv`` is the script's own process: the script is the program (``argv[0]``) or
    its interpreter's first argument (``python3 /path/hang.py``, as a ``#!`` line runs it). Not
    a process that merely names it further on: the referee (``-m arena.referee --engine
    /path/hang.py``), its forks before they exec (the sandbox's probe runs ``true`` from one, as
    the uid below the leased range), or the wrappers that start the engine (bwrap, prlimit)."""
    return any(arg.endswith("/" + script) for arg in argv[:2])


def uids_under(root: int, script: str) -> set[int]:
    """The uids of the processes descending from ``root`` that run ``script`` (a file name such
    as ``hang.py``): the uids the sandbox leased to the engines ``root`` started."""
    procs = _all()
    children: dict[int, list[int]] = {}
    for pid, (_, _, parent, _) in procs.items():
        children.setdefault(parent, []).append(pid)
    uids, todo = set(), list(children.get(root, []))
    while todo:
        pid = todo.pop()
        argv, uid, _, _ = procs[pid]
        if _runs(argv, script):
            uids.add(uid)
        todo.extend(children.get(pid, []))
    return uids


def leftovers(script: str, uids: set[int], before: int | None = None) -> list[int]:
    """Pids of live processes running ``script`` as one of ``uids`` that started before the
    ``boot_ticks()`` value ``before`` (None: any time)."""
    return sorted(
        pid
        for pid, (argv, uid, _, started) in _all().items()
        if uid in uids and _runs(argv, script) and (before is None or started <= before)
    )
