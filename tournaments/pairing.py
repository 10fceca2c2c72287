"""Pairing schedules (pure, no Django): round robin by Berger tables, and a gauntlet.

Players are numbered 0..n-1 (their seed order). A schedule is a list of rounds, each a list
of ``Pairing(a, b)`` where ``a`` is the match's engine_a, i.e. South in game 1 of the
best-of-three (game 2 swaps sides; game 3 is decided by the match seed).

Round robin (the circle method, as in the Berger tables used by FIDE): with an odd number of
players a bye is added, so there are n-1 rounds (n even) or n rounds (n odd), each player
meets every other player exactly once. The last player stays fixed and the others rotate one
place per round. Colours: inside a round the player on the upper half of the circle is
engine_a, and the fixed player is engine_a in even rounds (0-based) and engine_b in odd ones,
so every player is engine_a in floor or ceil of half its matches.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Pairing:
    """One match of a round: ``a`` is engine_a (South in game 1), ``b`` engine_b.

    Both are player indexes.
    """

    a: int
    b: int


def round_robin(n: int) -> list[list[Pairing]]:
    """Berger-table rounds for ``n`` players (indexes 0..n-1); raises ``ValueError`` if n < 2."""
    if n < 2:
        raise ValueError(f"a round robin needs at least 2 players, not {n}")
    bye = -1
    players = list(range(n)) + ([bye] if n % 2 else [])
    size = len(players)
    fixed = players[-1]
    ring = players[:-1]
    rounds: list[list[Pairing]] = []
    for r in range(size - 1):
        circle = [*ring, fixed]
        pairs: list[Pairing] = []
        for i in range(size // 2):
            upper, lower = circle[i], circle[size - 1 - i]
            if upper == bye or lower == bye:
                continue
            if i == 0 and r % 2 == 1:
                upper, lower = lower, upper  # the fixed player alternates between a and b
            pairs.append(Pairing(upper, lower))
        rounds.append(pairs)
        ring = ring[-1:] + ring[:-1]  # rotate the circle by one place
    return rounds


def gauntlet(n: int) -> list[list[Pairing]]:
    """Player 0 meets each of players 1..n-1 once, one match per round, alternating engine_a.

    Raises ``ValueError`` if n < 2.
    """
    if n < 2:
        raise ValueError(f"a gauntlet needs at least 2 players, not {n}")
    return [[Pairing(0, j) if j % 2 else Pairing(j, 0)] for j in range(1, n)]
