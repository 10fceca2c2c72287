#!/usr/bin/env python3
"""Run ``mypy`` and ``manage.py check`` (or one command given as arguments) and fail if a
process they started outlives them.

The leftover this guards against: a module that imports the Celery app at module level made
every ``django.setup()`` start the embedded redis-server, and mypy's Django plugin (which exits
without running ``atexit``) left it running after each type check.

How a leftover is found, and only this run's: this process becomes a child subreaper
(``prctl(PR_SET_CHILD_SUBREAPER)``), so every orphan among the command's descendants (a daemon
such as redis-server forks, leaves its session and loses its parent) is re-parented to it
instead of to init. Once the command has exited, any child still alive after ``GRACE_S`` is a
leftover: it is named, stopped (SIGTERM, then SIGKILL) and the check fails. Processes of other
checkouts or sessions on the host are never children of this process, so they never count.

Each command runs with the embedded defaults (``DATABASE_URL`` and ``CELERY_BROKER_URL``
removed: the set-up of a first run, where a leftover is an embedded redis-server; the servers
CI points at would hide it). Standard library only; Linux only.

Usage: ``scripts/check-no-leftovers.py`` (mypy, then ``manage.py check``) or
``scripts/check-no-leftovers.py CMD [ARG...]``. Exit status: the first failing command's, else
1 if a process was left behind, else 0.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
PR_SET_CHILD_SUBREAPER = 36
#: How long a process started by a command may take to exit after the command itself (s).
GRACE_S = 5.0
#: How long a leftover gets between SIGTERM and SIGKILL (s).
KILL_AFTER_S = 5.0
DEFAULT_COMMANDS = (
    [str(REPO_ROOT / ".venv/bin/mypy")],
    [str(REPO_ROOT / ".venv/bin/python"), "manage.py", "check"],
)


def _children() -> list[int]:
    """The live (not zombie) children of this process; zombies among them are reaped."""
    while True:  # reap every exited child first, so a zombie never counts as a survivor
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break
    pids: list[int] = []
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        try:
            pids += [int(p) for p in (task / "children").read_text().split()]
        except (FileNotFoundError, ProcessLookupError):
            continue
    return sorted(set(pids))


def _describe(pid: int) -> str:
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
        cwd = os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return f"{pid} (gone)"
    return f"{pid}: {argv} (cwd {cwd})"


def _stop(pids: list[int]) -> None:
    for sig, wait in ((signal.SIGTERM, KILL_AFTER_S), (signal.SIGKILL, KILL_AFTER_S)):
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and set(pids) & set(_children()):
            time.sleep(0.1)
        pids = sorted(set(pids) & set(_children()))
        if not pids:
            return


def run_checked(argv: list[str]) -> tuple[int, list[str]]:
    """Run ``argv`` in the checkout; return its exit status and the leftovers it left (each
    described as ``pid: argv (cwd ...)``), which are stopped before returning."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    print("+", " ".join(argv), flush=True)
    status = subprocess.call(argv, cwd=REPO_ROOT, env=env)
    deadline = time.monotonic() + GRACE_S
    left = _children()
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = _children()
    described = [_describe(pid) for pid in left]
    _stop(left)
    return status, described


def main(args: list[str]) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        print("check-no-leftovers: prctl(PR_SET_CHILD_SUBREAPER) failed", file=sys.stderr)
        return 2
    commands = [args] if args else [list(c) for c in DEFAULT_COMMANDS]
    failed = 0
    for argv in commands:
        status, left = run_checked(argv)
        if left:
            print(f"check-no-leftovers: {argv[-1]!r} left processes behind:", file=sys.stderr)
            for line in left:
                print(f"  {line}", file=sys.stderr)
        if status and not failed:
            failed = status
        elif left and not failed:
            failed = 1
    if not failed:
        print("check-no-leftovers: no process left behind")
    return failed


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
