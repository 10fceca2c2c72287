"""How much memory a sandboxed engine holds, measured from outside (for the referee's watchdog).

Part of the sandbox (``engines.sandbox`` is the interface: ``EngineProcess.memory_bytes``).
An engine's memory is the sum of

* the **proportional set size** (``Pss`` of ``/proc/<pid>/smaps_rollup``) of every process of
  its tree: a page shared by n processes counts 1/n in each, so forked children that share
  their parent's pages are not counted twice, and the sum is what the engine really holds;
* the bytes used in its **tmpfs mounts** (``/scratch``, ``/tmp``, ``/dev/shm``), which are
  memory too and outlive the process that wrote them. Each is measured by ``statvfs`` through
  ``/proc/<pid>/root``, which resolves the path in the engine's own mount namespace.

A tmpfs file the engine also maps counts in both (conservative: at most the tmpfs caps,
``2 * tmp_bytes + scratch_bytes``, extra).

The processes are found by walking ``/proc/<pid>/task/<tid>/children`` from the sandbox's first
process: in a pid namespace an orphan is re-parented to the namespace's init, which is in the
tree, so nothing escapes the walk. Where there is no pid namespace (the fallback without
``unshare``), ``EngineProcess`` scans by uid instead. Reading ``smaps_rollup`` of another uid
needs ``PTRACE_MODE_READ``: the service runs as root.

Standard library only; Linux ``/proc``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

_KIB = 1024


def tree_pids(root: int) -> set[int]:
    """``root`` and its live descendants (threads' children included); empty if ``root`` is
    gone. Processes that exit during the walk are simply missing."""
    found: set[int] = set()
    todo = [root]
    while todo:
        pid = todo.pop()
        if pid in found:
            continue
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        found.add(pid)
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/children", "rb") as handle:
                    todo.extend(int(child) for child in handle.read().split())
            except OSError:
                continue
    return found


def pss_bytes(pid: int) -> int:
    """The proportional set size of ``pid`` in bytes (0 if it is gone or a zombie)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as handle:
            text = handle.read()
    except OSError:
        return 0
    at = text.find(b"\nPss:")
    if at < 0:
        return 0  # a zombie has no mappings left
    return int(text[at + 5 :].split(None, 1)[0]) * _KIB


def tmpfs_bytes(pid: int, mounts: Iterable[tuple[str, int]]) -> int:
    """Bytes used in the tmpfs mounts ``(path, size in bytes)`` (paths absolute, as the engine
    sees them) in the mount namespace of ``pid``.

    A path counts only where ``pid`` has a mount namespace of its own and the file system there
    has exactly the mount's size: while the sandbox is still being set up, the path is the
    host's (``/tmp`` on the host's disk) and must not count. Each file system is counted once.
    A path that cannot be reached counts 0."""
    try:
        if os.readlink(f"/proc/{pid}/ns/mnt") == os.readlink("/proc/self/ns/mnt"):
            return 0
    except OSError:
        return 0
    total = 0
    seen: set[int] = set()
    for path, size in mounts:
        where = f"/proc/{pid}/root{path}"
        try:
            device = os.stat(where).st_dev
            st = os.statvfs(where)
        except OSError:
            continue
        pages = -(-size // st.f_frsize)  # tmpfs rounds its size up to whole pages
        if device in seen or st.f_blocks != pages:
            continue
        seen.add(device)
        total += (st.f_blocks - st.f_bfree) * st.f_frsize
    return total


def usage_bytes(
    pids: Iterable[int], mounts_pid: int | None, mounts: Iterable[tuple[str, int]]
) -> int:
    """Summed PSS of ``pids`` plus the tmpfs usage of ``mounts`` (``tmpfs_bytes``) seen from
    ``mounts_pid`` (None: no tmpfs counted)."""
    total = sum(pss_bytes(pid) for pid in pids)
    if mounts_pid is not None:
        total += tmpfs_bytes(mounts_pid, mounts)
    return total
