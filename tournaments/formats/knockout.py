"""Knockout: a seeded single-elimination bracket of best-of-three ties (pure).

Seeding: by rating at the start (``Entrant.rating``, higher first; equal ratings by entry
order). The bracket has P slots, P the smallest power of two >= n; the top P-n seeds get a
bye in round 1. Slots follow the standard order (1 v P, then 1's winner v the 8/9 winner...,
built by mirroring: [1] -> [1, 2] -> [1, 4, 2, 3] -> [1, 8, 4, 5, 2, 7, 3, 6]), so seeds 1 and 2
can only meet in the final.

A tie is one best-of-three match, the higher seed engine_a (South in game 1). A drawn match
(equal game points, or a match aborted by the arena) is followed by at most two decisive-game
attempts: one-game matches, the lower seed South in the first and the higher seed in the
second; the first decisive one decides the tie. When both are drawn (or aborted) the higher
seed advances. The next round is paired when every tie of the round is decided.

Withdrawals: a tie with one withdrawn engine is forfeited to the other; when both have
withdrawn the higher seed goes through by forfeit (and forfeits its next tie), so the bracket
keeps its shape.

Standings: by the round an engine reached (the champion first, then the finalist, then the
losers of each earlier round), engines out in the same round sharing a rank, listed by seed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from tournaments.formats.base import (
    DECISIVE,
    FORFEIT,
    MATCH,
    Field,
    Finished,
    Played,
    Round,
    Tie,
    TournamentFormat,
)
from tournaments.pairing import Pairing
from tournaments.standings import Award, MatchResult, StandingRow, standings

#: Decisive-game attempts after a drawn match, before the higher seed advances.
DECIDER_ATTEMPTS = 2

#: How a tie was decided (``Tie.decided_by``).
BY_BYE = "bye"
BY_MATCH = "match"
BY_DECIDER = "decisive_game"
BY_HIGHER_SEED = "higher_seed"
BY_FORFEIT = "forfeit"


def seed_order(field: Field) -> list[int]:
    """Players best seed first: rating descending, then entry order."""
    return sorted(range(field.n), key=lambda p: (-field.entrants[p].rating, p))


def slot_seeds(size: int) -> list[int]:
    """The 1-based seed in each bracket slot of a power-of-two ``size`` (module docstring)."""
    order = [1]
    while len(order) < size:
        mirror = 2 * len(order) + 1
        order = [s for seed in order for s in (seed, mirror - seed)]
    return order


def _points_for(p: Played, player: int) -> float | None:
    return p.points_a if p.a == player else p.points_b


def _decide(tie: Tie, items: Sequence[Played]) -> Tie:
    """Fill in ``tie``'s outcome from the history items of its round."""
    if tie.low is None:
        tie.winner, tie.decided_by = tie.high, BY_BYE
        return tie
    pair = {tie.high, tie.low}
    mine = [p for p in items if p.b is not None and {p.a, p.b} == pair]
    forfeit = next((p for p in mine if p.kind == FORFEIT), None)
    if forfeit is not None:
        tie.winner, tie.decided_by = forfeit.a, BY_FORFEIT
        return tie
    main = next((p for p in mine if p.kind == MATCH), None)
    if main is None:
        tie.waiting = True
        return tie
    tie.match_points = _points_for(main, tie.high)
    if tie.match_points in (0.0, 1.0):
        tie.winner = tie.high if tie.match_points == 1.0 else tie.low
        tie.decided_by = BY_MATCH
        return tie
    tie.deciders = tuple(_points_for(p, tie.high) for p in mine if p.kind == DECISIVE)
    for points in tie.deciders:
        if points in (0.0, 1.0):
            tie.winner = tie.high if points == 1.0 else tie.low
            tie.decided_by = BY_DECIDER
            return tie
    if len(tie.deciders) >= DECIDER_ATTEMPTS:
        tie.winner, tie.decided_by = tie.high, BY_HIGHER_SEED
    return tie


def bracket(field: Field, history: Sequence[Played]) -> list[list[Tie]]:
    """The ties of every round paired so far (rounds 1..``field.round``), decided as far as
    ``history`` goes. Round 1 exists from the start (byes included)."""
    seeds = seed_order(field)
    rank = {p: i for i, p in enumerate(seeds)}
    size = 1
    while size < field.n:
        size *= 2
    slots: list[int | None] = [seeds[s - 1] if s <= field.n else None for s in slot_seeds(size)]
    rounds: list[list[Tie]] = []
    for number in range(1, max(field.round, 1) + 1):
        items = [p for p in history if p.round == number]
        ties = []
        for k in range(0, len(slots), 2):
            x, y = slots[k], slots[k + 1]
            assert x is not None  # the top half of each slot pair is always filled
            if y is not None and rank[y] < rank[x]:
                x, y = y, x
            ties.append(_decide(Tie(x, y), items))
        rounds.append(ties)
        if any(t.winner is None for t in ties) or len(ties) == 1:
            break
        slots = [t.winner for t in ties]
    return rounds


class Knockout(TournamentFormat):
    """Single elimination (module docstring)."""

    id: ClassVar[str] = "knockout"
    label: ClassVar[str] = "Knockout"
    known_up_front: ClassVar[bool] = False
    tie_breaks: ClassVar[tuple[str, ...]] = ("round_reached", "seed")

    def next_round(self, field: Field, history: Sequence[Played]) -> Round | Finished:
        if field.round == 0:
            ties = bracket(field, history)[0]
            return self._pair(field, 1, ties)
        rounds = bracket(field, history)
        if len(rounds) < field.round:
            return Finished("the bracket could not be rebuilt")  # defensive: never expected
        current = rounds[field.round - 1]
        deciders = [
            # Attempt 1: the lower seed South; attempt 2: the higher seed.
            Pairing(t.low, t.high) if len(t.deciders) % 2 == 0 else Pairing(t.high, t.low)
            for t in current
            if t.winner is None and not t.waiting and t.low is not None
        ]
        if deciders:
            return self._with_forfeits(field, field.round, deciders, best_of=1)
        unplayed = [Pairing(t.high, t.low) for t in current if t.waiting and t.low is not None]
        if unplayed:
            # A main match that could not be created (an engine withdrew as the round was
            # paired): pair it again, or forfeit it now that the withdrawal is recorded.
            return self._with_forfeits(field, field.round, unplayed, best_of=3)
        if len(current) == 1:
            return Finished()
        winners = [t.winner for t in current]
        next_ties = []
        for k in range(0, len(winners), 2):
            x, y = winners[k], winners[k + 1]
            assert x is not None and y is not None
            next_ties.append(Tie(x, y))
        return self._pair(field, field.round + 1, next_ties)

    def _pair(self, field: Field, number: int, ties: Sequence[Tie]) -> Round:
        rank = {p: i for i, p in enumerate(seed_order(field))}
        pairings = []
        byes = []
        for t in ties:
            if t.low is None:
                byes.append(t.high)
                continue
            high, low = (t.high, t.low) if rank[t.high] < rank[t.low] else (t.low, t.high)
            pairings.append(Pairing(high, low))
        step = self._with_forfeits(field, number, pairings, best_of=3)
        return Round(number, step.pairings, tuple(byes), step.forfeits, 3)

    def _with_forfeits(
        self, field: Field, number: int, pairings: Sequence[Pairing], *, best_of: int
    ) -> Round:
        rank = {p: i for i, p in enumerate(seed_order(field))}
        played, forfeits = [], []
        for p in pairings:
            a_in, b_in = field.active(p.a), field.active(p.b)
            if a_in and b_in:
                played.append(p)
            elif a_in or (not b_in and rank[p.a] < rank[p.b]):
                forfeits.append(Pairing(p.a, p.b))
            else:
                forfeits.append(Pairing(p.b, p.a))
        return Round(number, tuple(played), forfeits=tuple(forfeits), best_of=best_of)

    @property
    def ranking(self) -> tuple[str, ...]:
        return self.tie_breaks

    def bracket(self, field: Field, history: Sequence[Played]) -> list[list[Tie]] | None:
        return bracket(field, history)

    def table(
        self,
        field: Field,
        history: Sequence[Played],
        results: Sequence[MatchResult],
        awards: Sequence[Award],
    ) -> list[StandingRow]:
        rows = {r.player: r for r in standings(field.n, results, awards)}
        reached = {p: 0 for p in range(field.n)}
        champion: int | None = None
        rounds = bracket(field, history) if field.round else []
        for number, ties in enumerate(rounds, start=1):
            for t in ties:
                for p in (t.high, t.low):
                    if p is not None:
                        reached[p] = number
            if len(ties) == 1 and ties[0].winner is not None:
                champion = ties[0].winner
        if champion is not None:
            reached[champion] += 1
        seed_rank = {p: i for i, p in enumerate(seed_order(field))}
        ordered = sorted(rows.values(), key=lambda r: (-reached[r.player], seed_rank[r.player]))
        for i, r in enumerate(ordered):
            same = i and reached[ordered[i - 1].player] == reached[r.player]
            r.rank = ordered[i - 1].rank if same else i + 1
        return ordered
