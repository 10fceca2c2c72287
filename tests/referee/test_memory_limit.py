"""The memory cap of one engine, with real processes in the real sandbox (``auto``).

``many_hogs`` forks into 24 processes that each hold 200 MiB (4.7 GiB in all, every process
well inside its own address-space limit). The referee's memory watchdog must end the game with
``memory_limit`` at the cap (1 GiB), and a sampler outside the sandbox, summing the resident
memory of every process of the engine's uid every 2 ms, must never see 1.5 GiB (its peak is
printed: ``./test.sh tests/referee/test_memory_limit.py -s``).
"""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest

from arena import terminations as T
from arena.referee import EngineSlot, RefereeConfig, TimeControl, play_game

sandbox = pytest.importorskip("engines.sandbox")
package = pytest.importorskip("engines.package")
procs = pytest.importorskip("engines.sandbox.procs")

ENGINES = Path(__file__).parent / "engines"
PAGE = os.sysconf("SC_PAGE_SIZE")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(120),
    pytest.mark.skipif(os.geteuid() != 0, reason="the sandbox gives engines their own uid"),
]


def _resident_bytes(uid: int) -> int:
    total = 0
    for pid in procs.pids_of_uid(uid):
        try:
            with open(f"/proc/{pid}/statm", "rb") as handle:
                total += int(handle.read().split()[1]) * PAGE
        except (OSError, IndexError):
            continue
    return total


class _Sampler(threading.Thread):
    """Sums the resident memory of the processes of ``slot``'s current engine uid."""

    def __init__(self, slot: EngineSlot) -> None:
        super().__init__(daemon=True)
        self.slot = slot
        self.peak = 0
        self.samples = 0
        self.uid: int | None = None
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.002):
            process: Any = self.slot.process
            if process is None:
                continue
            self.uid = process.uid
            self.peak = max(self.peak, _resident_bytes(process.uid))
            self.samples += 1


def test_an_engine_of_24_processes_of_200_mib_is_killed_at_the_memory_cap(capsys) -> None:
    config = RefereeConfig(sandbox=sandbox.SandboxConfig(mode="auto"), memory_cap_bytes=1 << 30)
    hogs = package.load_engine(ENGINES / "many_hogs.py")
    steady = package.load_engine(ENGINES / "steady.py")
    south = EngineSlot(hogs, "many_hogs.py", config)
    north = EngineSlot(steady, "steady.py", config)
    sampler = _Sampler(south)
    sampler.start()
    try:
        record = play_game("bao-kingulu", south, north, TimeControl.parse("30+0"), config)
        south.close()
        north.close()
    finally:
        sampler.done.set()
        sampler.join()
        shutil.rmtree(hogs.root, ignore_errors=True)
        shutil.rmtree(steady.root, ignore_errors=True)
    with capsys.disabled():
        print(
            f"\nmany_hogs: peak summed resident memory {sampler.peak / 2**20:.0f} MiB "
            f"({sampler.samples} samples); watchdog: {record.detail}"
        )
    assert (record.termination, record.winner, record.result) == (
        T.MEMORY_LIMIT,
        "steady.py",
        "0-1",
    )
    assert record.detail.startswith("South (many_hogs.py): held ")
    assert record.detail.endswith("the cap is 1024 MiB")
    assert sampler.samples > 10
    assert 1 << 30 <= sampler.peak < 1.5 * (1 << 30)
    assert sampler.uid is not None and procs.pids_of_uid(sampler.uid) == set()
