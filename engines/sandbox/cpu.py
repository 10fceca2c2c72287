"""How much CPU time a sandboxed engine has used, measured from outside (the referee's watchdog).

Part of the sandbox (``engines.sandbox`` is the interface: ``EngineProcess.cpu_seconds``).
An engine's CPU time is the sum, over every live process of its tree (the same walk as its
memory: ``memory.tree_pids``), of the user and system time of all its threads and of the
children it has reaped (``utime + stime + cutime + cstime`` of ``/proc/<pid>/stat``, fields
14 to 17, in clock ticks). A child that exits is counted in its parent once reaped, and a
zombie still shows its own time, so time does not vanish when a process ends: in a pid
namespace every orphan is reaped by the namespace's init (the engine itself, or its tree's
root), which stays counted. (An engine that never reaps keeps zombies: they count too, and
against ``max_processes``.)

One sample reads one small file per process (about 10 us each). A child reaped between the
reading of it and of its parent counts twice in that one sample: the watchdog acts only on two
samples in a row. Standard library only; Linux ``/proc``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

#: Clock ticks per second of ``/proc/<pid>/stat`` (100 on Linux).
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_ticks(pid: int) -> int:
    """``utime + stime + cutime + cstime`` of ``pid`` in clock ticks (0 if it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            text = handle.read()
    except OSError:
        return 0
    # The command name (field 2) may hold spaces and parentheses: split after the last ")".
    fields = text[text.rfind(b")") + 2 :].split()
    try:
        return sum(int(value) for value in fields[11:15])
    except ValueError:
        return 0


def cpu_seconds(pids: Iterable[int]) -> float:
    """The CPU seconds of ``pids`` together (``cpu_ticks`` summed)."""
    return sum(cpu_ticks(pid) for pid in pids) / CLOCK_TICKS
