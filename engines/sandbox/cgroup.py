"""Optional kernel memory and CPU caps per engine: a cgroup v2 child of a delegated subtree.

Part of the sandbox (``engines.sandbox`` is the interface; ``SandboxConfig.cgroup_parent``,
the service's ``BAO_ENGINE_CGROUP_PARENT``, off by default). The referee's memory watchdog is
what always enforces the cap (``arena.referee.watchdog``); where the operator gives the service
a delegated cgroup v2 directory (for example a systemd unit with ``Delegate=yes``, or a
container's own cgroup), each engine additionally runs in a fresh child cgroup of it with
``memory.max`` at the cap, ``memory.swap.max`` 0 and ``memory.oom.group`` 1, so the kernel kills
the whole engine even between two samples; where the cpu controller is enabled for the children
too, ``cpu.max`` throttles all its processes together to ``SandboxConfig.cgroup_cpu_cores``
(1.25 by default, the factor of the referee's CPU budget, which still applies). The service
creates cgroups **only** as children of that directory, never anywhere else, and removes each
when its engine is killed.

An engine is moved into its cgroup right after it is spawned: every process of its tree is
written to ``cgroup.procs`` until a pass finds them all inside (a process forked after its
parent moved is born inside). ``oom_killed()`` tells whether the kernel killed it at the cap
(``memory.events``), which the referee records as ``memory_limit``.

Standard library only; Linux cgroup v2.
"""

from __future__ import annotations

import contextlib
import secrets
import time
from pathlib import Path

from engines.sandbox.memory import tree_pids

#: The period of ``cpu.max``, us (the kernel's default).
CPU_PERIOD_US = 100_000


class CgroupError(RuntimeError):
    """The delegated cgroup cannot be used (missing, not cgroup v2 with the memory controller,
    not writable): an infrastructure fault."""


class EngineCgroup:
    """A child cgroup of ``parent`` capped at ``memory_bytes`` (created by ``create``)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def create(
        cls, parent: Path, name: str, memory_bytes: int, cpu_cores: float | None = None
    ) -> EngineCgroup:
        """Make ``<parent>/<name>-<random>`` with the memory cap and, when ``cpu_cores`` is
        given and the parent enables the cpu controller for its children, ``cpu.max`` at that
        many cores (a quota per 100 ms period: the kernel throttles the engine's processes
        together, so a fork hog gets no more than that). Raises ``CgroupError``."""
        if not (parent / "cgroup.procs").is_file():
            raise CgroupError(f"{parent} is not a cgroup v2 directory")
        try:
            controllers = (parent / "cgroup.subtree_control").read_text().split()
        except OSError as exc:
            raise CgroupError(f"cannot read {parent}/cgroup.subtree_control: {exc}") from exc
        if "memory" not in controllers:
            raise CgroupError(
                f"the memory controller is not enabled for the children of {parent} "
                "(echo +memory > cgroup.subtree_control)"
            )
        path = parent / f"{name}-{secrets.token_hex(6)}"
        try:
            path.mkdir()
            (path / "memory.max").write_text(str(memory_bytes))
            if (path / "memory.swap.max").exists():
                (path / "memory.swap.max").write_text("0")
            (path / "memory.oom.group").write_text("1")
            if cpu_cores is not None and "cpu" in controllers:
                period = CPU_PERIOD_US
                (path / "cpu.max").write_text(f"{max(1000, round(cpu_cores * period))} {period}")
        except OSError as exc:
            with contextlib.suppress(OSError):
                path.rmdir()
            raise CgroupError(f"cannot set up the engine cgroup {path}: {exc}") from exc
        return cls(path)

    def adopt(self, root_pid: int, rounds: int = 50) -> None:
        """Move ``root_pid`` and its descendants into this cgroup (see the module docstring).
        Raises ``CgroupError`` if they cannot be moved."""
        procs = self.path / "cgroup.procs"
        for _ in range(rounds):
            moved = False
            inside = set(_read_pids(procs))
            for pid in tree_pids(root_pid):
                if pid in inside:
                    continue
                try:
                    procs.write_text(str(pid))
                except ProcessLookupError:
                    continue  # it exited meanwhile
                except OSError as exc:
                    raise CgroupError(f"cannot move pid {pid} into {self.path}: {exc}") from exc
                moved = True
            if not moved:
                return
        raise CgroupError(f"the processes of {root_pid} kept escaping {self.path}")

    def oom_killed(self) -> bool:
        """Whether the kernel killed a process of this cgroup at ``memory.max``."""
        try:
            events = (self.path / "memory.events").read_text().split()
        except OSError:
            return False
        for key, value in zip(events[::2], events[1::2], strict=False):
            if key == "oom_kill":
                return int(value) > 0
        return False

    def remove(self, timeout: float = 2.0) -> None:
        """Remove the cgroup once its processes are gone (they were killed before)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                if time.monotonic() > deadline:
                    return  # left for the operator; it holds no process once they exit
                time.sleep(0.01)


def _read_pids(procs: Path) -> list[int]:
    try:
        return [int(word) for word in procs.read_text().split()]
    except (OSError, ValueError):
        return []
