"""The CPU budget of one engine, with real processes in the real sandbox (``auto``).

``cpu_hog`` forks into 40 busy loops at its first ``go`` (each far inside the per-process
``RLIMIT_CPU``). The referee's watchdog must end the game with ``cpu_limit`` against it once
all its processes together have used more than ``allowance_s + factor * wall_s`` of CPU, and
every one of the 40 must be gone after. The figures are printed
(``./test.sh tests/referee/test_cpu_limit.py -s``).
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from arena import terminations as T
from arena.referee import EngineSlot, RefereeConfig, TimeControl, play_game
from arena.referee.watchdog import CpuBudget, EngineWatchdog

sandbox = pytest.importorskip("engines.sandbox")
package = pytest.importorskip("engines.package")
procs = pytest.importorskip("engines.sandbox.procs")

ENGINES = Path(__file__).parent / "engines"


class _Spent:
    """A process whose CPU time grows at ``rate`` CPU seconds per wall second."""

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.began = time.monotonic()
        self.killed = False

    def memory_bytes(self) -> int:
        return 0

    def cpu_seconds(self) -> float:
        return self.rate * (time.monotonic() - self.began)

    def sigkill_all(self) -> None:
        self.killed = True


def test_an_engine_at_one_core_stays_inside_the_budget() -> None:
    dog = EngineWatchdog(_Spent(1.0), None, cpu=CpuBudget(allowance_s=0.2, factor=1.25)).start()
    time.sleep(1.0)
    dog.stop()
    assert (dog.cpu_exceeded, dog.process.killed) == (None, False)  # type: ignore[attr-defined]
    assert 0.5 < dog.cpu_used_s < 1.1


def test_an_engine_at_three_cores_is_killed_once_past_the_allowance() -> None:
    hog = _Spent(3.0)
    dog = EngineWatchdog(hog, None, cpu=CpuBudget(allowance_s=0.5, factor=1.0)).start()
    time.sleep(1.0)
    dog.stop()
    assert hog.killed and dog.cpu_exceeded is not None
    used, wall = dog.cpu_exceeded
    # Over 0.5 + 1.0 * wall from about 0.25 s on; two samples of 100 ms in a row.
    assert used > 0.5 + wall and 0.25 < wall < 0.6


def test_a_budget_needs_a_positive_allowance_and_factor() -> None:
    with pytest.raises(ValueError):
        CpuBudget(allowance_s=0, factor=1.0)
    with pytest.raises(ValueError):
        CpuBudget(allowance_s=1.0, factor=-1)
    assert CpuBudget(5, 1.25).limit_s(10) == 17.5


@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.skipif(os.geteuid() != 0, reason="the sandbox gives engines their own uid")
def test_forty_busy_loops_end_the_game_cpu_limit_and_leave_no_process(capsys) -> None:
    # A small factor, so the test does not depend on how many cores the hog gets: on a loaded
    # machine (8 sessions on 2 cores) its 40 loops were seen getting 0.3 cores in all.
    budget = CpuBudget(allowance_s=0.5, factor=0.05)
    started: list[Any] = []

    def starter(pkg: Any, config: Any) -> Any:
        started.append(sandbox.start_engine(pkg, config))
        return started[-1]

    # Room for all 40 loops (the default process limit, 32, would refuse 9 of them).
    limits = sandbox.SandboxLimits(max_processes=64)
    config = RefereeConfig(
        sandbox=sandbox.SandboxConfig(mode="auto", limits=limits),
        cpu_budget=budget,
        starter=starter,
    )
    hog = package.load_engine(ENGINES / "cpu_hog.py")
    steady = package.load_engine(ENGINES / "steady.py")
    south = EngineSlot(hog, "cpu_hog.py", config)
    north = EngineSlot(steady, "steady.py", config)
    peak = [0]
    done = threading.Event()

    def count() -> None:  # the hog's processes, seen from outside
        while not done.wait(0.05):
            if started:
                peak[0] = max(peak[0], len(procs.pids_of_uid(started[0].uid)))

    counter = threading.Thread(target=count, daemon=True)
    counter.start()
    began = time.monotonic()
    try:
        record = play_game("bao-kingulu", south, north, TimeControl.parse("60+0"), config)
        took = time.monotonic() - began
        south.close()
        north.close()
    finally:
        done.set()
        counter.join()
        shutil.rmtree(hog.root, ignore_errors=True)
        shutil.rmtree(steady.root, ignore_errors=True)
    with capsys.disabled():
        print(f"\ncpu_hog: {peak[0]} processes, game over in {took:.1f} s; {record.detail}")
    assert (record.termination, record.winner, record.result) == (T.CPU_LIMIT, "steady.py", "0-1")
    assert record.detail.startswith("South (cpu_hog.py): used ")
    assert record.detail.endswith(f"over its budget of {budget} ({record.detail.split('(')[-1]}")
    assert peak[0] >= 40  # the 40 loops (and bubblewrap's outer process)
    # Stopped within seconds of its first go, well before its 60 s clock.
    assert took < 20
    # Both engines started once, and the 40 processes of the hog are gone with the other's.
    assert len(started) == 2 and all(process.alive_pids() == set() for process in started)
    assert all(procs.pids_of_uid(process.uid) == set() for process in started)
