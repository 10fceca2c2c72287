"""Formats whose every pairing is known up front: round robin, double round robin, gauntlet.

The schedules are ``tournaments.pairing``'s Berger tables and gauntlet. A double round robin
plays the Berger rounds twice, the second cycle with every pairing's sides swapped, so each
engine is South in game 1 exactly once against each opponent (and n-1 times in all).
Tie-breaks: Sonneborn-Berger, head-to-head, games won (``tournaments.standings``).
"""

from __future__ import annotations

from typing import ClassVar

from tournaments import pairing
from tournaments.formats.base import TournamentFormat
from tournaments.pairing import Pairing


class RoundRobin(TournamentFormat):
    """Each engine meets every other once (Berger tables)."""

    id: ClassVar[str] = "round_robin"
    label: ClassVar[str] = "Round Robin"
    known_up_front: ClassVar[bool] = True

    def schedule(self, n: int) -> list[list[Pairing]]:
        return pairing.round_robin(n)


class DoubleRoundRobin(TournamentFormat):
    """Each engine meets every other twice, sides swapped in the second cycle."""

    id: ClassVar[str] = "double_round_robin"
    label: ClassVar[str] = "Double Round Robin"
    known_up_front: ClassVar[bool] = True

    def schedule(self, n: int) -> list[list[Pairing]]:
        return pairing.double_round_robin(n)


class Gauntlet(TournamentFormat):
    """The first entry meets every other entry once."""

    id: ClassVar[str] = "gauntlet"
    label: ClassVar[str] = "Gauntlet"
    known_up_front: ClassVar[bool] = True

    def schedule(self, n: int) -> list[list[Pairing]]:
        return pairing.gauntlet(n)
