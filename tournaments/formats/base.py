"""What every tournament format is made of (pure: no Django, no clock, no global randomness).

A format is a small strategy object (``TournamentFormat``): how it pairs its first round, how
it pairs the next round from what was played (the standings follow from that), whether every
pairing is known up front, its tie-breaks, and its own checks of a field. The services call
a format through the registry (``tournaments.formats.get_format``) and nowhere else.

Players are the entries in seed order, numbered 0..n-1 (``Entrant.seed``). A ``Pairing(a, b)``
is one best-of-three match: ``a`` is engine_a, South in game 1 (game 2 swaps sides; game 3 is
drawn from the match seed). Byes and forfeit wins are one match point without a game
(``tournaments.standings.Award``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from tournaments.pairing import Pairing
from tournaments.standings import (
    DEFAULT_TIE_BREAKS,
    Award,
    MatchResult,
    StandingRow,
    standings,
)


@dataclass
class Tie:
    """One tie of a bracket: ``high`` the higher seed, ``low`` the other (None: a bye).
    ``winner`` is None while undecided; ``decided_by`` says how (``knockout.BY_*``);
    ``match_points`` is the high seed's points in the main match (None if not played);
    ``deciders`` the high seed's points in each decisive game played (None for an aborted
    one); ``waiting`` is True while the main match has not been paired."""

    high: int
    low: int | None
    winner: int | None = None
    decided_by: str = ""
    match_points: float | None = None
    deciders: tuple[float | None, ...] = ()
    waiting: bool = False


#: Kinds of ``Played`` items.
MATCH = "match"  # a best-of-three match
DECISIVE = "decisive"  # a one-game decider (knockout, after a drawn match)
BYE = "bye"
FORFEIT = "forfeit"


class FormatError(ValueError):
    """A field or a number of rounds the format cannot play; ``code`` is the API's stable code
    (``tournaments.errors`` maps it), ``details`` its context."""

    def __init__(self, code: str, message: str, details: dict[str, object] | None = None):
        super().__init__(message)
        self.code = code
        self.details = details or {}


@dataclass(frozen=True)
class Entrant:
    """One entry: ``seed`` is its index in entry order (0-based), ``rating`` its Elo when the
    event started (knockout seeds by it), ``withdrawn`` whether it left the event."""

    seed: int
    rating: float = 1500.0
    withdrawn: bool = False


@dataclass(frozen=True)
class Field:
    """The entrants (in seed order), the number of rounds asked for (None: the format's) and
    ``round``, the last round paired so far (0 before the start)."""

    entrants: tuple[Entrant, ...]
    rounds: int | None = None
    round: int = 0

    @property
    def n(self) -> int:
        return len(self.entrants)

    def active(self, player: int) -> bool:
        return not self.entrants[player].withdrawn


@dataclass(frozen=True)
class Played:
    """One item of an earlier round, as recorded.

    ``kind`` ``match``/``decisive``: ``a`` (South in game 1) met ``b``; ``points_a`` is a's
    match points (1, 0.5, 0), None while unfinished or if the match was aborted. ``bye``: ``a``
    had a bye (``b`` None). ``forfeit``: ``a`` won by forfeit over ``b``, who withdrew.
    """

    round: int
    a: int
    b: int | None
    points_a: float | None = None
    kind: str = MATCH

    @property
    def points_b(self) -> float | None:
        return None if self.points_a is None else 1.0 - self.points_a


@dataclass(frozen=True)
class Round:
    """What a format asks the service to do next: round ``number``'s ``pairings`` (matches of
    ``best_of`` games: 3, or 1 for knockout deciders), its ``byes`` and ``forfeits``
    (``Pairing(winner, withdrawn)``)."""

    number: int
    pairings: tuple[Pairing, ...] = ()
    byes: tuple[int, ...] = ()
    forfeits: tuple[Pairing, ...] = ()
    best_of: int = 3


@dataclass(frozen=True)
class Finished:
    """No further round: the event is over; ``reason`` is empty for a normal end, else why it
    ended early (e.g. no Swiss pairing without repeats exists)."""

    reason: str = ""


class TournamentFormat:
    """The strategy interface; each format module defines one subclass.

    ``id`` is the stable id stored on the tournament and used by the API, ``label`` its name
    for people (forms, the schema). ``known_up_front``: every pairing follows from the field
    alone, so the service creates all rounds when the event starts (their matches then run in
    parallel); otherwise it pairs the next round when the previous one has finished.
    ``tie_breaks`` names the order after points (``tournaments.standings.TIE_BREAKS``, or a
    format's own names, see ``order``).
    """

    id: ClassVar[str]
    label: ClassVar[str]
    known_up_front: ClassVar[bool]
    tie_breaks: ClassVar[tuple[str, ...]] = DEFAULT_TIE_BREAKS
    #: Whether the format takes a number of rounds (``Field.rounds``).
    takes_rounds: ClassVar[bool] = False

    def check(self, n: int, rounds: int | None) -> int | None:
        """The number of rounds to store for ``n`` entrants (None if the format has none).
        Raises ``FormatError`` (``too_few_engines``, ``rounds_not_applicable``,
        ``too_many_rounds``)."""
        if n < 2:
            raise FormatError(
                "too_few_engines", f"a {self.id} needs at least 2 engines, got {n}", {"n": n}
            )
        if rounds is not None and not self.takes_rounds:
            raise FormatError(
                "rounds_not_applicable",
                f"a {self.id} has no choice of rounds; leave 'rounds' out",
                {"format": self.id, "rounds": rounds},
            )
        return None

    def first_round(self, field: Field) -> Round | Finished:
        """Round 1 of a field with no history (``field.round`` 0)."""
        return self.next_round(field, ())

    def next_round(self, field: Field, history: Sequence[Played]) -> Round | Finished:
        """The step after round ``field.round``, once everything in ``history`` (all that was
        played or awarded so far) has finished. A format known up front needs no results: the
        service asks for every round when the event starts."""
        if not self.known_up_front:
            raise NotImplementedError
        schedule = self.schedule(field.n)
        if field.round >= len(schedule):
            return Finished()
        return with_withdrawals(field, field.round + 1, schedule[field.round])

    def rounds_up_front(self, field: Field) -> list[Round]:
        """Every round after ``field.round`` of a format known up front, under the withdrawal
        policy: what ``next_round`` gives one call at a time, from one schedule (a 64-engine
        round robin's is 2,016 pairings: made once, not once per round)."""
        if not self.known_up_front:
            raise NotImplementedError
        schedule = self.schedule(field.n)
        return [
            with_withdrawals(field, number, pairings)
            for number, pairings in enumerate(schedule[field.round :], start=field.round + 1)
        ]

    def schedule(self, n: int) -> list[list[Pairing]]:
        """Every round of a format known up front (``known_up_front``)."""
        raise NotImplementedError

    def possible_pairs(self, n: int) -> list[tuple[int, int]]:
        """Every pair of players that may meet (the rated-tournament check): for a format
        known up front, its schedule; otherwise any two."""
        if self.known_up_front:
            return [(p.a, p.b) for rnd in self.schedule(n) for p in rnd]
        return [(i, j) for i in range(n) for j in range(i + 1, n)]

    def max_rounds(self, n: int) -> int | None:
        """The most rounds a field of ``n`` entrants may ask for (None: the format takes no
        number of rounds)."""
        return None

    @property
    def ranking(self) -> tuple[str, ...]:
        """What orders the standings, first to last (shown by the API)."""
        return ("points", *self.tie_breaks)

    def table(
        self,
        field: Field,
        history: Sequence[Played],
        results: Sequence[MatchResult],
        awards: Sequence[Award],
    ) -> list[StandingRow]:
        """The ordered standings from ``results`` (with their games, for the W/D/L columns)
        and ``awards``; ``history`` is what the format reads for any order of its own."""
        return standings(field.n, results, awards, tie_breaks=self.tie_breaks)

    def order(self, field: Field, history: Sequence[Played]) -> list[StandingRow]:
        """The ordered standings from the match points in ``history`` alone."""
        results, awards = split_history(history)
        return self.table(field, history, results, awards)

    def bracket(self, field: Field, history: Sequence[Played]) -> list[list[Tie]] | None:
        """The bracket of an elimination format (None for the others)."""
        return None


def with_withdrawals(field: Field, number: int, pairings: Sequence[Pairing]) -> Round:
    """Round ``number`` of planned ``pairings`` under the withdrawal policy: a pairing with one
    withdrawn player is a forfeit win for the other, one between two withdrawn players is
    dropped."""
    played: list[Pairing] = []
    forfeits: list[Pairing] = []
    for p in pairings:
        a_in, b_in = field.active(p.a), field.active(p.b)
        if a_in and b_in:
            played.append(p)
        elif a_in:
            forfeits.append(Pairing(p.a, p.b))
        elif b_in:
            forfeits.append(Pairing(p.b, p.a))
    return Round(number, tuple(played), forfeits=tuple(forfeits))


def split_history(history: Sequence[Played]) -> tuple[list[MatchResult], list[Award]]:
    """Finished matches as ``MatchResult`` (match points as the score, no games) and byes and
    forfeit wins as ``Award``. Deciders and unfinished or aborted matches score nothing."""
    results: list[MatchResult] = []
    awards: list[Award] = []
    for p in history:
        if p.kind == BYE:
            awards.append(Award(p.a))
        elif p.kind == FORFEIT:
            awards.append(Award(p.a, p.b))
        elif p.kind == MATCH and p.b is not None and p.points_a is not None:
            results.append(MatchResult(p.a, p.b, p.points_a, 1.0 - p.points_a, ()))
    return results, awards


def rounds_played(history: Sequence[Played]) -> int:
    """The highest round number in ``history`` (0 for none)."""
    return max((p.round for p in history), default=0)


def met(history: Sequence[Played]) -> set[frozenset[int]]:
    """Pairs of players who met (a match, a decider or a forfeit) in ``history``."""
    return {frozenset((p.a, p.b)) for p in history if p.b is not None}
