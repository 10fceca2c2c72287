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


@pytest.mark.parametrize("format_id", ["round_robin", "double_round_robin", "gauntlet"])
@pytest.mark.parametrize("after", [0, 2])
def test_the_rounds_up_front_are_the_rounds_next_round_gives_one_by_one(
    format_id: str, after: int
) -> None:
    from dataclasses import replace

    from tournaments.formats import Entrant, Field, Round, get_format

    fmt = get_format(format_id)
    # Seven engines, the third withdrawn: its pairings are forfeits in their rounds.
    field = Field(tuple(Entrant(i, withdrawn=i == 2) for i in range(7)), round=after)
    one_by_one = []
    step = fmt.next_round(field, ())
    while isinstance(step, Round):
        one_by_one.append(step)
        step = fmt.next_round(replace(field, round=step.number), ())
    rounds = fmt.rounds_up_front(field)
    assert rounds == one_by_one
    assert [r.number for r in rounds] == list(range(after + 1, len(fmt.schedule(7)) + 1))
    if after == 0:
        assert any(r.forfeits for r in rounds)
