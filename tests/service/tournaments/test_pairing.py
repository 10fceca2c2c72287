"""Round-robin (Berger tables) and gauntlet schedules (pure: no database)."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest

from tournaments.pairing import Pairing, gauntlet, round_robin


def test_four_players_get_the_berger_rounds() -> None:
    assert round_robin(4) == [
        [Pairing(0, 3), Pairing(1, 2)],
        [Pairing(3, 2), Pairing(0, 1)],
        [Pairing(1, 3), Pairing(2, 0)],
    ]


def test_three_players_sit_out_one_round_each() -> None:
    rounds = round_robin(3)
    assert rounds == [[Pairing(1, 2)], [Pairing(0, 1)], [Pairing(2, 0)]]


@pytest.mark.parametrize("n", range(2, 13))
def test_every_pair_meets_once_and_nobody_plays_twice_in_a_round(n: int) -> None:
    rounds = round_robin(n)
    assert len(rounds) == (n - 1 if n % 2 == 0 else n)
    pairs = [frozenset((p.a, p.b)) for r in rounds for p in r]
    every_pair = map(frozenset, combinations(range(n), 2))
    assert sorted(map(sorted, pairs)) == sorted(map(sorted, every_pair))
    for r in rounds:
        players = [x for p in r for x in (p.a, p.b)]
        assert len(players) == len(set(players))


@pytest.mark.parametrize("n", range(2, 13))
def test_every_player_is_engine_a_in_about_half_its_matches(n: int) -> None:
    as_a = Counter(p.a for r in round_robin(n) for p in r)
    for player in range(n):
        assert abs(2 * as_a[player] - (n - 1)) <= 1, (player, as_a[player])


def test_a_round_robin_needs_two_players() -> None:
    with pytest.raises(ValueError):
        round_robin(1)


def test_the_gauntlet_engine_meets_everyone_alternating_sides() -> None:
    assert gauntlet(4) == [[Pairing(0, 1)], [Pairing(2, 0)], [Pairing(0, 3)]]
