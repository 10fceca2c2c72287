"""Where the sandbox keeps its things on the host: the state directory (uid leases, scratch
directories, the engines' private package copies, the library copies), the range of engine
uids, and the library engines import ``arena.rules`` and ``engines.sdk`` from.

Part of the sandbox (``engines.sandbox`` is the interface). Standard library only; no Django.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

from engines.sandbox.config import SandboxError
from engines.sandbox.files import library_dir
from engines.sandbox.procs import UidLease, sweep_orphans

#: First host uid leased to engines, and how many there are (one per engine process tree alive
#: at once on this host). Override with BAO_SANDBOX_UID_BASE; far above login users and the
#: usual subordinate-uid ranges.
UID_BASE = int(os.environ.get("BAO_SANDBOX_UID_BASE", "2100000"))
UID_COUNT = 4096
#: Where the uid leases (lock files), scratch directories, the engines' private package copies
#: and the library copies live. Host-wide on purpose: uids must never be leased twice, whichever
#: checkout asks; nothing in it points into a checkout.
STATE_DIR = Path(
    os.environ.get("BAO_SANDBOX_DIR", os.path.join(tempfile.gettempdir(), "bao-sandbox"))
)

REPO_ROOT = Path(__file__).resolve().parents[2]
#: (host path relative to the repository, path under the in-sandbox library dir) made importable.
LIBRARY_FILES = (
    ("arena/__init__.py", "arena/__init__.py"),
    ("arena/rules", "arena/rules"),
    ("engines/__init__.py", "engines/__init__.py"),
    ("engines/sdk.py", "engines/sdk.py"),
)
#: The interpreter engines find on their PATH (the library copy is compiled for it).
ENGINE_PYTHON = "/usr/bin/python3"


def engine_library() -> Path:
    """The host directory engines import ``arena.rules`` and ``engines.sdk`` from (a copy keyed
    by its content: ``files.library_dir``)."""
    return library_dir(REPO_ROOT, LIBRARY_FILES, STATE_DIR, ENGINE_PYTHON)


def sweep_orphaned_uids() -> list[int]:
    """Kill the processes left under engine uids whose holder died, host-wide (every checkout
    leases from ``STATE_DIR``), and mark those uids clean (``procs.sweep_orphans``).
    Returns the uids whose processes were killed. Run by a worker when it starts and by the
    periodic requeue job: an orphan is otherwise killed only when its uid is leased again.
    Sweeps nothing without root (the lock files are root's)."""
    return sweep_orphans(STATE_DIR / "uids")


def lease_uid() -> UidLease:
    """Lease a free engine uid from ``STATE_DIR`` and remove what an earlier holder of it left
    there. Raises ``SandboxError`` when every uid is in use."""
    try:
        lease = UidLease(STATE_DIR / "uids", UID_BASE, UID_COUNT)
    except LookupError as exc:
        raise SandboxError(str(exc)) from None
    # Scratch dirs and package copies of this uid belong to an engine that was never kill()ed
    # (its referee died or forgot): we hold the uid now, so no process of it can be using them.
    # Other referees create and remove their own meanwhile: an entry may vanish between the
    # listing and the stat.
    for entry in os.scandir(STATE_DIR):
        if entry.name.startswith(f"engine-{lease.uid}-"):
            shutil.rmtree(entry.path, ignore_errors=True)
            continue
        if not entry.name.startswith("scratch-"):
            continue
        try:
            owner = entry.stat(follow_symlinks=False).st_uid
        except FileNotFoundError:
            continue
        if owner == lease.uid:
            shutil.rmtree(entry.path, ignore_errors=True)
    return lease


def prepare_state_dir() -> None:
    """Create STATE_DIR, refusing one that someone else made (a shared /tmp): ``SandboxError``."""
    STATE_DIR.mkdir(mode=0o711, parents=True, exist_ok=True)
    st = os.lstat(STATE_DIR)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
        raise SandboxError(
            f"{STATE_DIR} is not a directory of ours: remove it or set BAO_SANDBOX_DIR"
        )
    os.chmod(STATE_DIR, 0o711)  # the engine uid must reach its scratch dir, and list nothing
