"""Real engine processes in the real sandbox (``auto``): one misbehaving engine per test.

Each engine (``tests/referee/engines/<name>.py``) is engine A, South in game 1, against
``steady`` (first legal move) in Bao Kingulu. Every test checks the exact termination, that the
opponent got the win, and that afterwards no process of the engine is left (a scan of
``/proc/*/cmdline`` for the script name, which bwrap, env, python3 and every fork carry, among
the processes of the uids this test's engines ran as: ``leftovers``).

Hang vs stall: ``hang`` stops reading during its search, so the referee is waiting for
``bestmove`` with the clock running: ``time_forfeit`` (the clock is the binding deadline).
``stall`` still reads but stops answering ``isready``: the ``readyok`` awaited with its next move
never comes: ``stall``.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from arena import terminations as T
from arena.referee import EngineSlot, RefereeConfig, TimeControl, play_match
from arena.rules import get_variant

from .leftovers import boot_ticks, leftovers

sandbox = pytest.importorskip("engines.sandbox")
package = pytest.importorskip("engines.package")

ENGINES = Path(__file__).parent / "engines"
VARIANT = "bao-kingulu"
PROBE = Path("/tmp/bao-arena-referee-probe.txt")

pytestmark = pytest.mark.timeout(120)


@dataclass
class _Engines:
    """The engines of the match ``_match`` plays: the uids the sandbox leased them (``_start``)
    and when the match was over (``boot_ticks()``). The scan for leftovers looks at those
    alone, not at other test runs' engines of the same name."""

    uids: set[int] = field(default_factory=set)
    ended: int | None = None


_OURS = _Engines()


def _start(pkg: Any, config: Any) -> Any:
    """``engines.sandbox.start_engine``, noting the uid the engine runs as."""
    engine = sandbox.start_engine(pkg, config)
    _OURS.uids.add(engine.uid)
    return engine


def _config(grace_ms: int = 50, **limits: Any) -> RefereeConfig:
    return RefereeConfig(
        starter=_start,
        sandbox=sandbox.SandboxConfig(mode="auto", limits=sandbox.SandboxLimits(**limits)),
        handshake_timeout_ms=1500,
        ready_timeout_ms=1000,
        grace_ms=grace_ms,
        max_stdout_bytes=1 << 20,
    )


def _marker(name: str) -> str:
    return f"{name}.py"


def _processes_with(marker: str) -> list[int]:
    """This match's live processes running ``marker`` (none once the match is over)."""
    return leftovers(marker, _OURS.uids, before=_OURS.ended)


def _match(
    name: str, tc: str = "1+0.05", opponent: str = "steady", grace_ms: int = 50, **limits: Any
) -> dict[str, Any]:
    # load_engine copies each script into a fresh world-readable temp dir: the sandbox's
    # leased uid cannot enter pytest's private tmp_path.
    a = package.load_engine(ENGINES / f"{name}.py")
    b = package.load_engine(ENGINES / f"{opponent}.py")
    try:
        _OURS.uids.clear()
        record = play_match(a, b, VARIANT, TimeControl.parse(tc), 11, _config(grace_ms, **limits))
        _OURS.ended = boot_ticks()
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
        T.CRASH,
        "steady.py",
        "0-1",
        4,
    )
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
        (T.TIME_FORFEIT, 2),
        (T.TIME_FORFEIT, 3),
    ]
    # The forfeit records how far past its clock it went and how busy the host was then.
    loss = g["time_loss"]
    assert (loss["answered"], loss["overrun_ms"]) == (False, 50)  # the grace, never answered
    assert loss["clock_ms"] > 0 and loss["cores"] >= 1
    assert loss["runnable"] >= 0 and loss["load1"] >= 0
    assert "time_loss" not in d["games"][0]["moves"][0]


def test_an_engine_that_stops_answering_isready_stalls() -> None:
    d = _match("stall")
    g = _g1(d)
    assert (g["termination"], g["winner"], g["plies"]) == (T.STALL, "steady.py", 4)
    # Its reply to the go sent with the unanswered isready does not count.
    assert g["detail"] == (
        "South (stall.py): timed out waiting for readyok; last line received: 'bestmove a1'"
    )


def test_a_bestmove_after_the_clock_ran_out_is_a_forfeit_and_never_reaches_the_next_game() -> None:
    d = _match("late")
    g1, g2 = d["games"][0], d["games"][1]
    assert (g1["termination"], g1["winner"], g1["plies"]) == (T.TIME_FORFEIT, "steady.py", 2)
    assert (g1["time_loss"]["answered"], g1["time_loss"]["overrun_ms"]) == (False, 50)
    # Game 2 (late is North): its first reply is its fresh move, not the late one of game 1;
    # it forfeits again at its second go.
    moves, _ = _first_move_game()
    assert [m["move"] for m in g2["moves"]] == moves[:3]
    assert (g2["termination"], g2["winner"], g2["plies"]) == (T.TIME_FORFEIT, "steady.py", 3)


def test_lines_an_engine_wrote_before_reading_isready_never_count_as_its_reply() -> None:
    # chatty repeats its last bestmove after newgame, position, isready and stop; in game 1 it
    # answers its 4th go late (ply 7) and is resynced.
    d = _match("chatty")
    g1, g2 = d["games"][0], d["games"][1]
    moves, _ = _first_move_game()
    assert [m["move"] for m in g1["moves"]] == moves[:6]
    assert (g1["termination"], g1["winner"], g1["plies"]) == (T.TIME_FORFEIT, "steady.py", 6)
    assert g1["detail"] == "South (chatty.py): timed out waiting for bestmove"
    # Each stale line is in the record, with the move it was ignored at.
    assert g1["moves"][0]["ignored"] == [
        "info string chatter after newgame",
        "bestmove none",
        "info string chatter after position",
        "bestmove none",
        "info string chatter after isready",
        "bestmove none",
    ]
    assert g1["moves"][2]["ignored"] == [
        "info string chatter after position",
        "bestmove c1",
        "info string chatter after isready",
        "bestmove c1",
    ]
    assert "ignored" not in g1["moves"][1]  # steady says nothing out of turn
    # Game 2 (chatty North) is played move for move: nothing of game 1 reaches it.
    assert [m["move"] for m in g2["moves"]] == moves
    assert (g2["termination"], g2["winner"]) == ("score", "steady.py")
    drained = g2["ignored"]["chatty.py"]  # the resync's: the late answer, stop's chatter
    assert f"bestmove {moves[6]}" in drained and "info string chatter after stop" in drained
    assert g2["moves"][1]["ignored"][:2] == [
        "info string chatter after newgame",
        f"bestmove {moves[6]}",
    ]


def test_a_bepok_printed_before_the_handshake_is_skipped() -> None:
    d = _match("eager_bepok")
    _assert_played_normally(d)
    assert d["games"][0]["ignored"] == {"eager_bepok.py": ["eager_bepok starting", "bepok"]}


def test_a_reply_that_is_not_a_bestmove_line_forfeits_naming_what_it_was() -> None:
    d = _match("shouting", tc="1+0")
    assert [(x["termination"], x["winner"], x["plies"]) for x in d["games"]] == [
        (T.TIME_FORFEIT, "steady.py", 0),
        (T.TIME_FORFEIT, "steady.py", 1),
    ]
    assert d["games"][0]["detail"] == (
        "South (shouting.py): timed out waiting for bestmove; last line received: 'BESTMOVE c1'"
    )


def test_the_grace_is_once_per_game_so_small_overruns_add_up_to_a_forfeit() -> None:
    # overrun exceeds its clock by 40 ms on every move: each alone fits the 100 ms grace.
    d = _match("overrun", tc="1+0", grace_ms=100)
    g = _g1(d)
    assert (g["termination"], g["winner"]) == (T.TIME_FORFEIT, "steady.py")
    assert g["plies"] <= 4  # at its 3rd move at the latest (2nd on a slow machine)
    if g["plies"]:
        assert "(grace 100 ms per game)" in g["detail"]


def test_an_sdk_engine_whose_choose_raises_system_exit_or_keyboard_interrupt_plays_on() -> None:
    d = _match("raises_in_choose")
    _assert_played_normally(d)
    g = _g1(d)
    errors = g["engine_errors"]["raises_in_choose.py"]
    for ply, exc in ((3, "SystemExit"), (7, "KeyboardInterrupt")):
        move = g["moves"][ply - 1]["move"]
        assert g["moves"][ply - 1]["info"] == [
            f"string error in search: {exc}: raised in choose; playing {move}"
        ]
        assert f"error in search ({exc}: raised in choose); playing {move}" in errors
        assert f"{exc}: raised in choose" in errors.splitlines()


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
    assert g["detail"] == (
        "South (no_flush.py): timed out waiting for bepok: 0 bytes arrived on stdout (is the "
        "engine's output flushed after every line? docs/protocol.md 1)"
    )


def test_a_stdout_flood_is_an_output_limit() -> None:
    g = _g1(_match("flood_stdout"))
    assert (g["termination"], g["winner"], g["plies"]) == (T.OUTPUT_LIMIT, "steady.py", 2)


def test_a_stderr_flood_is_an_output_limit() -> None:
    g = _g1(_match("flood_stderr"))
    assert (g["termination"], g["winner"]) == (T.OUTPUT_LIMIT, "steady.py")
    # The flood starts at its 2nd go (ply 3), which it still answers at once; the game ends as
    # soon as the drain has passed the cap, after however many plies the machine took for the
    # flood's first MiB, at either engine's turn (the exact turns: the two tests below).
    assert g["plies"] >= 2
    assert g["detail"] == "South (flood_stderr.py): more than 1048576 bytes on stderr"
    assert "yyyy" in g["engine_errors"]["flood_stderr.py"]


def test_a_stderr_flood_instead_of_the_handshake_is_an_output_limit_not_a_timeout() -> None:
    # The handshake timeout is 1500 ms here; the flood passes the 1 MiB cap long before.
    d = _match("flood_stderr_handshake")
    assert [(x["termination"], x["winner"], x["plies"], x["detail"]) for x in d["games"]] == [
        (
            T.OUTPUT_LIMIT,
            "steady.py",
            0,
            "South (flood_stderr_handshake.py): more than 1048576 bytes on stderr",
        ),
        (
            T.OUTPUT_LIMIT,
            "steady.py",
            0,
            "North (flood_stderr_handshake.py): more than 1048576 bytes on stderr",
        ),
    ]


def test_a_stderr_flood_during_its_own_search_ends_the_game_before_its_bestmove() -> None:
    # It would answer 3 s after its 2nd go (in time on a 10 s clock); the referee does not wait.
    d = _match("flood_stderr_search", tc="10+0.1")
    assert [(x["termination"], x["winner"], x["plies"]) for x in d["games"]] == [
        (T.OUTPUT_LIMIT, "steady.py", 2),
        (T.OUTPUT_LIMIT, "steady.py", 3),
    ]
    moves, _ = _first_move_game()
    assert [m["move"] for m in d["games"][0]["moves"]] == moves[:2]


def test_a_stderr_flood_while_the_opponent_thinks_ends_the_game_in_that_turn() -> None:
    # slow thinks 2 s per move; the flood starts 0.2 s after the flooder's first move, so it
    # loses during slow's next search, whose move is never taken.
    d = _match("flood_stderr_waiting", tc="10+0.1", opponent="slow")
    assert [(x["termination"], x["winner"], x["plies"], x["detail"]) for x in d["games"]] == [
        (
            T.OUTPUT_LIMIT,
            "slow.py",
            1,
            "South (flood_stderr_waiting.py): more than 1048576 bytes on stderr",
        ),
        (
            T.OUTPUT_LIMIT,
            "slow.py",
            2,
            "North (flood_stderr_waiting.py): more than 1048576 bytes on stderr",
        ),
    ]
    assert _processes_with(_marker("slow")) == []


def test_nul_and_control_bytes_from_an_engine_reach_the_record_as_u_fffd() -> None:
    d = _match("nul_text")
    _assert_played_normally(d)
    for game in d["games"]:
        mover = "nul_text.py"
        infos = [m["info"] for m in game["moves"] if (m["side"] == "S") == (game["south"] == mover)]
        assert infos and all(info == ["string has\ufffdnul"] for info in infos)
        assert game["engine_errors"][mover].splitlines()[-1] == "before\ufffdafter"
        assert "\\u0000" not in json.dumps(game)  # as PostgreSQL jsonb would get it
    # The handshake names it with U+FFFD too.
    pkg = package.load_engine(ENGINES / "nul_text.py")
    slot = EngineSlot(pkg, "nul", _config())
    try:
        slot.prepare(VARIANT)
        assert slot.ident is not None
        assert (slot.ident.name, slot.ident.author) == ("nul\ufffdtext", "bell\ufffdauthor")
    finally:
        slot.close()
        shutil.rmtree(pkg.root, ignore_errors=True)


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
