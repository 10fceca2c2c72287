"""BPN parsing (README 5.1, both validity tiers), round-trips and move tokens (README 4.1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.rules import InvalidMoveError, InvalidPositionError, Move, get_variant
from arena.rules.bao_board import BaoPosition

KSW = get_variant("bao-la-kiswahili")
KETE = get_variant("bao-la-kete")
START = "0,0,0,0,0,0,0,0/0,2,2,6,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 S 22:22 n HH - 0"
E10_AFTER = "0,1,2,1,4,8,2,2/10,0,0,10,2,1,0,1/0,2,0,0,1,1,0,0/0,0,2,2,0,2,6,4 N 0:0 m -- e3 101"
DATA = Path(__file__).resolve().parent.parent / "data" / "kiswahili-abstractplay-dev.jsonl"


def test_the_start_position_is_the_spec_text_in_both_games() -> None:
    for variant in (KSW, KETE):
        start = variant.initial_position()
        assert start.to_text() == START
        assert start.side == "S" and start.ply == 0 and start.stage == "n"
        assert start.pits[0] == (0, 0, 0, 0, 6, 2, 2, 0) + (0,) * 8  # relative indices
        assert start.pits[1] == (0, 0, 0, 0, 6, 2, 2, 0) + (0,) * 8
        assert variant.parse_position(START, strict=True) == start


def test_relative_indices_follow_readme_2_2() -> None:
    # One seed in each named square; the tuple positions are the relative indices of README 2.2.
    position = KSW.parse_position(
        "1,0,0,0,0,0,0,2/3,0,0,0,0,0,0,4/5,0,0,0,0,0,0,6/7,0,0,0,0,0,0,8 S 0:0 m -- - 9"
    )
    south, north = position.pits
    assert (south[0], south[7], south[8], south[15]) == (5, 6, 8, 7)  # a2 h2 h1 a1
    assert (north[0], north[7], north[8], north[15]) == (4, 3, 1, 2)  # h3 a3 a4 h4


def test_every_abstractplay_position_round_trips() -> None:
    texts = []
    with DATA.open(encoding="utf-8") as handle:
        for line in handle:
            for turn in json.loads(line)["turns"]:
                texts.append(turn["before"])
    for text in texts:
        position = KSW.parse_position(text)
        assert position.to_text() == text
        assert KSW.parse_position(position.to_text()) == position
        assert hash(position) == hash(KSW.parse_position(text))


def test_positions_are_immutable_hashable_values() -> None:
    position = KSW.parse_position(E10_AFTER)
    with pytest.raises(AttributeError):
        position.side = "S"  # type: ignore[misc]
    later = KSW.parse_position(E10_AFTER.replace(" 101", " 1001"))
    assert later != position
    assert later.repetition_key == position.repetition_key
    assert {position: 1}[KSW.parse_position(E10_AFTER)] == 1
    assert isinstance(position, BaoPosition)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("", "7 space-separated fields", id="empty"),
        pytest.param(START + " extra", "7 space-separated fields", id="eight fields"),
        pytest.param(START.replace("/0,0,0,0,0,0,0,0 S", " S"), "4 ranks", id="three ranks"),
        pytest.param(
            START.replace("0,2,2,6,0,0,0,0", "0,2,2,6,0,0,0"),
            "8 seed counts",
            id="seven counts",
        ),
        pytest.param(
            START.replace("0,2,2,6", "0,-2,2,6"),
            "non-negative integer",
            id="negative count",
        ),
        pytest.param(
            START.replace("0,2,2,6", "0,x,2,6"),
            "non-negative integer",
            id="not a number",
        ),
        pytest.param(START.replace("0,2,2,6", "0,2.5,2,6"), "non-negative integer", id="fraction"),
        pytest.param(
            START.replace("0,2,2,6", "0,1234567890,2,6"),
            "at most 9 digits",
            id="absurd count",
        ),
        pytest.param(START.replace(" S ", " W "), "side to move", id="bad side"),
        pytest.param(START.replace("22:22", "22"), "reserves", id="one reserve"),
        pytest.param(START.replace("22:22", "22:-1"), "North's reserve", id="negative reserve"),
        pytest.param(START.replace(" HH ", " HX "), "houses", id="bad house"),
        pytest.param(START.replace(" HH ", " H "), "houses", id="one house"),
        pytest.param(START.replace(" - 0", " e1 0"), "front-row square", id="back-row mark"),
        pytest.param(START.replace(" - 0", " z9 0"), "front-row square", id="no such square"),
        pytest.param(START.replace(" 0", " -1")[:-2] + " -1", "ply", id="negative ply"),
        pytest.param(START.replace(" n ", " x "), "stage", id="bad stage"),
        pytest.param(START.replace(" n ", " m "), "disagrees with reserves", id="m with reserves"),
        pytest.param(
            E10_AFTER.replace(" m ", " n "),
            "disagrees with reserves",
            id="n without reserves",
        ),
        pytest.param(
            E10_AFTER.replace(" e3 ", " e2 "),
            "side to move",
            id="Kiswahili mark on the other player's pit",
        ),
        pytest.param(
            START.replace("0,0,0,0,6,2,2,0", "0,0,0,0,4,2,2,0"),
            "holds 4 seeds (at least 5 needed)",
            id="owned nyumba under 5",
        ),
    ],
)
def test_kiswahili_rejects_a_text_that_breaks_a_validity_rule(text: str, message: str) -> None:
    with pytest.raises(InvalidPositionError, match=message.replace("(", r"\(").replace(")", r"\)")):
        KSW.parse_position(text)


@pytest.mark.parametrize("bad", [None, 42, b"bytes", ["list"]])
def test_parse_position_rejects_non_text(bad: object) -> None:
    with pytest.raises(InvalidPositionError, match="BPN text"):
        KSW.parse_position(bad)  # type: ignore[arg-type]


def test_kete_needs_six_seeds_in_an_owned_kuu() -> None:
    # KSW-E6 (owned nyumba of 5) is a valid Kiswahili test position but not a Kete one (L-2).
    e6 = "4,4,3,3,3,3,3,3/3,3,0,3,0,3,3,3/0,0,1,0,5,0,0,0/0,0,0,0,0,0,0,0 S 7:7 n H- - 30"
    assert KSW.parse_position(e6).houses == (True, False)
    with pytest.raises(InvalidPositionError, match="at least 6 needed"):
        KETE.parse_position(e6)


def test_kete_accepts_a_priority_mark_on_the_other_players_pit() -> None:
    text = "5,5,4,4,4,4,4,5/2,0,0,3,2,1,0,1/1,0,0,0,1,1,0,0/0,0,3,2,0,2,6,4 S 0:0 m -- e3 120"
    position = KETE.parse_position(text, strict=True)
    assert position.mark == 16 + 3  # North (1) relative pit 3 = e3
    with pytest.raises(InvalidPositionError):
        KSW.parse_position(text)


def test_whitespace_between_fields_is_tolerated_and_printed_canonically() -> None:
    assert KSW.parse_position("  " + START.replace(" ", "   ") + "\n").to_text() == START


# ---------------------------------------------------------------- reachable-position invariants


@pytest.mark.parametrize(
    ("variant_id", "text", "message"),
    [
        pytest.param(
            "bao-la-kiswahili",
            START.replace("22:22", "22:21"),
            "63 seeds",
            id="seed total",
        ),
        pytest.param(
            "bao-la-kiswahili",
            START.replace(" - 0", " - 1"),
            "cannot be to move",
            id="side parity",
        ),
        pytest.param(
            "bao-la-kiswahili",
            START.replace(" - 0", " - 2"),
            "do not follow ply",
            id="reserves per ply",
        ),
        pytest.param(
            "bao-la-kiswahili",
            "0,0,0,0,0,0,0,0/0,2,2,6,0,0,0,0/0,0,0,0,6,2,0,2/0,0,0,0,0,0,0,0 S 22:22 n HH - 0",
            "only the start position",
            id="ply 0 elsewhere",
        ),
        pytest.param(
            "bao-la-kiswahili",
            "5,5,5,5,5,5,2,2/2,0,2,0,0,0,0,0/0,0,0,0,6,0,0,0/0,0,0,0,0,0,0,0 S 10:10 n H- e2 24",
            "only in the mtaji stage",
            id="mark in namua",
        ),
        pytest.param(
            "bao-la-kiswahili",
            E10_AFTER.replace(" e3 ", " b3 "),
            "is empty",
            id="mark on an empty pit",
        ),
        pytest.param(
            "bao-la-kiswahili",
            "3,3,3,3,3,3,3,2/2,0,2,2,7,0,2,2/0,0,2,0,1,0,1,0/4,4,2,2,2,2,2,2 S 0:0 m -- c2 80",
            "has a capture candidate",
            id="takasia mark while the mover can capture",
        ),
        pytest.param(
            "bao-la-kiswahili",
            "3,3,3,2,3,3,3,3/2,0,2,7,2,0,2,2/0,0,0,0,8,0,0,0/2,2,2,2,2,2,1,3 N 0:0 m -H d3 81",
            "functional nyumba",
            id="mark on a functional nyumba",
        ),
        pytest.param(
            "bao-la-kete",
            "6,6,5,5,5,5,5,5/5,1,1,0,2,1,2,1/1,0,0,0,1,0,1,0/0,0,3,0,0,0,3,0 S 0:0 m -- e3 130",
            "no capture candidate",
            id="Kete priority mark no candidate faces (KETE-E5)",
        ),
    ],
)
def test_strict_parsing_rejects_unreachable_positions(
    variant_id: str, text: str, message: str
) -> None:
    variant = get_variant(variant_id)
    variant.parse_position(text)  # a valid test position ...
    with pytest.raises(InvalidPositionError, match=message):
        variant.parse_position(text, strict=True)  # ... that play cannot reach
    assert not variant.is_valid_strict(variant.parse_position(text))


def test_strict_parsing_accepts_positions_reached_in_play() -> None:
    with DATA.open(encoding="utf-8") as handle:
        game = json.loads(handle.readline())
    for turn in game["turns"]:
        if turn["before"].split()[5] == "-":  # AbstractPlay marks are not always ours
            KSW.parse_position(turn["before"], strict=True)
    assert KSW.is_valid_strict(KSW.parse_position(E10_AFTER))


# ---------------------------------------------------------------- move tokens


@pytest.mark.parametrize("token", ["f2-", "c2+s", "c2+c", "h1-", "a3+", "a4+", "h4-c"])
def test_parse_move_accepts_the_token_syntax(token: str) -> None:
    move = KSW.parse_move(token)
    assert isinstance(move, Move) and move == token and move.token == token


@pytest.mark.parametrize(
    "token",
    [
        "",
        "f2",
        "f2+x",
        "i2+",
        "f5+",
        "f0-",
        "F2+",
        " f2+",
        "f2+ ",
        "f2+\n",
        "f2-sc",
        "f2*",
        "f2<",
        "c2s+",
        None,
        3,
        b"f2+",
    ],
)
def test_parse_move_rejects_anything_else(token: object) -> None:
    for variant in (KSW, KETE):
        with pytest.raises(InvalidMoveError, match="not a Bao move token"):
            variant.parse_move(token)  # type: ignore[arg-type]
