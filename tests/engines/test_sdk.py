"""The engine SDK (``engines/sdk.py``): the BEP loop driven with scripted input, in-process and
through a real subprocess, plus clocks and position reading."""

from __future__ import annotations

import io
import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from arena.rules import Move, get_variant
from engines.sdk import (
    Clock,
    Engine,
    Option,
    SearchRequest,
    material,
    parse_go,
    run,
    view,
)

ROOT = Path(__file__).resolve().parents[2]
MINIMAL = ROOT / "engines" / "examples" / "minimal.py"

KGL_START = "4,4,4,4,4,4/4,4,4,4,4,4 S 0:0 0"
# KGL-E1 (bao-kingulu.md 5): the start position after South's c1.
KGL_AFTER_C1 = "1,0,6,6,0,1/6,6,2,7,0,6 N 7:0 1"


def drive(script: str, choose=None, **kwargs) -> tuple[list[str], int]:
    """Run a choose-style engine on ``script`` (lines) in-process; its output lines and status."""
    out = io.StringIO()
    chooser = choose if choose is not None else (lambda position, moves, clock: moves[-1])
    kwargs.setdefault("name", "tester")
    kwargs.setdefault("author", "the suite")
    status = run(chooser, stdin=io.StringIO(script), stdout=out, **kwargs)
    return out.getvalue().splitlines(), status


def bestmoves(lines: list[str]) -> list[str]:
    return [line.split()[1] for line in lines if line.startswith("bestmove ")]


def test_it_answers_the_handshake_with_id_options_variants_and_bepok() -> None:
    lines, status = drive(
        "bep\n", options=(Option("Seed", "spin", "7"),), variants=("bao-kingulu",)
    )
    assert lines == [
        "id name tester",
        "id author the suite",
        "option name Seed type spin default 7",
        "variant bao-kingulu",
        "bepok",
    ]
    assert status == 0


def test_it_announces_all_three_variants_by_default() -> None:
    lines, _ = drive("bep\n")
    assert [line for line in lines if line.startswith("variant ")] == [
        "variant bao-la-kete",
        "variant bao-la-kiswahili",
        "variant bao-kingulu",
    ]


def test_it_answers_isready_with_readyok_every_time() -> None:
    lines, _ = drive("isready\nnewgame bao-kingulu\nisready\n")
    assert lines == ["readyok", "readyok"]


def test_it_plays_from_startpos_with_moves() -> None:
    # After c1 North's legal moves are a2 c2 d2 f2 (KGL-E1); the chooser takes the last one.
    lines, _ = drive("newgame bao-kingulu\nposition startpos moves c1\ngo movetime 100\n")
    assert lines == ["bestmove f2"]


def test_it_plays_from_a_position_text_with_spaces_and_moves() -> None:
    script = (
        "newgame bao-kingulu\n"
        f"position text {KGL_AFTER_C1} moves c2\n"
        "go stime 1000 ntime 1000 sinc 100 ninc 100\n"
        f"position text {KGL_AFTER_C1}\n"
        "go movetime 50\n"
    )
    lines, _ = drive(script, choose=lambda position, moves, clock: moves[0])
    # After c2: "0,2,1,7,1,2/8,7,5n,0,1,7 S 7:0 2", South may play a1 or b1.
    assert bestmoves(lines) == ["a1", "a2"]


def test_the_chooser_receives_the_position_the_moves_and_the_variant() -> None:
    seen: list[tuple[str, list[str], str]] = []

    def choose(position, legal_moves, clock, variant):
        seen.append((position.to_text(), list(legal_moves), variant.id))
        return legal_moves[0]

    drive(f"newgame kingulu\nposition text {KGL_AFTER_C1} moves c2\ngo movetime 10\n", choose)
    assert seen == [("0,2,1,7,1,2/8,7,5n,0,1,7 S 7:0 2", ["a1", "b1"], "bao-kingulu")]


def test_it_gives_the_clock_from_the_movers_point_of_view() -> None:
    clocks: list[Clock] = []

    def choose(position, legal_moves, clock):
        clocks.append(clock)
        return legal_moves[0]

    drive(
        "newgame bao-kingulu\nposition startpos moves c1\n"
        "go stime 9000 ntime 8000 sinc 100 ninc 200\n"
        "position startpos\ngo movetime 250\n",
        choose,
    )
    north, south = clocks
    assert (north.my_ms, north.opp_ms, north.my_inc_ms, north.opp_inc_ms) == (8000, 9000, 200, 100)
    assert north.movetime_ms is None
    assert south.movetime_ms == 250


def test_it_ignores_unknown_commands() -> None:
    plain, _ = drive("bep\nisready\nnewgame bao-kingulu\nposition startpos\ngo movetime 10\n")
    noisy, _ = drive(
        "hello\nbep\nucinewgame\nisready\n\n   \nnewgame bao-kingulu\nregister later\n"
        "position startpos\ndebug on\ngo movetime 10\nponderhit\n"
    )
    assert noisy == plain
    assert bestmoves(plain) == ["f1"]


def test_an_engine_that_wants_legal_moves_asks_and_chooses_from_the_referees_list() -> None:
    seen: list[list[str]] = []

    def chooser(position, legal_moves, clock):
        seen.append([str(m) for m in legal_moves])
        return legal_moves[-1]

    lines, _ = drive(
        "bep\nnewgame bao-kingulu\nposition startpos\nlegalmoves c1 d1\nisready\n"
        "go movetime 10\nposition startpos moves d1\nisready\ngo movetime 10\n",
        chooser,
        legalmoves=True,
        variants=("bao-kingulu",),
    )
    assert lines[:4] == [
        "id name tester",
        "id author the suite",
        "want legalmoves",
        "variant bao-kingulu",
    ]
    # The referee's (here partial) list is what the chooser gets; a position without its own
    # legalmoves line gets the generated ones, never the previous position's.
    assert seen == [["c1", "d1"], ["b2", "c2", "d2"]]
    assert bestmoves(lines) == ["d1", "d2"]


def test_an_engine_that_does_not_ask_sends_no_want_line() -> None:
    lines, _ = drive("bep\n", variants=("bao-kingulu",))
    assert not [line for line in lines if line.startswith("want")]


def test_an_exception_in_choose_still_gives_the_first_legal_move() -> None:
    def broken(position, legal_moves, clock):
        raise ZeroDivisionError("division by zero")

    lines, status = drive(
        "newgame bao-kingulu\nposition startpos moves c1\ngo movetime 50\n", broken
    )
    assert lines[-1] == "bestmove a2"
    assert lines[0].startswith("info string error in search: ZeroDivisionError")
    assert status == 0


def test_an_illegal_answer_is_replaced_by_the_first_legal_move() -> None:
    lines, _ = drive(
        "newgame bao-kingulu\nposition startpos\ngo movetime 50\n",
        lambda position, moves, clock: "a1",  # a1 breaks the first-lap rule (KGL-E1)
    )
    assert lines == ["info string search returned illegal 'a1'; playing c1", "bestmove c1"]


def test_a_bad_position_is_reported_and_go_answers_none() -> None:
    lines, _ = drive("newgame bao-kingulu\nposition text 4,4/4 S 0:0 0\ngo movetime 10\n")
    assert lines[0].startswith("info string bad position:")
    assert lines[-2:] == [
        "info string cannot search: " + lines[0][len("info string ") :],
        "bestmove none",
    ]


def test_an_illegal_move_in_the_move_list_is_reported() -> None:
    lines, _ = drive("newgame bao-kingulu\nposition startpos moves a1\ngo movetime 10\n")
    assert lines[0].startswith("info string bad position: a1 is not legal")
    assert lines[-1] == "bestmove none"


def test_an_unknown_variant_is_reported() -> None:
    lines, _ = drive("newgame chess\n")
    known = "bao-la-kete, bao-la-kiswahili, bao-kingulu"
    assert lines == [f"info string unknown variant 'chess'; known variants: {known}"]


def test_a_kpn_text_without_newgame_is_read_as_kingulu() -> None:
    lines, _ = drive(f"position text {KGL_START}\ngo movetime 10\n")
    assert lines == ["bestmove f1"]


def test_setoption_reaches_the_chooser_and_unknown_options_are_reported() -> None:
    seen: list[dict[str, str]] = []

    def choose(position, legal_moves, clock, options):
        seen.append(options)
        return legal_moves[0]

    lines, _ = drive(
        "setoption name Seed value 42\nsetoption name Colour value red\n"
        "newgame bao-kingulu\nposition startpos\ngo movetime 10\n",
        choose,
        options=(Option("Seed", "spin", "0"),),
    )
    assert seen == [{"Seed": "42"}]
    assert lines == ["info string unknown option 'Colour' ignored", "bestmove c1"]


def test_the_replayed_history_grows_move_by_move() -> None:
    lengths: list[int] = []

    def choose(position, legal_moves, clock, history):
        lengths.append(len(history))
        return legal_moves[0]

    drive(
        "newgame bao-kingulu\nposition startpos moves c1\ngo movetime 10\n"
        "position startpos moves c1 a2\ngo movetime 10\n",
        choose,
    )
    assert lengths == [2, 3]


class _StopAwareEngine(Engine):
    """Searches until told to stop, improving ``request.best`` once."""

    name, author, variants = "stopper", "the suite", ("bao-kingulu",)

    def search(self, request: SearchRequest) -> Move:
        request.best = request.legal_moves[-1]
        from engines.sdk import info

        info(string="searching")
        while not request.stopped():
            time.sleep(0.002)
        return request.best


def _pipe_engine(engine: Engine) -> tuple[io.TextIOWrapper, io.TextIOWrapper, threading.Thread]:
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    reader = io.TextIOWrapper(io.FileIO(in_r, "r"), encoding="utf-8")
    writer = io.TextIOWrapper(io.FileIO(out_w, "w"), encoding="utf-8")

    def serve() -> None:
        engine.run(reader, writer)
        writer.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    to_engine = io.TextIOWrapper(io.FileIO(in_w, "w"), encoding="utf-8", line_buffering=True)
    from_engine = io.TextIOWrapper(io.FileIO(out_r, "r"), encoding="utf-8")
    return to_engine, from_engine, thread


def test_stop_ends_a_running_search_and_answers_its_best_move() -> None:
    to_engine, from_engine, thread = _pipe_engine(_StopAwareEngine())
    to_engine.write("newgame bao-kingulu\nposition startpos\ngo movetime 100000\n")
    assert from_engine.readline() == "info string searching\n"
    to_engine.write("isready\n")
    assert from_engine.readline() == "readyok\n"  # liveness is answered during a search
    started = time.monotonic()
    to_engine.write("stop\n")
    assert from_engine.readline() == "bestmove f1\n"
    assert time.monotonic() - started < 1.0
    to_engine.write("quit\n")
    thread.join(2)
    assert not thread.is_alive()
    assert from_engine.read() == ""  # nothing after quit: one bestmove per go


class _StubbornEngine(Engine):
    """Never looks at the stop flag."""

    name, author, variants = "stubborn", "the suite", ("bao-kingulu",)
    stop_grace_ms = 50

    def search(self, request: SearchRequest) -> Move:
        from engines.sdk import info

        info(string="thinking")
        time.sleep(1.0)
        return request.legal_moves[-1]


def test_stop_answers_the_first_legal_move_for_a_search_that_ignores_it() -> None:
    to_engine, from_engine, thread = _pipe_engine(_StubbornEngine())
    to_engine.write("newgame bao-kingulu\nposition startpos\ngo movetime 100000\n")
    assert from_engine.readline() == "info string thinking\n"
    to_engine.write("stop\n")
    assert from_engine.readline() == "bestmove c1\n"
    to_engine.write("quit\n")
    thread.join(3)
    assert from_engine.read() == ""  # the late answer of the search is dropped


def test_a_subprocess_engine_speaks_bep_and_exits_0_at_end_of_input() -> None:
    script = (
        "bep\nisready\nnewgame bao-kingulu\n"
        f"position text {KGL_AFTER_C1}\ngo stime 1000 ntime 1000 sinc 100 ninc 100\n"
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "LANG": "C.UTF-8"}
    done = subprocess.run(
        ["/usr/bin/python3", str(MINIMAL)],
        input=script,
        capture_output=True,
        text=True,
        timeout=30,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "id name minimal",
        "id author Bao Arena docs",
        "variant bao-la-kete",
        "variant bao-la-kiswahili",
        "variant bao-kingulu",
        "bepok",
        "readyok",
        f"bestmove {_most_material_move(KGL_AFTER_C1)}",
    ]


def _most_material_move(text: str) -> str:
    v = get_variant("bao-kingulu")
    p = v.parse_position(text)
    return max(v.legal_moves(p), key=lambda m: material(v.apply(p, m), p.side))


def test_the_minimal_example_is_short_and_executable() -> None:
    assert MINIMAL.read_text().startswith("#!/usr/bin/env python3\n")
    assert len(MINIMAL.read_text().splitlines()) < 30
    assert os.access(MINIMAL, os.X_OK)


# ------------------------------------------------------------------ clocks


def test_parse_go_reads_both_clocks_for_north() -> None:
    clock = parse_go(
        ["stime", "60000", "ntime", "55000", "sinc", "1000", "ninc", "500"], "N", started=5.0
    )
    assert clock == Clock(55000, 60000, 500, 1000, None, 5.0)


def test_parse_go_reads_movetime_and_skips_junk() -> None:
    assert parse_go(["movetime", "300", "nodes", "x"], "S", started=1.0) == Clock(
        movetime_ms=300, started=1.0
    )
    assert parse_go(["stime", "abc", "ntime", "10"], "S", 1.0).my_ms == 0
    assert parse_go([], "S", 1.0) == Clock(movetime_ms=1000, started=1.0)


@pytest.mark.parametrize(
    ("clock", "budget"),
    [
        (Clock(movetime_ms=100), 85),  # minus the 15 ms margin
        (Clock(movetime_ms=20), 16),  # the margin is at most a fifth
        (Clock(movetime_ms=1000), 950),  # and 5 % of a long movetime
        (Clock(my_ms=1000, my_inc_ms=100), 1000 // 30 + 90 - 15),
        (Clock(my_ms=10000, my_inc_ms=100), 10000 // 30 + 90 - 15),
        (Clock(my_ms=60, my_inc_ms=100), 30 - 15),  # never more than half the clock
        (Clock(my_ms=0, my_inc_ms=0), 1),
    ],
)
def test_the_budget_follows_the_clock(clock: Clock, budget: int) -> None:
    assert clock.budget_ms() == budget


def test_the_deadline_is_the_start_plus_the_budget() -> None:
    clock = Clock(movetime_ms=515, started=100.0)
    assert clock.deadline() == pytest.approx(100.49)  # 515 ms minus a 25 ms margin


# ------------------------------------------------------------------ reading positions


def test_view_reads_kpn_with_reserved_holes() -> None:
    v = get_variant("bao-kingulu")
    seen = view(v.parse_position("0,2,1,7,1,2/8,7,5n,0,1,7 S 7:0 2"))
    assert (seen.family, seen.side, seen.ply) == ("kingulu", "S", 2)
    assert seen.south.front == (8, 7, 0, 0, 1, 7) and seen.south.store == 7
    assert seen.north.front == (0, 2, 1, 7, 1, 2)
    assert (seen.north.reserved, seen.north.reserved_holes) == (5, 1)
    assert (seen.south.total, seen.north.total) == (7 + 23, 13 + 5)


class _Text:
    """A position given only by its text: ``view`` reads nothing else."""

    def __init__(self, text: str) -> None:
        self.text = text

    def to_text(self) -> str:
        return self.text


def test_view_reads_bpn_rows_reserves_and_houses() -> None:
    start = "0,0,0,0,0,0,0,0/0,2,2,6,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 S 22:22 n H- - 0"
    seen = view(_Text(start))  # type: ignore[arg-type]
    assert seen.family == "bao"
    assert seen.south.front == (0, 0, 0, 0, 6, 2, 2, 0) and seen.south.back == (0,) * 8
    assert seen.north.front == (0, 2, 2, 6, 0, 0, 0, 0)
    assert (seen.south.store, seen.north.store) == (22, 22)
    assert (seen.south.nyumba, seen.north.nyumba) == (True, False)
    assert material(_Text(start), "S") == 0  # type: ignore[arg-type]


def test_material_is_the_kingulu_score_difference() -> None:
    v = get_variant("bao-kingulu")
    p = v.parse_position(KGL_AFTER_C1)  # scores South 34, North 14 (KGL-E1)
    assert material(p, "S") == 20
    assert material(p, "N") == -20


def test_the_protocol_guide_shows_the_minimal_example_as_it_is() -> None:
    guide = (ROOT / "docs" / "protocol.md").read_text()
    assert "```python\n" + MINIMAL.read_text() + "```\n" in guide


class _BrokenHookEngine(Engine):
    name, author, variants = "broken-hook", "the suite", ("bao-kingulu",)

    def on_newgame(self, variant) -> None:
        raise KeyError("no opening book")


def test_an_exception_in_a_hook_is_reported_and_the_engine_goes_on() -> None:
    out = io.StringIO()
    status = _BrokenHookEngine().run(
        io.StringIO("newgame bao-kingulu\nisready\nposition startpos\ngo movetime 10\n"), out
    )
    assert out.getvalue().splitlines() == [
        "info string error handling 'newgame bao-kingulu': KeyError: 'no opening book'",
        "readyok",
        "bestmove c1",
    ]
    assert status == 0


def test_non_utf8_input_is_an_unknown_command_not_an_exit() -> None:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "LANG": "C.UTF-8"}
    done = subprocess.run(
        ["/usr/bin/python3", str(MINIMAL)],
        input=(
            b"\xff\xfe garbage\nisready\nnewgame bao-kingulu\nposition startpos\ngo movetime 10\n"
        ),
        capture_output=True,
        timeout=30,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().splitlines() == ["readyok", "bestmove c1"]


def test_it_still_answers_when_no_search_thread_can_start(monkeypatch: pytest.MonkeyPatch) -> None:
    # Inside the sandbox the process limit can forbid new threads; the engine must not die.
    def refuse(self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", refuse)
    lines, status = drive("newgame bao-kingulu\nposition startpos\ngo movetime 10\nstop\nquit\n")
    assert bestmoves(lines) == ["f1"]
    assert status == 0
