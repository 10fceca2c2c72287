"""Perft (number of move sequences per depth) from the start position of every variant.

The tables are regression values from this implementation, printed by
``python -m arena.rules perft --variant V --depth 4``. Cross-checks:

* Bao la Kiswahili and Bao la Kete (same opening rules): depths 1-2 traced by hand from
  bao-la-kiswahili.md 4.1: South's only legal opening moves are f2+ f2- g2+ g2- (no capture,
  a functional nyumba, so a pit with 2+ seeds other than the nyumba); North then has the
  takata b3+- c3+- after f2+ and after g2+ (nothing to capture), the captures c3+- d3+- after
  f2- (which leaves seeds in c2 and d2) and d3+- after g2- (d2 only): 4 + 4 + 4 + 2 = 14.
* Bao Kingulu: depths 1-2 traced by hand from bao-kingulu.md 3 (c1 d1 e1 f1; then 4, 3, 4 and
  4 replies), and depths 1-4 recomputed below by an independent, deliberately plain simulator
  (one drop at a time on named squares, laps counted to 10,000 without cycle detection).
"""

from __future__ import annotations

import random

import pytest

from arena.rules import Variant, get_variant
from arena.rules.cli import perft

from .conftest import load_variant

PERFT = {
    "bao-la-kiswahili": [4, 14, 38, 124],
    "bao-la-kete": [4, 14, 38, 124],
    "bao-kingulu": [4, 15, 50, 130],
}


def test_perft_to_depth_4_matches_the_recorded_values(variant: Variant) -> None:
    assert perft(variant, variant.initial_position(), 4) == PERFT[variant.id]


@pytest.mark.parametrize("variant_id", ["bao-la-kiswahili", "bao-la-kete"])
def test_bao_depth_two_by_hand(variant_id: str) -> None:
    variant = load_variant(variant_id)
    start = variant.initial_position()
    replies = {
        str(m): [str(r) for r in variant.legal_moves(variant.apply(start, m))]
        for m in variant.legal_moves(start)
    }
    assert replies == {
        "f2+": ["b3+", "b3-", "c3+", "c3-"],
        "f2-": ["c3+", "c3-", "d3+", "d3-"],
        "g2+": ["b3+", "b3-", "c3+", "c3-"],
        "g2-": ["d3+", "d3-"],
    }


# --------------------------------------------------------------------------- Kingulu reference

RING = ["a1", "b1", "c1", "d1", "e1", "f1", "f2", "e2", "d2", "c2", "b2", "a2"]


def ref_parse(text: str) -> tuple[dict[str, int], dict[str, str], dict[str, int], str, int]:
    board_text, side, banks_text, ply = text.split()
    north, south = board_text.split("/")
    seeds: dict[str, int] = {}
    owner: dict[str, str] = {}
    for rank, cells in (("2", north), ("1", south)):
        for file, cell in zip("abcdef", cells.split(","), strict=True):
            square = file + rank
            owner[square] = {"s": "S", "n": "N"}.get(cell[-1], "")
            seeds[square] = int(cell.rstrip("sn"))
    bank_s, bank_n = banks_text.split(":")
    return seeds, owner, {"S": int(bank_s), "N": int(bank_n)}, side, int(ply)


def ref_text(
    seeds: dict[str, int], owner: dict[str, str], banks: dict[str, int], side: str, ply: int
) -> str:
    def row(rank: str) -> str:
        return ",".join(f"{seeds[f + rank]}{owner[f + rank].lower()}" for f in "abcdef")

    return f"{row('2')}/{row('1')} {side} {banks['S']}:{banks['N']} {ply}"


def ref_successors(text: str) -> dict[str, str]:
    """Every legal move and its resulting KPN, following bao-kingulu.md 3 rule by rule."""
    found: dict[str, str] = {}
    seeds0, owner0, banks0, side, ply = ref_parse(text)
    my_rank = "1" if side == "S" else "2"
    for start in RING:
        if start[1] != my_rank or owner0[start] or seeds0[start] == 0:
            continue
        seeds, owner, banks = dict(seeds0), dict(owner0), dict(banks0)
        here = start
        for lap in range(1, 10_001):
            hand, seeds[here] = seeds[here], 0
            sown = hand
            previous = here
            position = RING.index(here)
            while hand:
                position = (position + 1) % 12
                previous, here = here, RING[position]
                hand -= 1
                if owner[here]:
                    banks[owner[here]] += 1
                else:
                    seeds[here] += 1
            if owner[here]:
                result = "end"
            elif seeds[here] == 1:
                facing = here[0] + ("2" if here[1] == "1" else "1")  # x1 faces x2
                if here[1] == my_rank and not owner[facing] and seeds[facing] > 0:
                    banks[side] += seeds[facing] + 1
                    seeds[facing] = seeds[here] = 0
                result = "end"
            elif here[1] != my_rank and seeds[here] == 4:
                owner[here] = side
                if sown >= 2 and not owner[previous]:
                    seeds[previous] -= 1
                    seeds[here] += 1
                result = "end"
            elif here[1] == my_rank and lap == 1:
                result = "illegal"
            else:
                continue
            if result == "end":
                found[start] = ref_text(seeds, owner, banks, "N" if side == "S" else "S", ply + 1)
            break
    return dict(sorted(found.items()))


def test_the_reference_simulator_reproduces_the_worked_examples() -> None:
    assert ref_successors("4,4,4,4,4,4/4,4,4,4,4,4 S 0:0 0")["c1"] == (
        "1,0,6,6,0,1/6,6,2,7,0,6 N 7:0 1"
    )
    assert ref_successors("4,4,4,5s,4,4/2,4,5n,4,1,0 S 3:4 20") == {
        "a1": "4,4,4,5s,4,4/0,5,5n,4,1,0 N 3:5 21",
        # b1(4): c1 pays North, then d1 e1 f1; f1 was empty: capture f2 (4) + 1
        "b1": "4,4,4,5s,4,0/2,0,5n,5,2,0 N 8:5 21",
        "d1": "5,5,5,5s,0,5/0,5,5n,1,2,1 N 4:5 21",
        "e1": "4,4,4,5s,4,0/2,4,5n,4,0,0 N 8:4 21",
    }


def test_kingulu_agrees_with_the_reference_simulator_on_the_depth_4_tree() -> None:
    variant = get_variant("bao-kingulu")
    frontier = [variant.initial_position()]
    counts = []
    for _ in range(4):
        following = []
        for position in frontier:
            mine = {
                str(m): variant.apply(position, m).to_text() for m in variant.legal_moves(position)
            }
            assert mine == ref_successors(position.to_text()), position.to_text()
            following.extend(variant.parse_position(text) for text in mine.values())
        counts.append(len(following))
        frontier = following
    assert counts == PERFT["bao-kingulu"]


def test_kingulu_agrees_with_the_reference_simulator_along_random_games() -> None:
    variant = get_variant("bao-kingulu")
    checked = 0
    for seed in range(40):
        rng = random.Random(seed)
        game = variant.new_game()
        while game.outcome is None:
            position = game.position
            mine = {str(m): variant.apply(position, m).to_text() for m in game.legal_moves()}
            assert mine == ref_successors(position.to_text()), position.to_text()
            checked += 1
            game.play(rng.choice(game.legal_moves()))
        assert ref_successors(game.position.to_text()) == {} or game.outcome.reason != "score"
    assert checked > 500
