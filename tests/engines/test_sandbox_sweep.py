"""The sweep of orphaned engine uids (``engines.sandbox.procs.sweep_orphans``), with real processes:
a process left under a uid whose holder was SIGKILLed is killed, a uid with a live holder is
left alone, and a uid marked clean is not scanned."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engines import sandbox
from engines.sandbox import commands, probe, procs
from engines.sandbox.procs import CLEAN, UidLease, pids_of_uid, sweep_orphans

REPO = Path(__file__).resolve().parent.parent.parent
_found = probe()
#: A uid outside the range real engines lease, so no referee of this host uses it meanwhile.
UID = sandbox.UID_BASE + sandbox.UID_COUNT + 9
needs_root = pytest.mark.skipif(not _found.root, reason="switching to an engine uid needs root")

SLEEP = ["/usr/bin/sleep", "600"]
#: How a leftover runs: a bare process of the uid, or a bwrap sandbox in its own namespaces
#: started without --die-with-parent (as bwrap's namespace child is, stuck before its setup).
LEFTOVERS = [
    pytest.param([], id="plain", marks=needs_root),
    pytest.param(
        [sandbox.BWRAP, *(a for a in commands.BWRAP_BASE if a != "--die-with-parent"), "--"],
        id="bwrap",
        marks=pytest.mark.skipif(not _found.bwrap_ok, reason=f"no bwrap: {_found.bwrap_reason}"),
    ),
]

HOLDER = """
import subprocess, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from engines.sandbox.procs import UidLease
uid = int(sys.argv[3])
lease = UidLease(Path(sys.argv[2]), uid, 1)
p = subprocess.Popen(sys.argv[4:], user=uid, group=uid, extra_groups=[], start_new_session=True,
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(p.pid, flush=True)
time.sleep(600)
"""


def wait_for(check, timeout: float = 5.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def start_as_uid(argv: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        argv,
        user=UID,
        group=UID,
        extra_groups=[],
        start_new_session=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


@pytest.mark.parametrize("wrapper", LEFTOVERS)
def test_a_process_left_by_a_killed_holder_is_killed_and_its_uid_marked_clean(
    wrapper: list[str], tmp_path: Path
) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(REPO), str(tmp_path), str(UID), *wrapper, *SLEEP],
        stdout=subprocess.PIPE,
    )
    try:
        assert holder.stdout is not None
        leftover = int(holder.stdout.readline())
        assert wait_for(lambda: len(pids_of_uid(UID)) >= 1)
        holder.send_signal(signal.SIGKILL)
        holder.wait(5)
        # The holder is gone, its uid dirty, its process still running.
        assert (tmp_path / str(UID)).read_bytes() == b""
        assert leftover in pids_of_uid(UID)
        assert sweep_orphans(tmp_path) == [UID]
        assert pids_of_uid(UID) == set()
        assert (tmp_path / str(UID)).read_bytes() == CLEAN
        # Nothing left to do: a second sweep finds the uid clean.
        assert sweep_orphans(tmp_path) == []
    finally:
        holder.kill()
        holder.wait(5)
        procs.kill_uid(UID)


@needs_root
def test_a_uid_with_a_live_holder_is_not_touched(tmp_path: Path) -> None:
    lease = UidLease(tmp_path, UID, 1)
    sleeper = start_as_uid(SLEEP)
    try:
        assert wait_for(lambda: sleeper.pid in pids_of_uid(UID))
        assert sweep_orphans(tmp_path) == []
        assert sleeper.poll() is None
        assert (tmp_path / str(UID)).read_bytes() == b""
        # Released without a check (its holder did not see its processes gone): swept.
        lease.release()
        assert sweep_orphans(tmp_path) == [UID]
        assert sleeper.wait(5) == -signal.SIGKILL
    finally:
        lease.release()
        sleeper.kill()
        sleeper.wait(5)


def test_a_clean_uid_is_not_scanned_and_a_dirty_empty_one_is_marked_clean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scans: list[int] = []
    monkeypatch.setattr(procs, "pids_of_uid", lambda uid: scans.append(uid) or set())
    (tmp_path / str(UID)).write_bytes(CLEAN)
    (tmp_path / str(UID + 1)).write_bytes(b"")  # a holder died, leaving nothing running
    (tmp_path / "not-a-uid").write_bytes(b"")
    assert sweep_orphans(tmp_path) == []
    assert scans == [UID + 1]
    assert (tmp_path / str(UID + 1)).read_bytes() == CLEAN
    assert sweep_orphans(tmp_path) == []
    assert scans == [UID + 1]


def test_a_missing_lock_directory_sweeps_nothing(tmp_path: Path) -> None:
    assert sweep_orphans(tmp_path / "none") == []
