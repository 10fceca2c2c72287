"""The counts of a run, kept as games end: the figures the progress line, the summary, the
SPRT and the ratings table read. Pure.

Counts are from the side of the run's first engine against the second (two engines; the first
is the "new" engine of an SPRT, as in ``python -m ratings.stats.sprt``): ``wdl`` its wins,
draws and losses, ``pentanomial`` the game pairs by its pair score (0, 1/2, 1, 3/2, 2 points).
A pair counts once both its games ended and neither was aborted; an aborted game counts in
no W/D/L either (it has no result), only in the terminations.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from arena.rules import SOUTH_POINTS

#: Terminations that say an engine could not play at all (``--max-failures`` counts them).
FAILURES = frozenset({"crash", "handshake_failed", "aborted"})


@dataclass(frozen=True)
class Finished:
    """One ended game as the tally sees it: the job's number, the engines' indices as South
    and North, the result text (``"1-0"``, ``"0-1"``, ``"1/2-1/2"``, ``"*"``), the
    termination and the index of the engine it is charged to (the loser of an engine fault;
    None for a rules ending or an abort)."""

    job: int
    south: int
    north: int
    result: str
    termination: str
    charged: int | None


@dataclass
class Tally:
    """Counts over ``names`` (the engines, in the run's order)."""

    names: list[str]
    games: int = 0
    wdl: list[int] = field(default_factory=lambda: [0, 0, 0])
    pentanomial: list[int] = field(default_factory=lambda: [0, 0, 0, 0, 0])
    #: The first engine's wins, draws and losses in the pairs of ``pentanomial``.
    pair_wdl: list[int] = field(default_factory=lambda: [0, 0, 0])
    terminations: dict[str, Counter[str]] = field(default_factory=dict)
    failures: int = 0
    #: (south name, north name, south score) of every game with a result, in order.
    results: list[tuple[str, str, float]] = field(default_factory=list)
    _open_pairs: dict[int, list[Finished]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in self.names:
            self.terminations.setdefault(name, Counter())

    def add(self, game: Finished, pair_size: int) -> None:
        """Count ``game``, one of ``pair_size`` (1 or 2) games of its job."""
        self.games += 1
        names = self.names
        if game.charged is not None:
            self.terminations[names[game.charged]][game.termination] += 1
        elif game.termination == "aborted":
            for side in (game.south, game.north):
                self.terminations[names[side]]["aborted"] += 1
        if game.termination in FAILURES:
            self.failures += 1
        points = SOUTH_POINTS.get(game.result)
        if points is not None:
            self.results.append((names[game.south], names[game.north], points))
            first = self._first_points(game, points)
            if first is not None:
                self.wdl[{1.0: 0, 0.5: 1, 0.0: 2}[first]] += 1
        pair = self._open_pairs.setdefault(game.job, [])
        pair.append(game)
        if len(pair) == pair_size:
            del self._open_pairs[game.job]
            if pair_size == 2:
                self._count_pair(pair)

    def _first_points(self, game: Finished, south_points: float) -> float | None:
        """The first engine's points in ``game`` (None unless engines 0 and 1 played it)."""
        if {game.south, game.north} != {0, 1}:
            return None
        return south_points if game.south == 0 else 1.0 - south_points

    def _count_pair(self, pair: list[Finished]) -> None:
        firsts: list[float] = []
        for game in pair:
            points = SOUTH_POINTS.get(game.result)
            first = None if points is None else self._first_points(game, points)
            if first is None:
                return
            firsts.append(first)
        self.pentanomial[round(sum(firsts) * 2)] += 1
        for first in firsts:
            self.pair_wdl[{1.0: 0, 0.5: 1, 0.0: 2}[first]] += 1

    @property
    def trinomial(self) -> list[int]:
        """``[losses, draws, wins]``: the order of ``python -m ratings.stats.sprt --trinomial``."""
        return self.wdl[::-1]

    def points(self) -> float:
        """The first engine's points against the second."""
        return self.wdl[0] + self.wdl[1] / 2
