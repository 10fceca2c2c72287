"""One refereed game between scripted bots on the toy variant (fake time, no processes)."""

from __future__ import annotations

from typing import Any

import pytest

from arena import terminations as T
from arena.referee import EngineSlot, FakeTransport, RefereeConfig, TimeControl, play_game
from arena.referee.client import MS, WATCH_INTERVAL_MS
from arena.rules import VARIANTS, get_variant

from .fakes import TOY, Bot, FakeProcess, Launcher, ListPlayer, Pkg, fake_config, optimal_move

TC = TimeControl.parse("1+0.1")
START_NS = FakeTransport().now_ns  # where every fake clock starts


def _play(south: Bot, north: Bot, tc: TimeControl = TC, **cfg: Any) -> tuple[Any, Launcher]:
    launcher = Launcher({"S": lambda: FakeProcess(south), "N": lambda: FakeProcess(north)})
    config: RefereeConfig = fake_config(launcher, **cfg)
    slots = EngineSlot(Pkg("S"), "south-bot", config), EngineSlot(Pkg("N"), "north-bot", config)
    try:
        return play_game(TOY, slots[0], slots[1], tc, config), launcher
    finally:
        for slot in slots:
            slot.close()


def test_a_clean_game_ends_by_the_rules_with_every_move_recorded() -> None:
    record, launcher = _play(Bot(), Bot())
    assert [m.move for m in record.moves] == ["t1"] * 7
    assert [m.side for m in record.moves] == ["S", "N"] * 3 + ["S"]
    assert record.moves[-1].position == "0 N 7"
    assert (record.result, record.winner, record.termination) == (
        "1-0",
        "south-bot",
        T.NO_LEGAL_MOVE,
    )
    assert record.plies == 7 and record.final_position == "0 N 7"
    assert record.moves[0].info == ["depth 1 score 0 nodes 7"]
    bot_s = launcher.started[0][1]
    assert bot_s.transport.written[:5] == [
        "bep",
        "newgame toy-take",
        "position startpos",
        "isready",
        "go stime 1000 ntime 1000 sinc 100 ninc 100",
    ]
    assert bot_s.transport.written[5] == "position startpos moves t1 t1"


def test_an_engine_that_wants_legal_moves_gets_them_with_every_position() -> None:
    asker, plain = Bot(wants=("legalmoves",)), Bot()
    record, launcher = _play(asker, plain)
    # A pile of 7, both take 1: South moves at piles 7, 5, 3 and 1, where only t1 is legal;
    # only South asked, so only South is told the legal moves.
    assert [m.move for m in record.moves] == ["t1"] * 7
    assert asker.legal == [["t1", "t2"], ["t1", "t2"], ["t1", "t2"], ["t1"]]
    written = launcher.started[0][1].transport.written
    assert written[2:6] == ["position startpos", "legalmoves t1 t2", "isready", written[5]]
    assert written[5].startswith("go ")
    north_written = launcher.started[1][1].transport.written
    assert not [line for line in north_written if line.startswith("legalmoves")]
    assert plain.legal == []
    assert (record.termination, record.winner) == (T.NO_LEGAL_MOVE, "south-bot")


@pytest.mark.parametrize("variant_id", VARIANTS)
def test_engines_without_rules_play_a_whole_game_from_the_legal_moves(variant_id: str) -> None:
    players = {"S": ListPlayer("south-list"), "N": ListPlayer("north-list")}
    launcher = Launcher(
        {"S": lambda: FakeProcess(players["S"]), "N": lambda: FakeProcess(players["N"])}
    )
    config = fake_config(launcher)
    slots = EngineSlot(Pkg("S"), "south-list", config), EngineSlot(Pkg("N"), "north-list", config)
    try:
        record = play_game(variant_id, *slots, TimeControl.parse("movetime=100"), config)
    finally:
        for slot in slots:
            slot.close()
    assert record.termination in T.RULES_TERMINATIONS, record.detail
    v = get_variant(variant_id)
    position = v.initial_position()
    sent = {"S": iter(players["S"].legal), "N": iter(players["N"].legal)}
    for move in record.moves:
        legal = next(sent[move.side])
        assert legal == v.legal_moves(position) and move.move == legal[-1]
        position = v.apply(position, move.move)
    assert sum(len(p.legal) for p in players.values()) == record.plies > 0


def test_clocks_are_charged_from_go_to_bestmove_plus_increment() -> None:
    record, launcher = _play(Bot(delays_ms={1: 30, 2: 250}), Bot(delays_ms={1: 400}))
    south = [(m.time_ms, m.clock_ms) for m in record.moves if m.side == "S"]
    north = [(m.time_ms, m.clock_ms) for m in record.moves if m.side == "N"]
    assert south[:3] == [(30, 1070), (250, 920), (5, 1015)]
    assert north[:2] == [(400, 700), (5, 795)]
    written = launcher.started[0][1].transport.written
    assert "go stime 1070 ntime 700 sinc 100 ninc 100" in written


def test_movetime_games_send_go_movetime() -> None:
    record, launcher = _play(Bot(), Bot(), TimeControl.parse("movetime=200"))
    assert "go movetime 200" in launcher.started[0][1].transport.written
    assert record.moves[0].clock_ms == 200


def test_a_bestmove_after_the_clock_and_grace_is_a_time_forfeit() -> None:
    # North's clock at its second move: 1000 - 5 + 100 = 1095 ms; with 50 ms grace the limit
    # is 1145 ms, so a reply 1146 ms after the go is one ms late.
    record, _ = _play(Bot(), Bot(delays_ms={2: 1146}), grace_ms=50)
    assert (record.termination, record.result, record.winner) == (
        T.TIME_FORFEIT,
        "1-0",
        "south-bot",
    )
    assert record.plies == 3
    assert record.detail == "North (north-bot): timed out waiting for bestmove"


def test_a_bestmove_within_the_grace_margin_counts_and_leaves_the_clock_at_the_increment() -> None:
    record, _ = _play(Bot(delays_ms={1: 1040}), Bot(), grace_ms=50)
    assert record.termination == T.NO_LEGAL_MOVE
    assert (record.moves[0].time_ms, record.moves[0].clock_ms) == (1040, 100)


def test_a_well_formed_illegal_move_loses_with_illegal_move() -> None:
    record, _ = _play(Bot(replies={2: "bestmove t3\n"}), Bot())
    assert (record.termination, record.result, record.winner) == (
        T.ILLEGAL_MOVE,
        "0-1",
        "north-bot",
    )
    assert record.detail == "South (south-bot): t3 is not legal in 5 S 2"
    assert record.final_position == "5 S 2"


def test_an_unparseable_token_is_invalid_output() -> None:
    record, _ = _play(Bot(), Bot(replies={1: "bestmove ???\n"}))
    assert (record.termination, record.winner) == (T.INVALID_OUTPUT, "south-bot")


def test_no_readyok_before_a_move_is_a_stall() -> None:
    record, _ = _play(Bot(), Bot(silent_ready={3}))
    assert (record.termination, record.winner, record.plies) == (T.STALL, "south-bot", 5)


def test_an_engine_that_exits_mid_game_crashes_with_its_exit_code() -> None:
    south = Bot()
    launcher = Launcher(
        {"S": lambda: FakeProcess(south, eof_after=6), "N": lambda: FakeProcess(Bot())}
    )
    config = fake_config(launcher)
    slots = EngineSlot(Pkg("S"), "s", config), EngineSlot(Pkg("N"), "n", config)
    record = play_game(TOY, slots[0], slots[1], TC, config)
    assert (record.termination, record.winner) == (T.CRASH, "n")
    assert record.detail.endswith("exit code 3")
    assert launcher.started[0][1].killed is True


def test_an_engine_that_does_not_play_the_variant_fails_the_handshake() -> None:
    record, _ = _play(Bot(variants=("bao-kingulu",)), Bot())
    assert (record.termination, record.winner, record.plies) == (T.HANDSHAKE_FAILED, "north-bot", 0)
    assert record.detail == "South (south-bot): engine plays bao-kingulu, not toy-take"


def test_the_ply_cap_ends_the_game_as_a_draw() -> None:
    record, _ = _play(Bot(), Bot(), ply_cap=3)
    assert (record.termination, record.result, record.winner, record.plies) == (
        T.PLY_CAP,
        "1/2-1/2",
        None,
        3,
    )


def test_stderr_over_its_cap_at_the_handshake_is_an_output_limit_before_any_move() -> None:
    north = FakeProcess(Bot())
    north.stderr_overflow = True
    launcher = Launcher({"S": lambda: FakeProcess(Bot()), "N": lambda: north})
    config = fake_config(launcher)
    slots = EngineSlot(Pkg("S"), "s", config), EngineSlot(Pkg("N"), "n", config)
    record = play_game(TOY, slots[0], slots[1], TC, config)
    assert (record.termination, record.winner, record.plies, record.detail) == (
        T.OUTPUT_LIMIT,
        "s",
        0,
        "North (n): more than the sandbox's max_stderr_bytes on stderr",
    )
    assert north.transport.written == ["bep"]  # no handshake timeout waited for


def _flooding_game(flooder: str, on_go: int) -> tuple[Any, dict[str, FakeProcess]]:
    """South's ``on_go``-th go takes 1000 ms (fake); when South receives it, ``flooder``'s
    stderr passes its cap (``stderr_overflow`` set, as the sandbox's drain does)."""
    south_bot = Bot(delays_ms={on_go: 1000})
    processes = {"S": FakeProcess(south_bot), "N": FakeProcess(Bot())}

    def south(line: str) -> list[Any]:
        out = south_bot(line)
        if line.startswith("go") and south_bot.gos == on_go:
            processes[flooder].stderr_overflow = True
        return out

    processes["S"].transport.on_line = south
    launcher = Launcher({"S": lambda: processes["S"], "N": lambda: processes["N"]})
    config = fake_config(launcher)
    slots = EngineSlot(Pkg("S"), "s", config), EngineSlot(Pkg("N"), "n", config)
    try:
        return play_game(TOY, slots[0], slots[1], TC, config), processes
    finally:
        for slot in slots:
            slot.close()


def test_stderr_over_its_cap_during_its_own_search_ends_the_game_before_its_bestmove() -> None:
    record, processes = _flooding_game("S", on_go=2)
    assert (record.termination, record.winner, record.result, record.plies) == (
        T.OUTPUT_LIMIT,
        "n",
        "0-1",
        2,
    )
    assert record.detail == "South (s): more than the sandbox's max_stderr_bytes on stderr"
    written = processes["S"].transport.written
    assert written[-1] == "go stime 1095 ntime 1095 sinc 100 ninc 100"  # killed, no quit
    # Noticed at the first watch of the wait, one WATCH_INTERVAL_MS after the go (the watch ran
    # just before it): the 1000 ms reply was never waited for (South's fake clock moved only
    # by its 5 ms first move and that one interval).
    assert processes["S"].transport.now_ns - START_NS == (5 + WATCH_INTERVAL_MS) * MS


def test_stderr_over_its_cap_during_the_opponents_search_ends_the_game_at_once() -> None:
    record, processes = _flooding_game("N", on_go=2)
    # North floods while South thinks on ply 3: South's move is never taken, North loses.
    assert (record.termination, record.winner, record.result, record.plies) == (
        T.OUTPUT_LIMIT,
        "s",
        "1-0",
        2,
    )
    assert record.detail == "North (n): more than the sandbox's max_stderr_bytes on stderr"
    # North killed (no quit); South healthy, so it was sent quit at the end, after the go it
    # was thinking on when the game ended (its bestmove owed, drained by a resync if needed).
    assert processes["N"].transport.written[-1] == "go stime 1095 ntime 1000 sinc 100 ninc 100"
    assert processes["S"].transport.written[-2:] == [
        "go stime 1095 ntime 1095 sinc 100 ninc 100",
        "quit",
    ]
    # Seen one WATCH_INTERVAL_MS into South's wait, never at South's 1000 ms reply.
    assert processes["S"].transport.now_ns - START_NS == (5 + WATCH_INTERVAL_MS) * MS


def test_a_sandbox_failure_aborts_the_game_without_a_winner() -> None:
    def refuse(package: Any, *args: Any) -> Any:
        raise RuntimeError("bwrap: setting up uid map: Permission denied")

    config = RefereeConfig(sandbox=None, starter=refuse)
    slots = EngineSlot(Pkg("S"), "s", config), EngineSlot(Pkg("N"), "n", config)
    record = play_game(TOY, slots[0], slots[1], TC, config)
    assert (record.termination, record.result, record.winner) == (T.ABORTED, "*", None)
    assert "Permission denied" in record.detail


def test_the_optimal_bot_wins_as_north_against_first_move() -> None:
    record, _ = _play(Bot(), Bot(choose=optimal_move))
    assert [m.move for m in record.moves] == ["t1", "t1", "t1", "t1", "t1", "t2"]
    assert (record.result, record.winner) == ("0-1", "north-bot")


def test_a_referee_side_error_aborts_the_game_instead_of_blaming_an_engine() -> None:
    class BrokenRules(type(TOY)):  # type: ignore[misc]
        def outcome(self, position: Any) -> Any:
            if position.ply == 2:
                raise ZeroDivisionError("rules bug")
            return super().outcome(position)

    launcher = Launcher({"S": lambda: FakeProcess(Bot()), "N": lambda: FakeProcess(Bot())})
    config = fake_config(launcher)
    slots = EngineSlot(Pkg("S"), "s", config), EngineSlot(Pkg("N"), "n", config)
    record = play_game(BrokenRules(), slots[0], slots[1], TC, config)
    assert (record.termination, record.result, record.winner, record.plies) == (
        T.ABORTED,
        "*",
        None,
        1,
    )
    assert record.detail == "referee error: ZeroDivisionError: rules bug"
