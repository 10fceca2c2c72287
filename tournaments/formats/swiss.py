"""Swiss: N rounds, each paired by the FIDE Dutch system from the results so far (pure).

The pairing is ``tournaments.dutch`` (FIDE Handbook C.04.3, the 2025 rules; its docstring
lists the articles). Scores and score groups are in match points (a won match 1, drawn 1/2, a
pairing-allocated bye or a forfeit win 1). Pairing numbers: rating (Elo at the start)
descending, then seed. An engine's colour is its side in game 1 of the best-of-three: White is
South (``Pairing.a``). Game 2 swaps sides and game 3's side is drawn from the match seed, so
colour decides only who is South in games 1 and 3: a small edge, which is why the Dutch
colour criteria come after the score criteria. In round 1 the top half meets the bottom half
and the pairing number 1 is White (FIDE's default initial colour, TRF ``XXC white1``).

Absolute rules: no pairing repeats (an earlier match, decider or forfeit between the two); at
most one bye per engine, never after a forfeit win, to an engine of the lowest score group
that can take it; no engine gets the same side three times running or a side difference
beyond 2, except topscorers in the last round (C3), and except a round that no pairing
without repeats could pair under C3 (colour weighs little in a best-of-three, so the arena
plays the round rather than end the event). The remaining rounds must stay pairable:
small fields are searched ahead (``tournaments.dutch.LOOKAHEAD_PLAYERS``), so an event of at
most that many engines never ends early while repeat-free pairings of every asked round exist.
When none exists for the next round the event ends early with that reason (``Finished``).
Withdrawn engines are no longer paired (dropped).

Ranking for the standings: points, Buchholz, Sonneborn-Berger, seed (the bye counts for
Buchholz as an opponent with the engine's own score: ``tournaments.standings``).

N is at most the number of entrants minus one (``max_rounds``); by default ceil(log2 n),
enough rounds for one engine to be alone in first place when results are decisive.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import ClassVar

from tournaments import dutch
from tournaments.formats.base import (
    Field,
    Finished,
    FormatError,
    Played,
    Round,
    TournamentFormat,
)
from tournaments.pairing import Pairing


class Swiss(TournamentFormat):
    """The Swiss system, paired by the FIDE Dutch system (module docstring)."""

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
                {"rounds": rounds, "max_rounds": self.max_rounds(n)},
            )
        return rounds

    def max_rounds(self, n: int) -> int | None:
        """n - 1: every pair meets at most once, and pairings without repeats exist for all
        of those rounds (a round robin's); the format keeps them pairable (module docstring)."""
        return max(1, n - 1)

    def next_round(self, field: Field, history: Sequence[Played]) -> Round | Finished:
        total = field.rounds or self.check(field.n, None) or 1
        if field.round >= total:
            return Finished()
        number = field.round + 1
        players = dutch.players_from(field, history, total)
        if len(players) < 2:
            return Finished(f"round {number}: fewer than two engines left to pair")
        after = total - field.round - 1
        try:
            result = dutch.pair_completable(players, field.round, after)
        except dutch.NoPairing:
            # No pairing meets C3 (same absolute colour preferences): waive it rather than
            # end the event, as for topscorers in the last round (module docstring).
            waived = [replace(p, topscorer=True) for p in players]
            try:
                result = dutch.pair_completable(waived, field.round, after)
            except dutch.NoPairing:
                return Finished(no_pairing_reason(number, [p.id for p in players]))
        pairings = tuple(Pairing(white, black) for white, black in result.pairs)
        byes = () if result.bye is None else (result.bye,)
        return Round(number, pairings, byes=byes)


def no_pairing_reason(number: int, active: Iterable[int]) -> str:
    """The early-end reason when round ``number`` cannot be paired."""
    n = len(list(active))
    extra = " and at most one bye each" if n % 2 else ""
    return f"no pairing without repeats{extra} exists for round {number} ({n} engines)"
