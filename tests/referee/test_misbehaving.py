"""Real engine processes in the real sandbox (``auto``): one misbehaving engine per test.

Each engine (``tests/referee/engines/<name>.py``) is engine A, South in game 1, against
``steady`` (first legal move) in Bao Kingulu. Every test checks the exact termination, that the
opponent got the win, and that afterwards no process of the engine is left (a scan of
``/proc/*/cmdline`` for the script name, which bwrap, env, python3 and every fork carry).

Hang vs stall: ``hang`` stops reading during its search, so the referee is waiting for
``bestmove`` with the clock running: ``time_forfeit`` (the clock is the binding deadline).
``stall`` still reads but stops answering ``isready``: the liveness ping before its next move
times out: ``stall``.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from arena import terminations as T
from arena.referee import RefereeConfig, TimeControl, play_match
from arena.rules import get_variant

sandbox = pytest.importorskip("engines.sandbox")
package = pytest.importorskip("engines.package")

ENGINES = Path(__file__).parent / "engines"
VARIANT = "bao-kingulu"
PROBE = Path("/tmp/bao-arena-referee-probe.txt")

pytestmark = pytest.mark.timeout(120)


def _config(**limits: Any) -> RefereeConfig:
    return RefereeConfig(
        sandbox=sandbox.SandboxConfig(mode="auto", limits=sandbox.SandboxLimits(**limits)),
        handshake_timeout_ms=1500,
        ready_timeout_ms=1000,
        max_stdout_bytes=1 << 20,
    )


def _marker(name: str) -> str:
    return f"{name}.py"


def _processes_with(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                argv = fh.read().split(b"\0")
        except OSError:
            continue
        if any(arg.decode(errors="replace").endswith("/" + marker) for arg in argv):
            found.append(int(entry))
    return found


def _match(name: str, tc: str = "1+0.05", **limits: Any) -> dict[str, Any]:
    # load_engine copies each script into a fresh world-readable temp dir: the sandbox's
    # leased uid cannot enter pytest's private tmp_path.
    a = package.load_engine(ENGINES / f"{name}.py")
    b = package.load_engine(ENGINES / "steady.py")
    try:
        record = play_match(a, b, VARIANT, TimeControl.parse(tc), 11, _config(**limits))
    finally:
        shutil.rmtree(a.root, ignore_errors=True)
        shutil.rmtree(b.root, ignore_errors=True)
    assert _processes_with(_marker(name)) == []
    return record.to_dict()


def _first_move_game() -> tuple[list[str], Any]:
    """The game two first-legal-move players play (both engines here do, when they behave)."""
    game = get_variant(VARIANT).new_game()
    while not game.is_over:
        game.play(game.legal_moves()[0])
    return [str(m) for m in game.moves], game.outcome


def _g1(d: dict[str, Any]) -> dict[str, Any]:
    g = d["games"][0]
    assert (g["south"], g["north"]) == (d["engines"][0], "steady.py")
    return g


def test_an_engine_that_crashes_on_its_third_move_loses_with_its_exit_code() -> None:
    d = _match("crash_on_move")
    g = _g1(d)
    assert (g["termination"], g["winner"], g["result"], g["plies"]) == (
        T.CRASH, "steady.py", "0-1", 4)
    assert g["detail"].endswith("exit code 3")
    # Restarted for game 2 (fresh process, handshake), where it crashes again.
    assert [x["termination"] for x in d["games"]] == [T.CRASH, T.CRASH]
    assert (d["score"], d["winner"]) == ([0.0, 2.0], "steady.py")


def test_an_engine_that_hangs_in_its_search_loses_on_time() -> None:
    d = _match("hang")
    g = _g1(d)
    assert (g["termination"], g["winner"], g["plies"]) == (T.TIME_FORFEIT, "steady.py", 2)
    # Before game 2 the resync ping goes unanswered, so it is restarted and hangs again.
    assert [(x["termination"], x["plies"]) for x in d["games"]] == [
        (T.TIME_FORFEIT, 2), (T.TIME_FORFEIT, 3)]


def test_an_engine_that_stops_answering_isready_stalls() -> None:
    d = _match("stall")
    g = _g1(d)
    assert (g["termination"], g["winner"], g["plies"]) == (T.STALL, "steady.py", 4)
    assert g["detail"] == "South (stall.py): timed out waiting for readyok"


def test_a_bestmove_after_the_clock_ran_out_is_a_forfeit_and_never_reaches_the_next_game(
) -> None:
    d = _match("late")
    g1, g2 = d["games"][0], d["games"][1]
    assert (g1["termination"], g1["winner"], g1["plies"]) == (T.TIME_FORFEIT, "steady.py", 2)
    # Game 2 (late is North): its first reply is its fresh move, not the late one of game 1;
    # it forfeits again at its second go.
    moves, _ = _first_move_game()
    assert [m["move"] for m in g2["moves"]] == moves[:3]
    assert (g2["termination"], g2["winner"], g2["plies"]) == (T.TIME_FORFEIT, "steady.py", 3)


def test_a_well_formed_illegal_move_loses() -> None:
    g = _g1(_match("illegal"))
    assert (g["termination"], g["winner"], g["plies"]) == (T.ILLEGAL_MOVE, "steady.py", 2)
    assert g["detail"].startswith("South (illegal.py): a1 is not legal in ")


def test_garbage_output_is_invalid_output() -> None:
    g = _g1(_match("garbage"))
    assert (g["termination"], g["winner"], g["plies"]) == (T.INVALID_OUTPUT, "steady.py", 2)


def test_an_engine_that_never_sends_bepok_fails_the_handshake() -> None:
    d = _match("no_handshake")
    assert [(x["termination"], x["winner"], x["plies"]) for x in d["games"]] == [
        (T.HANDSHAKE_FAILED, "steady.py", 0),
        (T.HANDSHAKE_FAILED, "steady.py", 0),
    ]


def test_an_engine_that_never_flushes_fails_the_handshake() -> None:
    g = _g1(_match("no_flush"))
    assert (g["termination"], g["winner"], g["plies"]) == (T.HANDSHAKE_FAILED, "steady.py", 0)
    assert g["detail"] == "South (no_flush.py): timed out waiting for bepok"


def test_a_stdout_flood_is_an_output_limit() -> None:
    g = _g1(_match("flood_stdout"))
    assert (g["termination"], g["winner"], g["plies"]) == (T.OUTPUT_LIMIT, "steady.py", 2)


def test_a_stderr_flood_is_an_output_limit() -> None:
    g = _g1(_match("flood_stderr"))
    assert (g["termination"], g["winner"]) == (T.OUTPUT_LIMIT, "steady.py")
    # Detected at the check before one of its later moves, once the drain passed the cap.
    assert g["plies"] >= 3 and g["plies"] % 2 == 0
    assert "yyyy" in g["engine_errors"]["flood_stderr.py"]


def _assert_played_normally(d: dict[str, Any]) -> None:
    moves, outcome = _first_move_game()
    for game in d["games"]:
        assert [m["move"] for m in game["moves"]] == moves
        assert game["termination"] == outcome.reason
        assert game["winner"] == (game["south"] if outcome.winner == "S" else game["north"])


def test_an_engine_that_ignores_quit_and_eof_is_killed() -> None:
    d = _match("ignore_quit")
    assert len(d["games"]) == 3
    _assert_played_normally(d)


def test_children_that_escape_the_process_group_are_killed() -> None:
    _assert_played_normally(_match("forker"))


def test_network_connections_fail_and_the_engine_plays_on() -> None:
    d = _match("network")
    _assert_played_normally(d)
    info = d["games"][0]["moves"][0]["info"]
    tried = [line for line in info if line.startswith("string network ")]
    assert len(tried) == 2 and all(" failed " in line for line in tried)


def test_files_outside_the_sandbox_are_not_readable() -> None:
    PROBE.write_text("secret of the host\n")
    try:
        d = _match("file_reader")
    finally:
        PROBE.unlink(missing_ok=True)
    _assert_played_normally(d)
    info = d["games"][0]["moves"][0]["info"]
    assert f"string read {PROBE} failed FileNotFoundError" in info
    assert "string read /etc/passwd failed FileNotFoundError" in info


def test_unbounded_allocation_hits_the_memory_limit_and_crashes() -> None:
    # A long clock: zero-filling 512 MiB on a loaded machine must not turn this into a forfeit.
    g = _g1(_match("memory_hog", tc="10+0", memory_bytes=512 << 20))
    assert (g["termination"], g["winner"], g["plies"]) == (T.CRASH, "steady.py", 2)
    assert g["detail"].endswith("exit code 1")
    assert "MemoryError" in g["engine_errors"]["memory_hog.py"]


def test_a_fork_bomb_is_capped_by_the_process_limit_and_cleaned_up() -> None:
    d = _match("fork_bomb", max_processes=32)
    _assert_played_normally(d)
    info = d["games"][0]["moves"][0]["info"]
    report = [line for line in info if line.startswith("string forks ")]
    assert len(report) == 1 and report[0].endswith(" then BlockingIOError")
    assert int(report[0].split()[2]) < 32
