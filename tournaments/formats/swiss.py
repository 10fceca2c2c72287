"""Swiss: N rounds, each paired from the standings after the last (pure; networkx matching).

Scores and score groups are in match points (a won match 1, drawn 1/2, a bye or a forfeit
win 1). Each round's pairing meets these constraints, in this order:

1. no pairing repeats (an earlier match, decider or forfeit between the two);
2. at most one bye per engine: with an odd number of active engines, the bye goes to the
   lowest-ranked engine without one (lowest score, then lowest tie-breaks, then lowest seed,
   i.e. the last of the standings) for which the others can still be paired without repeats;
3. as few engines as possible paired outside their score group, then the smallest score
   differences (the sum of the squared differences, so one pairing two points apart costs more
   than two pairings one point apart);
4. who is South in game 1 alternates as evenly as possible: each engine is *due* South when it
   has been North more often (or, when even, North last round), due North the other way round;
   the pairing minimises the engines that do not get their due side, and inside a pairing the
   engine that has been South less often (then the one that was North last, then the
   higher-ranked) is South.

3 and 4 are one maximum-weight perfect matching (``networkx.max_weight_matching`` with
``maxcardinality``) whose integer edge weights order the costs lexicographically. Ranking for
the bye and the standings: points, Buchholz, Sonneborn-Berger, seed (the bye counts for
Buchholz as an opponent with the engine's own score: ``tournaments.standings``). When no
pairing without repeats exists the event ends early with that reason (``Finished``). Withdrawn
engines are no longer paired (dropped).

N is at most the number of entrants minus one; by default ceil(log2 n), enough rounds for one
engine to be alone in first place when results are decisive.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar

import networkx as nx

from tournaments.formats.base import (
    BYE,
    MATCH,
    Field,
    Finished,
    FormatError,
    Played,
    Round,
    TournamentFormat,
    met,
)
from tournaments.pairing import Pairing

SOUTH, NORTH = 1, -1


@dataclass(frozen=True)
class SideRecord:
    """How often an engine was South (``balance`` = South minus North) and its last side."""

    balance: int = 0
    last: int = 0  # SOUTH, NORTH, or 0 before its first match

    def due(self) -> int:
        """The side this engine should get next: SOUTH, NORTH, or 0 (no preference)."""
        if self.balance:
            return NORTH if self.balance > 0 else SOUTH
        return -self.last


def side_records(history: Sequence[Played]) -> dict[int, SideRecord]:
    """Each engine's side record from the matches in ``history`` (round order)."""
    records: dict[int, SideRecord] = {}
    for p in sorted(history, key=lambda p: p.round):
        if p.kind != MATCH or p.b is None:
            continue
        for player, side in ((p.a, SOUTH), (p.b, NORTH)):
            r = records.get(player, SideRecord())
            records[player] = SideRecord(r.balance + side, side)
    return records


def orient(i: int, j: int, sides: dict[int, SideRecord], rank: dict[int, int]) -> Pairing:
    """Who of ``i``, ``j`` is South in game 1 (module docstring, rule 4)."""
    ri, rj = sides.get(i, SideRecord()), sides.get(j, SideRecord())
    if ri.balance != rj.balance:
        return Pairing(i, j) if ri.balance < rj.balance else Pairing(j, i)
    if ri.last != rj.last:
        return Pairing(i, j) if ri.last < rj.last else Pairing(j, i)  # North last -> South now
    # Equal records: the higher-ranked engine takes the side it is due, South if none.
    hi, lo = (i, j) if rank[i] < rank[j] else (j, i)
    return Pairing(lo, hi) if ri.due() == NORTH else Pairing(hi, lo)


def side_misses(p: Pairing, sides: dict[int, SideRecord]) -> int:
    """How many of the two engines do not get the side they are due (0, 1 or 2)."""
    misses = 0
    for player, side in ((p.a, SOUTH), (p.b, NORTH)):
        due = sides.get(player, SideRecord()).due()
        misses += due not in (0, side)
    return misses


def perfect_matching_exists(players: Sequence[int], forbidden: set[frozenset[int]]) -> bool:
    """Whether ``players`` can all be paired with no pair from ``forbidden``."""
    if len(players) % 2:
        return False
    graph: nx.Graph[int] = nx.Graph()
    graph.add_nodes_from(players)
    graph.add_edges_from(
        (a, b)
        for k, a in enumerate(players)
        for b in players[k + 1 :]
        if frozenset((a, b)) not in forbidden
    )
    return len(nx.max_weight_matching(graph, maxcardinality=True)) * 2 == len(players)


def pair_round(
    players: Sequence[int],
    points2: dict[int, int],
    forbidden: set[frozenset[int]],
    sides: dict[int, SideRecord],
    rank: dict[int, int],
) -> list[Pairing] | None:
    """A perfect pairing of ``players`` (even count) under rules 1, 3 and 4, or None if no
    pairing without repeats exists. ``points2`` are scores in half points."""
    if not players:
        return []
    pairs = len(players) // 2
    spread = max(points2[p] for p in players) - min(points2[p] for p in players)
    # Lexicographic costs as one integer: each level's weight exceeds the largest possible
    # total of every level below it.
    colour_w = 1
    diff_w = colour_w * (2 * pairs + 1)
    cross_w = diff_w * (pairs * spread * spread + 1)
    top = cross_w + diff_w * spread * spread + 2 * colour_w + 1
    graph: nx.Graph[int] = nx.Graph()
    graph.add_nodes_from(players)
    for k, a in enumerate(players):
        for b in players[k + 1 :]:
            if frozenset((a, b)) in forbidden:
                continue
            d = points2[a] - points2[b]
            cost = cross_w * (d != 0) + diff_w * d * d
            cost += colour_w * side_misses(orient(a, b, sides, rank), sides)
            graph.add_edge(a, b, weight=top - cost)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    if len(matching) != pairs:
        return None
    chosen = [orient(a, b, sides, rank) for a, b in matching]
    return sorted(chosen, key=lambda p: min(rank[p.a], rank[p.b]))


class Swiss(TournamentFormat):
    """The Swiss system (module docstring)."""

    id: ClassVar[str] = "swiss"
    label: ClassVar[str] = "Swiss"
    known_up_front: ClassVar[bool] = False
    takes_rounds: ClassVar[bool] = True
    tie_breaks: ClassVar[tuple[str, ...]] = ("buchholz", "sonneborn_berger")

    def check(self, n: int, rounds: int | None) -> int | None:
        super().check(n, None)
        if rounds is None:
            return max(1, min(n - 1, math.ceil(math.log2(n))))
        if rounds < 1 or rounds > n - 1:
            raise FormatError(
                "too_many_rounds" if rounds > n - 1 else "invalid",
                f"a Swiss of {n} engines has 1 to {n - 1} rounds, not {rounds}",
                {"rounds": rounds, "max_rounds": n - 1},
            )
        return rounds

    def next_round(self, field: Field, history: Sequence[Played]) -> Round | Finished:
        total = field.rounds or self.check(field.n, None) or 1
        if field.round >= total:
            return Finished()
        number = field.round + 1
        rows = self.order(field, history)
        ordered = [row.player for row in rows]
        rank = {p: i for i, p in enumerate(ordered)}
        active = [p for p in ordered if field.active(p)]
        if len(active) < 2:
            return Finished(f"round {number}: fewer than two engines left to pair")
        points2 = {row.player: round(row.points * 2) for row in rows}
        forbidden = met(history)
        sides = side_records(history)
        byes: tuple[int, ...] = ()
        to_pair = active
        if len(active) % 2:
            had_bye = {p.a for p in history if p.kind == BYE}
            for candidate in reversed(active):  # the lowest-ranked first
                if candidate in had_bye:
                    continue
                rest = [p for p in active if p != candidate]
                if perfect_matching_exists(rest, forbidden):
                    byes, to_pair = (candidate,), rest
                    break
            else:
                return Finished(no_pairing_reason(number, active))
        pairings = pair_round(to_pair, points2, forbidden, sides, rank)
        if pairings is None:
            return Finished(no_pairing_reason(number, active))
        return Round(number, tuple(pairings), byes=byes)


def no_pairing_reason(number: int, active: Iterable[int]) -> str:
    """The early-end reason when round ``number`` cannot be paired."""
    n = len(list(active))
    extra = " and at most one bye each" if n % 2 else ""
    return f"no pairing without repeats{extra} exists for round {number} ({n} engines)"
