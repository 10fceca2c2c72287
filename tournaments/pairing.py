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


def double_round_robin(n: int) -> list[list[Pairing]]:
    """The Berger rounds twice, the second cycle with each pairing's sides swapped: every pair
    meets twice, each engine_a once. Raises ``ValueError`` if n < 2."""
    first = round_robin(n)
    return first + [[Pairing(p.b, p.a) for p in rnd] for rnd in first]


def gauntlet(n: int) -> list[list[Pairing]]:
    """Player 0 meets each of players 1..n-1 once, one match per round, alternating engine_a.

    Raises ``ValueError`` if n < 2.
    """
    if n < 2:
        raise ValueError(f"a gauntlet needs at least 2 players, not {n}")
    return [[Pairing(0, j) if j % 2 else Pairing(j, 0)] for j in range(1, n)]


def main(argv: list[str] | None = None) -> int:
    """``python -m tournaments.pairing swiss-simulate --players N --rounds R --seed S [--json]``:
    play a simulated Swiss (``tournaments.formats.simulate``) and print each round and the
    final standings, or the JSON document. Exit status 2 for bad arguments (argparse), 1 for a
    Swiss that cannot have that many rounds."""
    import argparse
    import json
    import sys

    from tournaments.formats.base import FormatError
    from tournaments.formats.simulate import simulate_swiss

    parser = argparse.ArgumentParser(prog="python -m tournaments.pairing")
    commands = parser.add_subparsers(dest="command", required=True)
    sim = commands.add_parser("swiss-simulate", help="play a simulated Swiss and print it")
    sim.add_argument("--players", type=int, required=True, help="number of players (2 or more)")
    sim.add_argument("--rounds", type=int, required=True, help="rounds (1 to players - 1)")
    sim.add_argument("--seed", type=int, default=1, help="random seed (ratings and results)")
    sim.add_argument("--json", action="store_true", help="print one JSON document")
    args = parser.parse_args(argv)
    try:
        result = simulate_swiss(args.players, args.rounds, args.seed)
    except FormatError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result.to_json()))
        if result.end_reason:
            print(f"ended early: {result.end_reason}", file=sys.stderr)
        return 0
    names = result.names
    for rnd, points in zip(result.rounds, result.results, strict=True):
        shown = [
            f"{names[p.a]}-{names[p.b]} {_points_text(x)}"
            for p, x in zip(rnd.pairings, points, strict=True)
        ]
        bye = f"; bye {names[rnd.byes[0]]}" if rnd.byes else ""
        print(f"round {rnd.number}: {', '.join(shown)}{bye}")
    if result.end_reason:
        print(f"ended early: {result.end_reason}")
    print("rank player points buchholz sonneborn-berger rating")
    for r in result.standings:
        print(
            f"{r.rank:>4} {names[r.player]:>6} {r.points:>6g} {r.buchholz:>8g} "
            f"{r.sonneborn_berger:>16g} {result.ratings[r.player]:>6.0f}"
        )
    return 0


def _points_text(points: float) -> str:
    return {1.0: "1-0", 0.5: "½-½", 0.0: "0-1"}[points]


if __name__ == "__main__":
    raise SystemExit(main())
