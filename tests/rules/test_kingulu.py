"""Bao Kingulu against the worked examples of the rule text (``docs/rules/bao-kingulu.md`` section
6; KGL-E1..E9 are their names in the first rule text) and the KPN rules of
``docs/rules/README.md`` 7.2 and 7.3."""

from __future__ import annotations

import pytest

from arena.rules import (
    SCORE,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    Outcome,
    RulesError,
    get_variant,
)
from arena.rules.kingulu import MAX_LAPS, BaoKingulu, KinguluPosition

START = "4,4,4,4,4,4/4,4,4,4,4,4 S 0:0 0"


@pytest.fixture(scope="module")
def v() -> BaoKingulu:
    variant = get_variant("bao-kingulu")
    assert isinstance(variant, BaoKingulu)
    return variant


def after(v: BaoKingulu, text: str, move: str) -> str:
    return v.apply(v.parse_position(text), move).to_text()


def legal(v: BaoKingulu, text: str) -> list[str]:
    return [str(m) for m in v.legal_moves(v.parse_position(text))]


# --------------------------------------------------------------------------- worked examples


def test_e1_opening_allows_only_c1_to_f1(v: BaoKingulu) -> None:
    assert legal(v, START) == ["c1", "d1", "e1", "f1"]
    assert v.initial_position().to_text() == START


def test_e1_c1_relays_four_times_and_captures_e2(v: BaoKingulu) -> None:
    p = v.parse_position(START)
    assert v.laps(p, "c1") == [
        ("c1", 4, "f2"),
        ("f2", 5, "a2"),
        ("a2", 5, "e1"),
        ("e1", 6, "b2"),
        ("b2", 6, "e1"),
    ]
    q = v.apply(p, "c1")
    assert q.to_text() == "1,0,6,6,0,1/6,6,2,7,0,6 N 7:0 1"
    assert q.scores() == (34, 14)
    assert v.limit_outcome(q, "ply_cap") == Outcome("S", "ply_cap", scores=(34, 14))


def test_e1_e1_ends_in_an_emptied_opponent_hole_without_capture(v: BaoKingulu) -> None:
    p = v.parse_position(START)
    assert v.laps(p, "e1") == [
        ("e1", 4, "d2"),
        ("d2", 5, "b1"),
        ("b1", 5, "f2"),
        ("f2", 6, "a1"),
        ("a1", 6, "f2"),
    ]
    assert after(v, START, "e1") == "6,6,6,1,6,1/0,1,6,6,2,7 N 0:0 1"


E2 = "4,4,4,4,4,3/4,4,4,4,2,1 S 3:3 10"


def test_e2_legal_moves(v: BaoKingulu) -> None:
    assert legal(v, E2) == ["c1", "d1", "e1", "f1"]


@pytest.mark.parametrize(
    ("move", "expected"),
    [
        ("e1", "4,4,4,4,4,5s/4,4,4,4,0,1 N 3:3 11"),  # penultimate seed from f1 moves to f2
        ("f1", "4,4,4,4,4,4s/4,4,4,4,2,0 N 3:3 11"),  # singleton lap: nothing moves (G-5)
        ("c1", "4,4,4,4,4,5s/4,4,0,5,3,1 N 3:3 11"),
    ],
)
def test_e2_kuweka_mtoto(v: BaoKingulu, move: str, expected: str) -> None:
    assert after(v, E2, move) == expected


def test_e3_kuweka_mtoto_on_a_relay_lap(v: BaoKingulu) -> None:
    text = "4,3,1,0,2,4/4,4,4,4,3,0 S 8:7 10"
    assert legal(v, text) == ["b1", "c1", "d1", "e1"]
    assert v.laps(v.parse_position(text), "e1") == [("e1", 3, "e2"), ("e2", 3, "b2")]
    assert after(v, text, "e1") == "4,5s,1,1,0,5/4,4,4,4,0,1 N 8:7 11"


E4 = "4,4,4,5s,4,4/2,4,5n,4,1,0 S 3:4 20"


def test_e4_legal_moves_skip_the_hole_north_reserved(v: BaoKingulu) -> None:
    assert legal(v, E4) == ["a1", "b1", "d1", "e1"]


@pytest.mark.parametrize(
    ("move", "expected"),
    [
        ("a1", "4,4,4,5s,4,4/0,5,5n,4,1,0 N 3:5 21"),  # first lap ends in c1, North's mtoto
        ("d1", "5,5,5,5s,0,5/0,5,5n,1,2,1 N 4:5 21"),  # sinks on the way, no capture from d2
        ("e1", "4,4,4,5s,4,0/2,4,5n,4,0,0 N 8:4 21"),  # singleton captures f2
    ],
)
def test_e4_reserved_holes_are_sinks(v: BaoKingulu, move: str, expected: str) -> None:
    assert after(v, E4, move) == expected


def test_e4_d1_trace(v: BaoKingulu) -> None:
    assert v.laps(v.parse_position(E4), "d1") == [
        ("d1", 4, "e2"),
        ("e2", 5, "a1"),
        ("a1", 3, "d1"),
    ]


E5 = "4,4,4,4,4,3/4,4,4,4,2,4n S 1:2 14"


def test_e5_banked_penultimate_seed_is_not_moved(v: BaoKingulu) -> None:
    assert legal(v, E5) == ["b1", "c1", "d1", "e1"]
    assert after(v, E5, "e1") == "4,4,4,4,4,4s/4,4,4,4,0,4n N 1:3 15"


def test_e5_b1_ends_its_first_lap_in_norths_mtoto(v: BaoKingulu) -> None:
    assert v.laps(v.parse_position(E5), "b1") == [("b1", 4, "f1")]
    assert after(v, E5, "b1") == "4,4,4,4,4,3/4,0,5,5,3,4n N 1:3 15"


def test_e6_capture_facing_an_empty_hole_ends_the_game(v: BaoKingulu) -> None:
    text = "0,0,0,0,0,0/4,4,4,4,1,0 S 10:21 30"
    assert legal(v, text) == ["b1", "c1", "d1", "e1"]
    assert v.outcome(v.parse_position(text)) is None
    q = v.apply(v.parse_position(text), "e1")
    assert q.to_text() == "0,0,0,0,0,0/4,4,4,4,0,1 N 10:21 31"
    assert v.legal_moves(q) == []
    assert v.outcome(q) == Outcome("S", SCORE, scores=(27, 21))


def test_e7_twenty_four_all_is_a_draw(v: BaoKingulu) -> None:
    p = v.parse_position("0,0,0,0,0,0/2,2,2,2,2,2 N 12:24 41")
    assert v.legal_moves(p) == []
    o = v.outcome(p)
    assert o == Outcome(None, "score", scores=(24, 24))
    assert o is not None and o.result == "1/2-1/2"


def test_e8_single_seeds_may_be_played(v: BaoKingulu) -> None:
    assert "f1" in legal(v, E2) and "e1" in legal(v, E4)
    assert v.parse_position(E4).count("e1") == 1


E9 = "1,2,0,1,2,3/3,2,1,2,1,2 S 0:28 0"


def test_e9_no_legal_move_because_of_the_first_lap_rule_and_a_never_ending_move(
    v: BaoKingulu,
) -> None:
    p = v.parse_position(E9)
    assert v.legal_moves(p) == []
    assert v.outcome(p) == Outcome("N", "score", scores=(11, 37))
    for move in ("a1", "b1", "c1", "d1", "e1"):
        (lap,) = v.laps(p, move)  # one lap, ending in an own occupied hole
        assert lap[0] == move


def test_e9_f1_returns_to_its_first_lap_state_after_48_laps(v: BaoKingulu) -> None:
    laps = v.laps(v.parse_position(E9), "f1")
    assert laps[:3] == [("f1", 2, "e2"), ("e2", 3, "b2"), ("b2", 3, "b1")]
    period = next(k for k in range(1, len(laps)) if laps[k:] == laps[: len(laps) - k])
    assert period == 48
    assert len(laps) < MAX_LAPS  # stopped early at a repeated lap state


def test_e9_is_a_test_position_that_strict_parsing_rejects(v: BaoKingulu) -> None:
    with pytest.raises(InvalidPositionError, match="ply 0"):
        v.parse_position(E9, strict=True)


# --------------------------------------------------------------------------- edge cases


def test_a_twelve_seed_lap_ends_in_its_own_emptied_start_hole_and_captures(v: BaoKingulu) -> None:
    # c1 holds 12: every hole gets one seed, the last one lands in c1 itself (G-6), now 1,
    # so it was empty: capture of d2 (0 + 1 = 1 seeds) plus the sown seed.
    text = "0,0,0,0,0,0/0,0,12,0,0,0 S 0:36 2"
    assert v.laps(v.parse_position(text), "c1") == [("c1", 12, "c1")]
    assert after(v, text, "c1") == "1,1,0,1,1,1/1,1,0,1,1,1 N 2:36 3"


def test_a_wrap_around_lap_pays_every_mtoto_it_passes(v: BaoKingulu) -> None:
    # 13 seeds from a1: one circuit (its f2 seed goes to South's bank) plus b1, which then
    # holds 2: the first lap ends in an own occupied hole, so South has no legal move.
    text = "0,0,0,0,0,4s/13,0,0,0,0,0 S 0:31 2"
    assert v.laps(v.parse_position(text), "a1") == [("a1", 13, "b1")]
    assert legal(v, text) == []


def test_huge_counts_are_sown_arithmetically(v: BaoKingulu) -> None:
    # f1 holds 12 * 10**15 + 6: 10**15 circuits pay 6 seeds each into South's watoto on rank 2
    # and 5 into North's on rank 1 and leave 10**15 in f1; the last 6 seeds go to f2..a2 (South's
    # watoto), so the lap ends in a reserved hole (rule 1).
    text = "4s,4s,4s,4s,4s,4s/4n,4n,4n,4n,4n,12000000000000006 S 0:0 2"
    assert after(v, text, "f1") == (
        "4s,4s,4s,4s,4s,4s/4n,4n,4n,4n,4n,1000000000000000 N 6000000000000006:5000000000000000 3"
    )


def test_positions_are_hashable_values(v: BaoKingulu) -> None:
    a = v.parse_position(START)
    b = v.parse_position("  " + START + "\n")
    assert a == b and hash(a) == hash(b) and a is not b
    with pytest.raises(AttributeError):
        a.ply = 3  # type: ignore[misc]
    assert a != v.parse_position("4,4,4,4,4,4/4,4,4,4,4,4 S 0:0 2")
    assert a.repetition_key == v.parse_position("4,4,4,4,4,4/4,4,4,4,4,4 S 0:0 2").repetition_key


@pytest.mark.parametrize(
    "text",
    [
        START,
        "4,4,4,4,4,5s/4,4,0,5,3,1 N 3:3 11",
        "5,5,5,5s,0,5/0,5,5n,1,2,1 N 4:5 21",
        "0,0,0,0,0,0/0,0,0,0,0,0 N 48:0 7",
    ],
)
def test_to_text_round_trips(v: BaoKingulu, text: str) -> None:
    assert v.parse_position(text).to_text() == text


@pytest.mark.parametrize(
    "text",
    [
        "",
        "4,4,4,4,4,4/4,4,4,4,4 S 0:0 0",  # five cells
        "4,4,4,4,4,4/4,4,4,4,4,4,4 S 0:0 0",
        "4,4,4,4,4,4/4,4,4,4,4,4 X 0:0 0",
        "4,4,4,4,4,4/4,4,4,4,4,4 s 0:0 0",
        "4,4,4,4,4,4/4,4,4,4,4,4 S 0:-1 0",
        "4,4,4,4,4,4/4,4,4,4,4,4 S 0:0 -1",
        "4,4,4,4,4,4/4,4,4,4,4,4 S 0:0",
        "4,4,4,4,4,4/4,4,4,4,4,4 S 0 0",
        "4,4,4,4,4,4/4,4,4,4,4,-4 S 0:0 0",
        "4,4,4,4,4,4/4,4,4,4,4,4.0 S 0:0 0",
        "4,4,4,4,4,4/4,4,4,4,4,\u0664 S 0:0 0",  # an Arabic-Indic digit
        "4,4,4,4,4,4n/4,4,4,4,4,4 S 0:0 0",  # North cannot reserve on rank 2
        "4,4,4,4,4,4/4,4,4,4,4,4s S 0:0 0",  # South cannot reserve on rank 1
        "4,4,4,4,4,4/4,4,4,4,4,4x S 0:0 0",
        "4,4,4,4,4,4/4,4,4,4,4,4 S 0:0 0 extra",
        "4,4,4,4,4,4/4,4,4,4,4,4  S 0:0 0",
        "4,4,4,4,4,4/4,4,4,4,4,4 S 0:0 " + "9" * 5000,  # too long to be a count
        "0,0,0,0,0,0,0,0/0,2,2,6,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 S 22:22 n HH - 0",
    ],
)
def test_parse_position_rejects_first_tier_violations(v: BaoKingulu, text: str) -> None:
    with pytest.raises(InvalidPositionError):
        v.parse_position(text)


def test_parse_position_rejects_a_non_string(v: BaoKingulu) -> None:
    with pytest.raises(InvalidPositionError):
        v.parse_position(None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("4,4,4,4,4,4/4,4,4,4,4,4 S 1:0 2", "49 seeds"),
        ("4,4,4,4,4,4/4,4,4,4,4,4 N 0:0 2", "N to move at ply 2"),
        (
            "4,4,4,4,4,4/4,4,4,4,4,4 S 0:0 0".replace("4/", "3/", 1).replace("S 0:0", "S 1:0"),
            "ply 0",
        ),
        ("4,4,4,4,4,6s/4,4,4,4,4,2 S 0:0 4", "holds 6"),
    ],
)
def test_strict_parsing_checks_reachable_invariants(v: BaoKingulu, text: str, message: str) -> None:
    v.parse_position(text)  # first tier accepts it
    with pytest.raises(InvalidPositionError, match=message):
        v.parse_position(text, strict=True)


def test_strict_parsing_accepts_reached_positions(v: BaoKingulu) -> None:
    v.parse_position(START, strict=True)
    v.parse_position("1,0,6,6,0,1/6,6,2,7,0,6 N 7:0 1", strict=True)


@pytest.mark.parametrize("token", ["a1", "f2", "c2", "e1"])
def test_parse_move_accepts_squares(v: BaoKingulu, token: str) -> None:
    assert v.parse_move(token) == token and str(v.parse_move(token)) == token


@pytest.mark.parametrize("token", ["", "a", "a3", "g1", "A1", "a1+", " a1", "a1\n", "a0", 1, None])
def test_parse_move_rejects_everything_else(v: BaoKingulu, token: object) -> None:
    with pytest.raises(InvalidMoveError):
        v.parse_move(token)  # type: ignore[arg-type]


def test_apply_rejects_an_opponent_hole_an_empty_hole_and_an_illegal_hole(v: BaoKingulu) -> None:
    p = v.parse_position(E4)
    for token in ("a2", "c1", "f1"):  # a hole of North, North's mtoto, an empty hole
        with pytest.raises(IllegalMoveError):
            v.apply(p, token)
    with pytest.raises(IllegalMoveError):
        v.apply(v.parse_position(START), "a1")  # first-lap rule


def test_foreign_positions_are_rejected_with_a_rules_error(v: BaoKingulu) -> None:
    with pytest.raises(RulesError):
        v.legal_moves("4,4,4,4,4,4/4,4,4,4,4,4 S 0:0 0")  # type: ignore[arg-type]


def test_limit_outcome_rejects_a_non_limit_reason(v: BaoKingulu) -> None:
    with pytest.raises(ValueError):
        v.limit_outcome(v.initial_position(), "score")


def test_scores_count_watoto_for_their_owner(v: BaoKingulu) -> None:
    p = v.parse_position("4,4,4,5s,4,4/2,4,5n,4,1,0 S 3:4 20")
    # South: bank 3 + a1 b1 d1 e1 f1 (2+4+4+1+0) + d2 (5) = 19; North: 4 + 4+4+4+4+4 + c1 (5) = 29
    assert p.scores() == (19, 29)
    assert isinstance(p, KinguluPosition)
