"""The processes of a sandboxed engine, found and killed through its host uid; uid leases.

Part of the sandbox (``engines.sandbox`` is the interface): every process of an engine runs as
a host uid leased to that engine alone, so ``/proc`` tells its processes apart from everyone
else's, and ``kill(-1, SIGKILL)`` run as that uid kills them all, atomically against a fork
bomb (the kernel walks the task list under a lock that ``fork`` also takes).
Standard library only; Linux ``/proc`` and util-linux ``setpriv``.
"""

from __future__ import annotations

import errno
import fcntl
import logging
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

LOG = logging.getLogger("engines.sandbox")

SETPRIV = shutil.which("setpriv") or "/usr/bin/setpriv"


#: What a lock file holds when its last holder released the uid with no process left under it
#: (``UidLease.release(clean=True)``); emptied while the uid is held.
CLEAN = b"clean 1\n"


class UidLease:
    """An exclusive host uid in ``base .. base+count-1`` for one engine process tree, held by a
    lock file in ``lock_dir`` (released by ``release()`` or when this process dies).

    On lease, leftovers of a crashed referee still running under the uid are killed first:
    ``/proc`` is scanned for them, unless the last holder released the uid as clean (it saw
    every process of it gone; a holder that died never did, so its uid is scanned) or the uid
    was never leased from ``lock_dir`` (its lock file is made by this lease). The scan costs
    milliseconds on a busy host.
    Raises ``LookupError`` when every uid of the range is leased.
    """

    def __init__(self, lock_dir: Path, base: int, count: int) -> None:
        lock_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        # Start at a different place in every process so concurrent referees rarely collide.
        start = (os.getpid() * 7919 + time.monotonic_ns()) % count
        for i in range(count):
            uid = base + (start + i) % count
            path = lock_dir / str(uid)
            try:
                # A lock file made now: no referee of this lock_dir ever held the uid, so none
                # can have left a process under it (a crashed holder leaves its file behind).
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
                fresh = True
            except FileExistsError:
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
                fresh = False
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            self.uid, self._fd = uid, fd
            clean = fresh or os.pread(fd, len(CLEAN) + 1, 0) == CLEAN
            os.ftruncate(fd, 0)  # dirty while held, until a clean release
            if not clean and pids_of_uid(uid):
                kill_uid(uid)
            return
        raise LookupError(f"all {count} engine uids from {base} are in use")

    @property
    def held(self) -> bool:
        return self._fd >= 0

    def release(self, clean: bool = False) -> None:
        """Give the uid back (idempotent). ``clean``: the holder made sure no process of the
        uid is left, so the next lease need not scan for one."""
        if self._fd >= 0:
            if clean:
                os.pwrite(self._fd, CLEAN, 0)
            os.close(self._fd)
            self._fd = -1


def sweep_orphans(lock_dir: Path, settle_s: float = 1.0) -> list[int]:
    """Kill what engines left behind under uids nobody holds any more; returns those uids.

    A referee that dies (SIGKILL, a stopped worker) never marks its uid clean, and a process of
    the uid may survive it: bubblewrap's namespace child stuck before its setup when the outer
    bwrap got its parent-death signal, say. ``UidLease`` kills such leftovers only when the uid
    is leased again, which may be never. For every lock file in ``lock_dir`` not marked clean
    (``CLEAN``) this takes the lock without blocking (a live holder keeps it: skipped), kills
    every process of the uid (``kill_uid``), waits up to ``settle_s`` seconds for them to be
    gone, marks the uid clean and unlocks. A uid whose processes outlive that is left dirty
    (an ERROR is logged; the next sweep or lease tries again).

    Cost: one ``stat`` per lock file (a clean one is 8 bytes long, a held or dirty one empty:
    nothing more is read), plus, per dirty free uid, the lock and a ``/proc`` scan (milliseconds).
    A missing or unreadable ``lock_dir`` (not root) sweeps nothing. Never raises ``OSError``.
    """
    swept: list[int] = []
    try:
        entries = list(os.scandir(lock_dir))
    except OSError:
        return swept
    for entry in entries:
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat(follow_symlinks=False).st_size == len(CLEAN):
                continue  # released clean (or leased a moment ago: then it is locked)
            fd = os.open(entry.path, os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue  # a live holder: its engine is its business
            if os.pread(fd, len(CLEAN) + 1, 0) == CLEAN:
                continue  # released clean between the stat and the lock
            uid = int(entry.name)
            left = pids_of_uid(uid)
            if left:
                LOG.warning(
                    "engine uid %d has no holder: killing its processes %s", uid, sorted(left)
                )
                if not _kill_until_gone(uid, settle_s):
                    continue
                swept.append(uid)
            os.pwrite(fd, CLEAN, 0)
        except OSError as exc:
            LOG.error("sweeping engine uid %s failed: %s", entry.name, exc)
        finally:
            os.close(fd)
    return swept


def _kill_until_gone(uid: int, settle_s: float) -> bool:
    """``kill_uid`` until no live process of ``uid`` is left (True) or ``settle_s`` passed."""
    deadline = time.monotonic() + settle_s
    while True:
        kill_uid(uid)
        left = pids_of_uid(uid)
        if not left:
            return True
        if time.monotonic() > deadline:
            LOG.error("engine uid %d: processes %s survived SIGKILL", uid, sorted(left))
            return False
        time.sleep(0.01)


def proc_status(pid: int | str) -> tuple[int, int, str] | None:
    """(real uid, session id, state letter) of a process, None if it is gone."""
    # One file, /proc/<pid>/status (Linux 4.1+ lists NSsid there): scans read it for every
    # process on the host, so a second file per process would double their cost.
    try:
        with open(f"/proc/{pid}/status", "rb") as fh:
            status = fh.read()
    except OSError:
        return None
    # Not the owner of /proc/<pid>: that turns to root while a process is not dumpable.
    uid = _field(status, b"\nUid:")
    state = _field(status, b"\nState:")
    sid = _field(status, b"\nNSsid:")
    if uid is None or state is None:
        return None
    if sid is None:  # a kernel without NSsid: the session is field 6 of /proc/<pid>/stat
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                stat_line = fh.read().decode("ascii", "replace")
        except OSError:
            return None
        # The command name may hold spaces or ')': the fields start after the last ')'.
        sid = stat_line[stat_line.rfind(")") + 2 :].split()[3]
    return int(uid), int(sid), state[:1]


def _field(status: bytes, key: bytes) -> str | None:
    """The first word after ``key`` (``b"\\nUid:"``) in a /proc status text, or None."""
    at = status.find(key)
    if at < 0:
        return None
    words = status[at + len(key) :].split(None, 1)
    return words[0].decode("ascii", "replace") if words else None


def scan(match_uid: int | None = None, match_sid: int | None = None) -> set[int]:
    """Pids of live (not zombie) processes with real uid ``match_uid`` or session ``match_sid``."""
    found = set()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        st = proc_status(name)
        if st is None or st[2] == "Z":  # zombies are dead; their parent reaps them
            continue
        if (match_uid is not None and st[0] == match_uid) or (
            match_sid is not None and st[1] == match_sid
        ):
            found.add(int(name))
    return found


def pids_of_uid(uid: int) -> set[int]:
    return scan(match_uid=uid)


def kill_uid(uid: int) -> None:
    """``kill(-1, SIGKILL)`` as ``uid``: every process of that uid, atomically against forks."""
    try:
        subprocess.run(
            [
                SETPRIV,
                f"--reuid={uid}",
                f"--regid={uid}",
                "--clear-groups",
                "--",
                "kill",
                "-KILL",
                "-1",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=5,
            env={"PATH": "/usr/bin:/bin"},
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        LOG.error("could not kill the processes of engine uid %d: %s", uid, exc)


def sigkill(pid: int) -> None:
    """SIGKILL ``pid``; a process already gone is fine."""
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError as exc:
        if exc.errno not in (errno.ESRCH, errno.EPERM):
            raise
