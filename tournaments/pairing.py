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

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tournaments.formats.base import Finished, Round
    from tournaments.trf import ArenaView


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
    """The pairing command line (``python -m tournaments.pairing``):

    * ``swiss-simulate --players N --rounds R --seed S [--json]``: play a simulated Swiss
      (``tournaments.formats.simulate``) and print each round and the final standings, or the
      JSON document. Exit status 2 for bad arguments (argparse), 1 for a Swiss that cannot
      have that many rounds.
    * ``dutch FILE.trf``: pair the next round of the Swiss in a TRF-16 file (``tournaments.trf``)
      as the arena's ``swiss`` format does and print it as bbpPairings and JaVaFo print theirs
      (``-p``): the number of pairs, then one ``white black`` line each (start numbers of the
      file; white is South in game 1), ``id 0`` for the bye (``dutch_main``)."""
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
    dutch = commands.add_parser("dutch", help="pair a TRF-16 file's next round (FIDE Dutch)")
    dutch.add_argument("file", help="the TRF-16 file (with XXR; '-' for standard input)")
    args = parser.parse_args(argv)
    if args.command == "dutch":
        return dutch_main(args.file)
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


def dutch_main(path: str) -> int:
    """``python -m tournaments.pairing dutch FILE``: print the next round's pairing of the
    TRF-16 file at ``path`` (``main``). Exit status 0 when printed, 1 when no next round can be
    paired (every round asked for is paired, or no pairing without repeats exists), 2 with one
    line on stderr for a file that cannot be read (not UTF-8, a ``TrfError``, no ``XXR``)."""
    import sys

    from tournaments.formats import Finished
    from tournaments.trf import TrfError, parse, to_arena

    try:
        raw = sys.stdin.buffer.read() if path == "-" else _read_bytes(path)
        view = to_arena(parse(raw.decode("utf-8")))
        if view.field.rounds is None:
            raise TrfError(0, "the file has no XXR record (the number of rounds)")
    except OSError as exc:
        print(f"error: {path}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except UnicodeDecodeError as exc:
        print(f"error: {path}: not UTF-8 (byte {exc.start})", file=sys.stderr)
        return 2
    except TrfError as exc:
        print(f"error: {path}: {exc}", file=sys.stderr)
        return 2
    step = _next_swiss_round(view)
    if isinstance(step, Finished):
        number = view.field.round + 1
        why = step.reason or f"all {view.field.rounds} rounds are paired"
        print(f"no pairing for round {number}: {why}", file=sys.stderr)
        return 1
    ids = view.ids
    lines = [f"{ids[p.a]} {ids[p.b]}" for p in step.pairings]
    lines += [f"{ids[i]} 0" for i in step.byes]
    print(len(lines))
    for line in lines:
        print(line)
    return 0


def _next_swiss_round(view: ArenaView) -> Round | Finished:
    """The ``swiss`` format's next round of ``view``. The arena's Swiss gives pairing number 1
    White in round 1 (``XXC white1``); the Dutch rules treat White and Black alike but for that
    initial colour, so a ``black1`` file is paired with every game's colours swapped and the
    answer swapped back."""
    from tournaments.formats import Round, get_format
    from tournaments.formats.base import MATCH, Played
    from tournaments.trf import FIRST_BLACK

    swiss = get_format("swiss")
    if view.first_colour != FIRST_BLACK:
        return swiss.next_round(view.field, view.history)
    mirrored = [
        Played(p.round, p.b, p.a, None if p.points_a is None else 1.0 - p.points_a, MATCH)
        if p.kind == MATCH and p.b is not None
        else p
        for p in view.history
    ]
    step = swiss.next_round(view.field, mirrored)
    if isinstance(step, Round):
        return replace(step, pairings=tuple(Pairing(p.b, p.a) for p in step.pairings))
    return step


def _read_bytes(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _points_text(points: float) -> str:
    return {1.0: "1-0", 0.5: "½-½", 0.0: "0-1"}[points]


if __name__ == "__main__":
    raise SystemExit(main())
