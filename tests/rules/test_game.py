"""``Game``: the game-level limits of README 6.3 (third repetition, ply cap, their precedence)
and move handling, for every variant of ``arena.rules.VARIANTS``."""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass

import pytest

from arena.rules import (
    PLY_CAP,
    REPETITION,
    RULES_REASONS,
    Game,
    IllegalMoveError,
    InvalidMoveError,
    Outcome,
    RulesError,
    Variant,
    get_variant,
)

from .conftest import load_variant


@dataclass(frozen=True)
class Cycle:
    """A start position and a move cycle that returns to it (found by a depth-first search over
    the rules' own move generation from a small test position, then replayed here)."""

    start: str
    moves: tuple[str, ...]
    #: The outcome when the start position occurs for the third time.
    outcome: Outcome


_BAO_CYCLE_START = (
    "0,0,0,1,0,1,0,2/1,0,1,0,0,0,0,1/0,0,0,0,0,1,0,1/0,1,0,1,1,2,0,0 S 0:0 m -- - 160"
)
_BAO_CYCLE = (
    "f1+",
    "h4+",
    "e1+",
    "h3+",
    "a2+",
    "g3+",
    "b2+",
    "f3+",
    "c2+",
    "e3+",
    "d2+",
    "d3+",
    "e2+",
    "b4+",
    "g1+",
    "c4+",
)

CYCLES = {
    # Mtaji takata moves only (no capture is ever available), every pit back where it was
    # after 16 plies.
    "bao-la-kiswahili": Cycle(_BAO_CYCLE_START, _BAO_CYCLE, Outcome(None, REPETITION)),
    "bao-la-kete": Cycle(_BAO_CYCLE_START, _BAO_CYCLE, Outcome(None, REPETITION)),
    # Ten plies of one- and two-seed moves that neither capture nor reserve; scored at the end:
    # South 17 + 2 (a1, e1) = 19, North 24 + 5 (a2, b2, c2, f2) = 29.
    "bao-kingulu": Cycle(
        "1,2,1,0,0,1/1,0,0,0,1,0 N 17:24 3",
        ("b2", "c1", "a2", "c1", "c2", "e1", "d2", "f1", "d2", "d1"),
        Outcome("N", REPETITION, scores=(19, 29)),
    ),
}


def random_game(variant: Variant, seed: int, **limits: int) -> Game:
    rng = random.Random(seed)
    game = variant.new_game(**limits)
    while game.outcome is None:
        game.play(rng.choice(game.legal_moves()))
    return game


def snapshot(game: Game) -> tuple[object, ...]:
    return (list(game.moves), list(game.positions), game.outcome, dict(game._seen))


def well_formed_illegal_token(variant: Variant, game: Game) -> str:
    """A token that passes ``parse_move`` but is not legal now."""
    if variant.id == "bao-kingulu":
        candidates = (f"{f}{r}" for f in "abcdef" for r in "12")
    else:
        candidates = (
            f"{f}{r}{d}{c}"
            for f, r, d, c in itertools.product("abcdefgh", "1234", "+-", ("", "s", "c"))
        )
    legal = set(game.legal_moves())
    for token in candidates:
        try:
            variant.parse_move(token)
        except RulesError:
            continue
        if token not in legal:
            return token
    raise AssertionError("every token is legal")


# --------------------------------------------------------------------------- repetition


def test_the_third_occurrence_ends_the_game(variant: Variant) -> None:
    cycle = CYCLES[variant.id]
    game = variant.new_game(cycle.start)
    for move in cycle.moves:  # second occurrence: the game goes on
        game.play(move)
    assert game.outcome is None
    assert game.position.repetition_key == game.start.repetition_key
    for move in cycle.moves[:-1]:
        game.play(move)
        assert game.outcome is None
    game.play(cycle.moves[-1])
    assert game.outcome == cycle.outcome
    assert game.position.ply == game.start.ply + 2 * len(cycle.moves)
    assert game.legal_moves() == []


def test_repetitions_two_ends_the_game_at_the_second_occurrence(variant: Variant) -> None:
    cycle = CYCLES[variant.id]
    game = variant.new_game(cycle.start, repetitions=2)
    for move in cycle.moves:
        game.play(move)
    assert game.outcome == cycle.outcome
    assert len(game.moves) == len(cycle.moves)


def test_repetition_wins_over_the_ply_cap_on_the_same_position(variant: Variant) -> None:
    cycle = CYCLES[variant.id]
    start = variant.parse_position(cycle.start)
    game = variant.new_game(start, ply_cap=start.ply + 2 * len(cycle.moves))
    for move in cycle.moves * 2:
        game.play(move)
    assert game.position.ply == game.ply_cap
    assert game.outcome == cycle.outcome  # reason "repetition", not "ply_cap"


def test_the_ply_cap_one_ply_earlier_ends_the_cycle_first(variant: Variant) -> None:
    cycle = CYCLES[variant.id]
    start = variant.parse_position(cycle.start)
    game = variant.new_game(start, ply_cap=start.ply + 2 * len(cycle.moves) - 1)
    for move in (cycle.moves * 2)[:-1]:
        game.play(move)
    assert game.outcome == variant.limit_outcome(game.position, PLY_CAP)
    assert game.outcome is not None and game.outcome.reason == PLY_CAP


# --------------------------------------------------------------------------- ply cap


def test_kingulu_is_scored_at_the_ply_cap() -> None:
    variant = load_variant("bao-kingulu")
    game = variant.new_game(ply_cap=2)
    game.play("c1")
    assert game.outcome is None
    game.play("a2")
    assert game.position.to_text() == "0,0,6,6,0,2/0,7,3,8,0,7 S 7:2 2"
    # South 7 + (0+7+3+8+0+7) = 32, North 2 + (0+0+6+6+0+2) = 16
    assert game.outcome == Outcome("S", PLY_CAP, scores=(32, 16))


@pytest.mark.parametrize("variant_id", ["bao-la-kiswahili", "bao-la-kete"])
def test_bao_is_drawn_at_the_ply_cap(variant_id: str) -> None:
    variant = load_variant(variant_id)
    game = variant.new_game(ply_cap=3)
    for _ in range(3):
        assert game.outcome is None
        game.play(game.legal_moves()[0])
    assert game.outcome == Outcome(None, PLY_CAP)
    assert game.outcome.result == "1/2-1/2"


def test_the_default_ply_caps_follow_readme_6_3() -> None:
    caps = {"bao-la-kiswahili": 1000, "bao-la-kete": 1000, "bao-kingulu": 500}
    for variant_id, cap in caps.items():
        assert load_variant(variant_id).new_game().ply_cap == cap


def test_a_natural_end_on_the_cap_ply_wins_over_the_ply_cap(variant: Variant) -> None:
    # Replay a finished random game with the cap set on its last ply: the rules ending stays.
    for seed in range(20):
        finished = random_game(variant, seed)
        assert finished.outcome is not None
        if finished.outcome.reason in (REPETITION, PLY_CAP):
            continue
        capped = variant.new_game(ply_cap=len(finished.moves))
        for move in finished.moves:
            capped.play(move)
        assert capped.outcome == finished.outcome
        return
    pytest.fail("no random game ended by the rules")


def test_kingulu_natural_end_at_the_ply_cap_is_reported_as_score() -> None:
    variant = load_variant("bao-kingulu")
    game = variant.new_game("0,0,0,0,0,0/4,4,4,4,1,0 S 10:21 30", ply_cap=31)
    game.play("e1")  # KGL-E6: North has no move left
    assert game.outcome == Outcome("S", "score", scores=(27, 21))


# --------------------------------------------------------------------------- moves


def test_an_invalid_token_leaves_the_game_unchanged(variant: Variant) -> None:
    game = variant.new_game()
    game.play(game.legal_moves()[0])
    before = snapshot(game)
    for junk in ("", "zz", "a1 ", "A1", "a9+", "e2+x"):
        with pytest.raises(InvalidMoveError):
            game.play(junk)
        assert snapshot(game) == before


def test_an_illegal_token_leaves_the_game_unchanged(variant: Variant) -> None:
    game = variant.new_game()
    game.play(game.legal_moves()[0])
    before = snapshot(game)
    token = well_formed_illegal_token(variant, game)
    with pytest.raises(IllegalMoveError):
        game.play(token)
    assert snapshot(game) == before


def test_a_finished_game_rejects_every_move(variant: Variant) -> None:
    game = random_game(variant, seed=5)
    assert game.outcome is not None and game.outcome.reason in RULES_REASONS
    assert game.legal_moves() == []
    before = snapshot(game)
    previous = game.positions[-2]
    for token in [str(m) for m in variant.legal_moves(previous)] + ["zz"]:
        with pytest.raises(IllegalMoveError):
            game.play(token)  # even junk: the game is over first
        assert snapshot(game) == before


def test_a_game_can_start_where_the_rules_already_ended() -> None:
    variant = get_variant("bao-kingulu")
    game = variant.new_game("0,0,0,0,0,0/2,2,2,2,2,2 N 12:24 41")
    assert game.outcome == Outcome(None, "score", scores=(24, 24))
    with pytest.raises(IllegalMoveError):
        game.play("a2")


def test_game_records_moves_and_positions(variant: Variant) -> None:
    game = variant.new_game()
    first = game.legal_moves()[0]
    after = game.play(first)
    assert game.moves == [first]
    assert game.positions == [variant.initial_position(), after]
    assert after == variant.apply(variant.initial_position(), first)
    assert after.ply == 1
