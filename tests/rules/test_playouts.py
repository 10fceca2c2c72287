"""Random playouts of every variant with invariants checked on every ply (README 5, 6.3, 6.4).

Fixed seeds, a few thousand turns per variant. Seed counts are read from the position *text*,
so the check does not trust the variant's own data structures.
"""

from __future__ import annotations

import random

import pytest

from arena.rules import (
    BAO_HAMNA,
    NO_LEGAL_MOVE,
    NORTH,
    PLY_CAP,
    REPETITION,
    SCORE,
    SOUTH,
    Game,
    Position,
    Variant,
)

#: Games per variant: Kingulu games are short (about 25 plies), Bao games about 60.
GAMES = {"bao-la-kiswahili": 100, "bao-la-kete": 100, "bao-kingulu": 300}
REASONS = {
    "bao-la-kiswahili": {BAO_HAMNA, NO_LEGAL_MOVE, REPETITION, PLY_CAP},
    "bao-la-kete": {BAO_HAMNA, NO_LEGAL_MOVE, REPETITION, PLY_CAP},
    "bao-kingulu": {SCORE, REPETITION, PLY_CAP},
}
MIN_TURNS = 5000


def seeds_in_text(variant: Variant, text: str) -> int:
    """Board plus reserves (Bao, README 5.1) or board plus banks (Kingulu, README 5.2)."""
    fields = text.split()
    board = sum(int(cell.rstrip("sn")) for rank in fields[0].split("/") for cell in rank.split(","))
    hands = sum(int(n) for n in fields[2].split(":"))
    return board + hands


def check_position(variant: Variant, position: Position) -> str:
    text = position.to_text()
    again = variant.parse_position(text)
    assert again == position and again.to_text() == text
    assert hash(again) == hash(position)
    return text


def play_checked(variant: Variant, seed: int) -> Game:
    rng = random.Random(seed)
    total = 48 if variant.id == "bao-kingulu" else 64
    game = variant.new_game()
    while True:
        position = game.position
        text = check_position(variant, position)
        if game.outcome is not None:
            break
        assert seeds_in_text(variant, text) == total, text
        variant.parse_position(text, strict=True)
        assert position.side == (SOUTH if position.ply % 2 == 0 else NORTH)
        moves = game.legal_moves()
        assert moves, f"no legal move but no outcome in {text}"
        assert [str(m) for m in moves] == sorted(str(m) for m in moves)
        assert len(set(moves)) == len(moves)
        for move in moves:
            variant.parse_move(str(move))
            after = variant.apply(position, move)
            assert after.ply == position.ply + 1 and after.side != position.side
        game.play(rng.choice(moves))
    return game


def check_final(variant: Variant, game: Game) -> None:
    outcome = game.outcome
    assert outcome is not None
    final = game.position
    text = final.to_text()
    assert outcome.reason in REASONS[variant.id], outcome
    assert len(game.moves) <= game.ply_cap
    seeds = seeds_in_text(variant, text)
    if variant.id == "bao-kingulu":
        assert seeds == 48
        assert outcome.scores is not None and sum(outcome.scores) == 48
        south, north = outcome.scores
        assert outcome.winner == (SOUTH if south > north else NORTH if north > south else None)
    else:
        assert outcome.scores is None
        assert seeds + outcome.seeds_in_hand == 64, (text, outcome)
        if outcome.reason != BAO_HAMNA:
            assert seeds == 64 and outcome.seeds_in_hand == 0
    if outcome.reason in (SCORE, NO_LEGAL_MOVE):
        assert variant.legal_moves(final) == []
    if outcome.reason == NO_LEGAL_MOVE:
        assert outcome.winner != final.side
    if outcome.reason == PLY_CAP:
        assert final.ply == game.ply_cap
    if outcome.reason == REPETITION:
        key = final.repetition_key
        assert sum(p.repetition_key == key for p in game.positions) == game.repetitions
    if seeds == (48 if variant.id == "bao-kingulu" else 64):
        variant.parse_position(text, strict=True)


def test_random_playouts_keep_every_invariant(variant: Variant) -> None:
    turns = 0
    reasons: set[str] = set()
    for seed in range(GAMES[variant.id]):
        game = play_checked(variant, seed)
        check_final(variant, game)
        turns += len(game.moves)
        assert game.outcome is not None
        reasons.add(game.outcome.reason)
    assert turns >= MIN_TURNS, turns
    assert reasons  # at least one natural ending reason was met


@pytest.mark.parametrize("ply_cap", [7, 40])
def test_short_ply_caps_end_every_game_in_time(variant: Variant, ply_cap: int) -> None:
    for seed in range(10):
        rng = random.Random(seed)
        game = variant.new_game(ply_cap=ply_cap)
        while game.outcome is None:
            game.play(rng.choice(game.legal_moves()))
        assert len(game.moves) <= ply_cap
        check_final(variant, game)
