"""The stop channel of a running match (``arena.referee.control``) with real engine processes:
a stop from another thread ends the match within a fraction of a second, during a long think,
and leaves no engine process; the referee's checks keep the liveness clock fresh."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

import pytest

from arena.referee import MatchControl, MatchStopped, RefereeConfig, TimeControl, play_match

sandbox = pytest.importorskip("engines.sandbox")
package = pytest.importorskip("engines.package")

ENGINES = Path(__file__).parent / "engines"

pytestmark = pytest.mark.timeout(60)


class RecordingControl(MatchControl):
    """Keeps every engine process attached, to check afterwards that none survived (other
    test runs on the machine may run the same scripts, so /proc is not ours to scan)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[object] = []

    def attach(self, process: object) -> None:
        self.seen.append(process)
        super().attach(process)

    def survivors(self) -> list[int]:
        return sorted(pid for p in self.seen for pid in p.alive_pids())  # type: ignore[attr-defined]


def _play_in_thread(control: RecordingControl) -> tuple[threading.Thread, dict[str, object]]:
    a = package.load_engine(ENGINES / "slow.py")  # thinks 2 s on every move
    b = package.load_engine(ENGINES / "steady.py")
    out: dict[str, object] = {}
    config = RefereeConfig(sandbox=sandbox.SandboxConfig(mode="auto"))

    def run() -> None:
        try:
            out["record"] = play_match(
                a, b, "bao-kingulu", TimeControl.parse("60+0"), 3, config, control=control
            )
        except MatchStopped as exc:
            out["stopped"] = exc.reason
            out["at"] = time.monotonic()
        finally:
            shutil.rmtree(a.root, ignore_errors=True)
            shutil.rmtree(b.root, ignore_errors=True)

    thread = threading.Thread(target=run)
    thread.start()
    return thread, out


def test_a_stop_during_a_long_think_ends_the_match_at_once_with_no_engine_left() -> None:
    control = RecordingControl()
    thread, out = _play_in_thread(control)
    deadline = time.monotonic() + 20
    while len(control.seen) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)  # inside its 2 s think
    # The referee waits on the engine and checks in every few ms: the loop is alive.
    assert control.seconds_since_check() < 0.2
    asked = time.monotonic()
    assert control.request_stop("tournament cancelled") is True
    assert control.request_stop("again") is False  # the first reason is kept
    thread.join(timeout=10)
    assert not thread.is_alive()
    took = float(out["at"]) - asked  # type: ignore[arg-type]
    print(f"\nstop -> MatchStopped in {took * 1000:.0f} ms")
    assert out.get("stopped") == "tournament cancelled" and "record" not in out
    assert took < 2.0
    assert len(control.seen) == 2 and control.survivors() == []


def test_a_match_stopped_before_it_starts_starts_no_engine() -> None:
    control = RecordingControl()
    control.request_stop("cancelled")
    thread, out = _play_in_thread(control)
    thread.join(timeout=10)
    assert out.get("stopped") == "cancelled"
    assert control.seen == []
