"""Best-of-three matches between scripted bots on the toy variant (fake time, no processes)."""

from __future__ import annotations

from typing import Any

import pytest

from arena import terminations as T
from arena.referee import TimeControl, play_match
from arena.referee.events import GameEnd, GameStart, MatchEnd, MovePlayed, RefereeEvent
from arena.referee.match import game_seed, third_game_south
from arena.rules import InvalidPositionError

from .fakes import TOY, Bot, FakeProcess, Launcher, Pkg, fake_config, optimal_move

TC = TimeControl.parse("1+0.1")


def _launcher(a: Any, b: Any) -> Launcher:
    return Launcher({"A": a, "B": b})


def test_south_wins_every_game_so_the_third_decides_by_the_seed() -> None:
    for seed in (1, 2, 3, 4):
        launcher = _launcher(lambda: FakeProcess(Bot()), lambda: FakeProcess(Bot()))
        record = play_match(Pkg("A"), Pkg("B"), TOY, TC, seed, fake_config(launcher))
        d = record.to_dict()
        assert [(g["south"], g["north"], g["result"]) for g in d["games"][:2]] == [
            ("A", "B", "1-0"),
            ("B", "A", "1-0"),
        ]
        third_south = "AB"[third_game_south(seed)]
        assert d["games"][2]["south"] == third_south
        assert d["winner"] == third_south
        assert d["score"] == ([2.0, 1.0] if third_south == "A" else [1.0, 2.0])
        assert all(p.killed for _, p in launcher.started)


def test_both_engines_boot_together_and_are_closed_together() -> None:
    journal: list[str] = []
    launcher = _launcher(
        lambda: FakeProcess(Bot(name="a", journal=journal)),
        lambda: FakeProcess(Bot(name="b", journal=journal)),
    )
    play_match(Pkg("A"), Pkg("B"), TOY, TC, 1, fake_config(launcher))
    # Both bep lines are written before either handshake is read (then the Seed option, as
    # each bot declares it, and newgame).
    assert journal[:6] == ["a:bep", "b:bep", "a:setoption", "a:newgame", "b:setoption", "b:newgame"]
    # Both get quit before either is killed: one shared wait, not one after the other.
    assert journal[-4:] == ["a:quit", "b:quit", "a:kill", "b:kill"]


def test_the_third_game_side_is_a_pure_function_of_the_seed() -> None:
    assert [third_game_south(s) for s in range(6)] == [third_game_south(s) for s in range(6)]
    assert {third_game_south(s) for s in range(20)} == {0, 1}


def test_a_two_nil_lead_ends_the_match_after_two_games() -> None:
    launcher = _launcher(lambda: FakeProcess(Bot(choose=optimal_move)), lambda: FakeProcess(Bot()))
    record = play_match(Pkg("A"), Pkg("B"), TOY, TC, 7, fake_config(launcher))
    d = record.to_dict()
    assert len(d["games"]) == 2
    assert (d["score"], d["winner"], d["aborted"]) == ([2.0, 0.0], "A", False)
    assert d["variant"] == "toy-take" and d["time_control"] == "1+0.1" and d["seed"] == 7
    assert d["engines"] == ["A", "B"]


def test_an_engine_meeting_itself_gets_distinct_names() -> None:
    launcher = Launcher({"X": lambda: FakeProcess(Bot())})
    record = play_match(Pkg("X"), Pkg("X"), TOY, TC, 1, fake_config(launcher))
    assert record.engines == ["X", "X (2)"]
    assert record.games[0].south == "X" and record.games[1].south == "X (2)"


def test_a_late_bestmove_after_a_forfeit_is_never_counted_in_the_next_game() -> None:
    # A's first reply comes 2 s late ("t2"); game 2 must see A's fresh "t1", not the stale one.
    a_bot = Bot(delays_ms={1: 2000}, replies={1: "bestmove t2\n"})
    launcher = _launcher(lambda: FakeProcess(a_bot), lambda: FakeProcess(Bot()))
    record = play_match(Pkg("A"), Pkg("B"), TOY, TC, 3, fake_config(launcher))
    g1, g2 = record.games[0], record.games[1]
    assert (g1.termination, g1.winner, g1.plies) == (T.TIME_FORFEIT, "B", 0)
    assert [m.move for m in g2.moves] == ["t1"] * 7
    assert (g2.termination, g2.winner) == (T.NO_LEGAL_MOVE, "B")
    assert len(record.games) == 2 and record.winner == "B"
    assert len(launcher.started) == 2  # A was resynchronised, not restarted
    assert "stop" in launcher.started[0][1].transport.written


def test_a_crashed_engine_is_restarted_before_the_next_game() -> None:
    made: list[int] = []

    def make_a() -> FakeProcess:
        made.append(1)
        # The first process exits after its 4th command (bep, newgame, isready, position).
        return FakeProcess(Bot(), eof_after=4) if len(made) == 1 else FakeProcess(Bot())

    launcher = _launcher(make_a, lambda: FakeProcess(Bot()))
    record = play_match(Pkg("A"), Pkg("B"), TOY, TC, 5, fake_config(launcher))
    assert record.games[0].termination == T.CRASH
    assert record.games[1].termination == T.NO_LEGAL_MOVE
    assert [name for name, _ in launcher.started] == ["A", "B", "A"]
    assert len(made) == 2


def test_a_sandbox_failure_aborts_the_match_unrated_and_without_winner() -> None:
    def refuse(package: Any, *args: Any) -> Any:
        raise RuntimeError("no sandbox")

    launcher = Launcher({"A": lambda: FakeProcess(Bot())})
    config = fake_config(launcher)
    config = type(config)(**{**config.__dict__, "starter": refuse})
    d = play_match(Pkg("A"), Pkg("B"), TOY, TC, 1, config).to_dict()
    assert (d["aborted"], d["winner"], len(d["games"])) == (True, None, 1)
    assert (d["games"][0]["result"], d["games"][0]["termination"]) == ("*", T.ABORTED)
    assert T.is_rated(T.ABORTED) is False


def test_an_interrupt_kills_every_engine_process() -> None:
    launcher = _launcher(lambda: FakeProcess(Bot()), lambda: FakeProcess(Bot()))

    def interrupt(event: RefereeEvent) -> None:
        if isinstance(event, MovePlayed) and event.record.ply == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        play_match(Pkg("A"), Pkg("B"), TOY, TC, 1, fake_config(launcher), on_event=interrupt)
    assert len(launcher.started) == 2 and all(p.killed for _, p in launcher.started)


def test_events_report_progress_and_a_failing_callback_changes_nothing() -> None:
    events: list[RefereeEvent] = []
    launcher = _launcher(lambda: FakeProcess(Bot(choose=optimal_move)), lambda: FakeProcess(Bot()))
    play_match(Pkg("A"), Pkg("B"), TOY, TC, 1, fake_config(launcher), on_event=events.append)
    kinds = [e.kind for e in events]
    assert kinds[0] == "game_start" and kinds[-1] == "match_end"
    # Moves: t1 t1 t2 t1 t2, then t1 t1 t1 t1 t1 t2.
    assert kinds.count("game_end") == 2 and kinds.count("move") == 5 + 6

    def broken(event: RefereeEvent) -> None:
        raise ValueError("display went away")

    launcher = _launcher(lambda: FakeProcess(Bot(choose=optimal_move)), lambda: FakeProcess(Bot()))
    record = play_match(Pkg("A"), Pkg("B"), TOY, TC, 1, fake_config(launcher), on_event=broken)
    assert record.winner == "A"


def test_events_are_typed_and_carry_what_the_record_holds() -> None:
    events: list[RefereeEvent] = []
    launcher = _launcher(lambda: FakeProcess(Bot(choose=optimal_move)), lambda: FakeProcess(Bot()))
    record = play_match(
        Pkg("A"), Pkg("B"), TOY, TC, 1, fake_config(launcher), on_event=events.append
    )
    starts = [e for e in events if isinstance(e, GameStart)]
    ends = [e for e in events if isinstance(e, GameEnd)]
    moves = [e for e in events if isinstance(e, MovePlayed)]
    assert [(s.index, s.south, s.north) for s in starts] == [(1, "A", "B"), (2, "B", "A")]
    assert starts[0].start_position == record.games[0].start_position
    assert [(e.index, e.result, e.termination, e.plies) for e in ends] == [
        (g.index, g.result, g.termination, g.plies) for g in record.games
    ]
    first = record.games[0].moves[0]
    assert (moves[0].index, moves[0].record.ply) == (1, 1)
    assert moves[0].record == first and moves[0].record.info
    assert events[-1] == MatchEnd(score=(2.0, 0.0), winner="A", aborted=False)


def test_engines_declaring_a_seed_option_get_a_per_game_seed() -> None:
    launcher = _launcher(lambda: FakeProcess(Bot()), lambda: FakeProcess(Bot()))
    play_match(Pkg("A"), Pkg("B"), TOY, TC, 42, fake_config(launcher, engine_options={"Hash": "8"}))
    written = launcher.started[0][1].transport.written
    sent = [line for line in written if line.startswith("setoption")]
    assert sent == [f"setoption name Seed value {game_seed(42, i)}" for i in (1, 2, 3)]
    assert written[1:3] == [sent[0], "newgame toy-take"]  # Hash is not declared: not sent
    assert len({game_seed(42, i) for i in (1, 2, 3)}) == 3


def test_a_one_game_decider_plays_game_one_only_with_a_south() -> None:
    launcher = _launcher(lambda: FakeProcess(Bot()), lambda: FakeProcess(Bot()))
    record = play_match(Pkg("A"), Pkg("B"), TOY, TC, 5, fake_config(launcher), best_of=1)
    d = record.to_dict()
    assert [(g["index"], g["south"], g["result"]) for g in d["games"]] == [(1, "A", "1-0")]
    assert (d["score"], d["winner"]) == ([1.0, 0.0], "A")
    assert all(p.killed for _, p in launcher.started)


def test_a_start_text_that_does_not_parse_is_refused_before_any_engine_starts() -> None:
    launcher = _launcher(lambda: FakeProcess(Bot()), lambda: FakeProcess(Bot()))
    with pytest.raises(InvalidPositionError):
        play_match(Pkg("A"), Pkg("B"), TOY, TC, 1, fake_config(launcher), start="five")
    assert launcher.started == []


def test_a_game_pair_plays_both_colours_and_never_a_third_game() -> None:
    launcher = _launcher(lambda: FakeProcess(Bot()), lambda: FakeProcess(Bot()))
    record = play_match(Pkg("A"), Pkg("B"), TOY, TC, 3, fake_config(launcher), best_of=2)
    d = record.to_dict()
    assert [(g["index"], g["south"], g["result"]) for g in d["games"]] == [
        (1, "A", "1-0"),
        (2, "B", "1-0"),
    ]
    assert (d["score"], d["winner"]) == ([1.0, 1.0], None)
    assert all(p.killed for _, p in launcher.started)


def test_a_game_pair_plays_its_second_game_after_a_decisive_first() -> None:
    # A wins both games: a best of three would also stop after two, but a pair never stops
    # after one (here the first game is already decisive for the pair's leader).
    launcher = _launcher(lambda: FakeProcess(Bot(choose=optimal_move)), lambda: FakeProcess(Bot()))
    record = play_match(Pkg("A"), Pkg("B"), TOY, TC, 1, fake_config(launcher), best_of=2)
    assert [g["index"] for g in record.to_dict()["games"]] == [1, 2]


def test_a_match_of_four_games_is_refused_before_any_engine_starts() -> None:
    launcher = _launcher(None, None)
    with pytest.raises(ValueError, match="best_of"):
        play_match(Pkg("A"), Pkg("B"), TOY, TC, 5, fake_config(launcher), best_of=4)
    assert launcher.started == []
