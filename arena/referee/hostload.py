"""The host's load at the moment of a time forfeit (issue 12). Linux ``/proc``; no Django.

A forfeit at a short clock may be the engine's fault or the host's: too many engines thinking
at once on too few cores. So each ``time_forfeit`` records how far past its clock the engine
answered and how busy the host was then, not counting the forfeiting engine's own processes
(its search threads are runnable by design): ``runnable`` is the kernel's count of runnable
tasks (``/proc/loadavg``, 4th field) minus this process's own reading thread and the engine's
runnable processes; ``load1`` the one-minute load average; ``cores`` the CPUs this process may
use. Unavailable values are None (another OS, a process gone).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path


def _runnable(pid: int) -> bool:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return raw[raw.rindex(")") + 2 :].split()[0] == "R"


@dataclass(frozen=True)
class HostLoad:
    """The host's load at one moment (module docstring); None where unavailable."""

    runnable: int | None
    load1: float | None
    cores: int | None


def host_load(exclude_pids: Iterable[int] = ()) -> HostLoad:
    """The ``HostLoad`` now, the processes ``exclude_pids`` not counted."""
    runnable: int | None = None
    load1: float | None = None
    try:
        fields = Path("/proc/loadavg").read_text().split()
        load1 = float(fields[0])
        # The reader itself is runnable while it reads: not load.
        runnable = int(fields[3].split("/")[0]) - 1
        runnable -= sum(1 for pid in set(exclude_pids) if _runnable(pid))
        runnable = max(0, runnable)
    except (OSError, ValueError, IndexError):
        pass
    try:
        cores: int | None = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count()
    return HostLoad(runnable=runnable, load1=load1, cores=cores)
