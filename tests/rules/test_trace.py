"""Sowing traces (``Variant.trace``) against the worked examples of bao-la-kiswahili.md 9,
bao-la-kete.md 4 and bao-kingulu.md 5 (their lap notation ``start(seeds)->last``, the pits
they name), and against ``apply`` on every ply of random games and of the AbstractPlay data:
the trace's steps, applied to the board before the move, give the board after it."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from arena.rules import IllegalMoveError, InvalidMoveError, Variant, get_variant
from arena.rules.bao_board import SQUARES, BaoPosition
from arena.rules.kingulu import KinguluPosition
from arena.rules.trace import MAX_STEPS, SowingTrace, TraceTooLongError

KSW = get_variant("bao-la-kiswahili")
KETE = get_variant("bao-la-kete")
KGL = get_variant("bao-kingulu")
DATA = Path(__file__).resolve().parent.parent / "data" / "kiswahili-abstractplay-dev.jsonl"

E4 = "5,5,5,5,5,5,5,4/2,0,5,0,0,0,0,0/0,0,1,0,7,0,0,0/0,0,0,0,0,0,0,0 S 5:5 n H- - 34"
E7 = "3,3,3,3,3,3,3,2/2,0,2,2,7,0,2,2/0,0,2,0,1,0,1,0/4,4,2,2,2,2,2,2 S 0:0 m -- - 80"
E10 = "0,1,2,1,4,8,2,2/10,0,0,10,2,1,0,1/0,2,0,0,1,1,0,0/0,0,2,2,0,2,6,4 N 0:0 m -- e3 101"
TAX = "5,5,5,5,5,5,2,2/2,0,2,0,0,0,0,0/0,0,0,0,6,0,0,0/0,0,0,0,0,0,0,0 S 10:10 n H- - 24"


def trace(variant: Variant, text: str, move: str) -> SowingTrace:
    return variant.trace(variant.parse_position(text), move)


def ops(t: SowingTrace, *kinds: str) -> list[tuple[str, str, str]]:
    """``(op, square, rule)`` of the steps whose op is one of ``kinds``."""
    return [(s.op, s.square, s.rule) for s in t.steps if s.op in kinds]


def counts(position: object) -> dict[str, int]:
    if isinstance(position, BaoPosition):
        return {SQUARES[o][i]: position.pits[o][i] for o in (0, 1) for i in range(16)}
    assert isinstance(position, KinguluPosition)
    return {f"{f}{r}": position.count(f"{f}{r}") for f in "abcdef" for r in "12"}


def replayed(before: object, t: SowingTrace) -> dict[str, int]:
    board = counts(before)
    for step in t.steps:
        board[step.square] = step.count
    return board


# --------------------------------------------------------------------------- Bao examples


def test_ksw_e1_puts_the_reserve_seed_in_f2_and_sows_three_anticlockwise() -> None:
    text = "0,0,0,0,0,0,0,0/0,2,2,6,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 S 22:22 n HH - 0"
    t = trace(KSW, text, "f2-")
    assert [(s.op, s.square, s.count) for s in t.steps] == [
        ("reserve", "f2", 3),
        ("lift", "f2", 0),
        ("sow", "e2", 7),
        ("sow", "d2", 1),
        ("sow", "c2", 1),
        ("end", "c2", 1),
    ]
    assert t.direction == "anticlockwise" and t.ended == "empty"
    assert [str(lap) for lap in t.laps] == ["f2(3)->c2"]


def test_ksw_e7_captures_three_times_with_a_kimbi_reversal() -> None:
    t = trace(KSW, E7, "c2+")
    assert [str(lap) for lap in t.laps] == [
        "c2(2)->e2",
        "e3(7)->g2",
        "g3(2)->g2",
        "g2(3)->d2",
        "d3(2)->g2",
    ]
    assert ops(t, "capture", "kichwa") == [
        ("capture", "e3", ""),
        ("kichwa", "a2", "direction"),  # e2 is central, the direction + is kept
        ("capture", "g3", ""),
        ("kichwa", "h2", "kimbi"),  # g2 is a right kimbi: enter at h2, now anticlockwise
        ("capture", "d3", ""),
        ("kichwa", "h2", "direction"),
    ]
    assert [s.direction for s in t.steps if s.op == "kichwa"] == ["+", "-", "-"]
    assert [s.seeds for s in t.steps if s.op == "capture"] == [7, 2, 2]
    assert t.squares("sow")[:2] == ["d2", "e2"]
    assert t.steps[-1].square == "g2" and t.ended == "empty"


def test_ksw_e4_stop_ends_in_the_nyumba_and_safari_destroys_it() -> None:
    stop = trace(KSW, E4, "c2+s")
    assert ops(stop, "nyumba", "end") == [("nyumba", "e2", "stop"), ("end", "e2", "nyumba")]
    safari = trace(KSW, E4, "c2+c")
    assert ops(safari, "nyumba", "lift") == [
        ("nyumba", "e2", "safari"),
        ("lift", "e2", "relay"),
        ("nyumba", "e2", "destroyed"),
    ]
    assert safari.squares("sow")[-8:] == ["f2", "g2", "h2", "h1", "g1", "f1", "e1", "d1"]
    assert [str(lap) for lap in safari.laps] == ["c3(5)->e2", "e2(8)->d1"]


def test_ksw_e3_a_namua_takata_stops_in_the_functional_nyumba() -> None:
    text = "3,3,3,3,3,3,3,2/3,3,0,3,0,3,3,3/0,0,1,0,6,0,0,0/0,0,0,0,0,0,0,0 S 8:8 n H- - 28"
    t = trace(KSW, text, "c2+")
    assert t.ended == "nyumba"
    assert [str(lap) for lap in t.laps] == ["c2(2)->e2"]


def test_ksw_e5_the_tax_lifts_two_and_kete_d1_empties_a_six_seed_kuu() -> None:
    t = trace(KSW, TAX, "e2+")
    assert ops(t, "lift", "nyumba") == [("lift", "e2", ""), ("nyumba", "e2", "tax")]
    assert t.steps[1].seeds == 2 and t.steps[1].count == 5
    kete = trace(KETE, TAX, "e2+")
    assert ops(kete, "nyumba") == [("nyumba", "e2", "tax"), ("nyumba", "e2", "destroyed")]
    assert kete.steps[1].seeds == 7 and kete.steps[1].count == 0


def test_ksw_e6_lifting_an_owned_nyumba_destroys_it() -> None:
    text = "4,4,3,3,3,3,3,3/3,3,0,3,0,3,3,3/0,0,1,0,5,0,0,0/0,0,0,0,0,0,0,0 S 7:7 n H- - 30"
    t = trace(KSW, text, "e2-")
    assert ops(t, "nyumba") == [("nyumba", "e2", "destroyed")]
    assert t.squares("sow") == ["d2", "c2", "b2", "a2", "a1", "b1"]


def test_ksw_e8a_a_seventeen_seed_lap_passes_its_start_and_relays_eight_times() -> None:
    text = "4,4,4,4,4,2,2,2/2,2,2,2,2,2,2,3/1,0,1,0,1,0,1,0/0,0,0,0,0,0,0,17 S 0:0 m -- - 90"
    t = trace(KSW, text, "h1-")
    assert [lap.start for lap in t.laps] == ["h1", "h2", "f2", "d2", "b2", "a1", "c1", "e1", "g1"]
    assert str(t.laps[0]) == "h1(17)->h2"
    assert t.laps[-1].last == "h2"


def test_ksw_e10_the_reply_ends_in_the_marked_pit_after_five_laps() -> None:
    t = trace(KSW, E10, "a3-")
    assert len(t.laps) == 5 and t.laps[0].start == "a3" and t.laps[0].seeds == 10
    assert (t.ended, t.steps[-1].square, t.steps[-1].count) == ("takasia", "e3", 5)


def test_ksw_e12_a_win_in_the_middle_of_a_move_keeps_the_seeds_in_hand() -> None:
    text = "6,6,6,6,6,6,6,6/0,0,3,0,0,0,0,0/0,0,1,0,6,2,0,0/0,0,0,0,0,0,0,0 S 2:2 n H- - 40"
    t = trace(KSW, text, "c2-")
    assert ops(t, "reserve", "capture", "end") == [
        ("reserve", "c2", ""),
        ("capture", "c3", ""),
        ("end", "c2", "won"),
    ]
    assert t.steps[-1].hand == 3 and t.laps == ()


def test_a_capture_of_the_opponents_nyumba_is_named() -> None:
    # bao-la-kiswahili.md 5 step 1: South's d2 faces North's owned nyumba d3 (hand-made).
    text = "0,0,0,0,0,0,0,0/2,0,0,7,0,0,0,0/0,0,0,1,6,0,0,0/0,0,0,0,0,0,0,0 S 20:20 n HH - 4"
    t = trace(KSW, text, "d2+")
    assert ops(t, "capture", "nyumba", "kichwa") == [
        ("capture", "d3", ""),
        ("nyumba", "d3", "captured"),
        ("kichwa", "a2", "direction"),
    ]


# --------------------------------------------------------------------------- Kingulu examples


def test_kgl_e1_c1_relays_four_times_and_banks_the_capture() -> None:
    t = trace(KGL, "4,4,4,4,4,4/4,4,4,4,4,4 S 0:0 0", "c1")
    assert [str(lap) for lap in t.laps] == [
        "c1(4)->f2",
        "f2(5)->a2",
        "a2(5)->e1",
        "e1(6)->b2",
        "b2(6)->e1",
    ]
    captures = [(s.square, s.seeds, s.side, s.bank) for s in t.steps if s.op == "capture"]
    assert captures == [("e2", 6, "S", 6), ("e1", 1, "S", 7)]
    assert t.direction == "anticlockwise"


def test_kgl_e2_kuweka_mtoto_moves_the_penultimate_seed_except_after_a_single_seed() -> None:
    text = "4,4,4,4,4,3/4,4,4,4,2,1 S 3:3 10"
    t = trace(KGL, text, "e1")
    assert [(s.op, s.square, s.count) for s in t.steps[-4:]] == [
        ("mtoto", "f2", 4),
        ("lift", "f1", 1),
        ("sow", "f2", 5),
        ("end", "f2", 5),
    ]
    assert t.steps[-4].side == "S" and t.ended == "mtoto"
    single = trace(KGL, text, "f1")
    assert [s.op for s in single.steps] == ["lift", "sow", "mtoto", "end"]


def test_kgl_e4_seeds_sown_into_reserved_holes_go_to_their_owners_banks() -> None:
    t = trace(KGL, "4,4,4,5s,4,4/2,4,5n,4,1,0 S 3:4 20", "d1")
    assert [str(lap) for lap in t.laps] == ["d1(4)->e2", "e2(5)->a1", "a1(3)->d1"]
    banked = [(s.square, s.side, s.bank, s.count) for s in t.steps if s.op == "bank"]
    assert banked == [("d2", "S", 4, 5), ("c1", "N", 5, 5)]
    assert t.ended == "empty" and "capture" not in {s.op for s in t.steps}


def test_kgl_e5_a_lap_ending_in_a_reserved_hole_ends_the_move() -> None:
    t = trace(KGL, "4,4,4,4,4,3/4,4,4,4,2,4n S 1:2 14", "b1")
    assert t.ended == "reserved" and t.steps[-1].square == "f1"


# --------------------------------------------------------------------------- every ply


def _check_ply(variant: Variant, before: object, move: str) -> None:
    t = variant.trace(before, move)  # type: ignore[arg-type]
    after = variant.apply(before, move)  # type: ignore[arg-type]
    assert replayed(before, t) == counts(after), (before, move)
    assert t.steps[-1].op == "end" and t.move == move
    assert sum(lap.seeds for lap in t.laps) == sum(
        1 for s in t.steps if s.op in ("sow", "bank")
    ) - sum(1 for s in t.steps if s.op == "sow" and s.rule == "mtoto")


@pytest.mark.parametrize("variant_id", ["bao-la-kete", "bao-la-kiswahili", "bao-kingulu"])
def test_the_steps_of_every_move_of_random_games_give_the_position_apply_gives(
    variant_id: str,
) -> None:
    variant = get_variant(variant_id)
    rng = random.Random(20)
    for _ in range(6):
        game = variant.new_game()
        while not game.is_over:
            move = rng.choice(game.legal_moves())
            _check_ply(variant, game.position, move)
            game.play(move)


def test_the_steps_of_every_abstractplay_turn_give_the_position_apply_gives() -> None:
    with DATA.open(encoding="utf-8") as handle:
        games = [json.loads(line) for line in handle]
    checked = 0
    for game in games[:40]:
        for turn in game["turns"]:
            before = KSW.parse_position(turn["before"])
            for move in KSW.legal_moves(before):
                _check_ply(KSW, before, move)
                checked += 1
    assert checked > 5000


def test_a_trace_is_json_ready() -> None:
    data = trace(KSW, E7, "c2+").to_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["laps"][0] == "c2(2)->e2" and data["ended"] == "empty"
    assert data["steps"][0] == {"op": "lift", "square": "c2", "count": 0, "hand": 2, "seeds": 2}


def test_only_legal_moves_are_traced() -> None:
    with pytest.raises(IllegalMoveError):
        trace(KSW, E7, "a2+")
    with pytest.raises(InvalidMoveError):
        trace(KSW, E7, "z9")
    with pytest.raises(IllegalMoveError):
        trace(KGL, "4,4,4,4,4,4/4,4,4,4,4,4 S 0:0 0", "a1")  # first-lap rule


def test_a_move_too_long_to_trace_is_refused_at_once() -> None:
    text = "4s,4s,4s,4s,4s,4s/4n,4n,4n,4n,4n,12000000000000006 S 0:0 2"
    with pytest.raises(TraceTooLongError, match=str(MAX_STEPS)):
        trace(KGL, text, "f1")
