"""Reads of the tournaments app: tournament progress, standings, crosstable, rounds and bracket
(leaderboards and rating history are the ratings app's: ``ratings.selectors``). Views, the web
pages and the demo command call these; nothing here writes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from django.core.cache import cache
from django.db.models import Count, Q, QuerySet

from arena.matches.models import ENDED_STATUSES, Game, Match
from arena.rules import SOUTH_POINTS
from engines.models import EngineVersion
from tournaments.formats import get_format
from tournaments.formats.base import Tie
from tournaments.models import (
    Tournament,
    TournamentEntry,
    UnplayedResult,
)
from tournaments.rounds import field_of, history_from
from tournaments.standings import (
    Award,
    CrossCell,
    MatchResult,
    StandingRow,
    crosstable,
)


def tournament_list(
    *, status: str | None = None, variant: str | None = None
) -> QuerySet[Tournament]:
    """Tournaments, newest start first, with ``matches_total``/``matches_done`` annotations."""
    qs = Tournament.objects.all().annotate(
        matches_total=Count("matches", distinct=True),
        matches_done=Count("matches", filter=Q(matches__status__in=ENDED_STATUSES), distinct=True),
    )
    if status:
        qs = qs.filter(status=status)
    if variant:
        qs = qs.filter(variant=variant)
    return qs.order_by("-start_at", "-id")


@dataclass(frozen=True)
class Progress:
    """How far a tournament is: matches done (finished or aborted) of the total, games played."""

    matches_total: int
    matches_done: int
    matches_running: int
    games_played: int


def tournament_match_counts(tournament: Tournament) -> tuple[int, int, int]:
    """(matches in all, done: finished or aborted, running) of ``tournament``: one aggregate
    over its matches."""
    counts = tournament.matches.aggregate(
        total=Count("id"),
        done=Count("id", filter=Q(status__in=ENDED_STATUSES)),
        running=Count("id", filter=Q(status=Match.Status.RUNNING)),
    )
    return counts["total"], counts["done"], counts["running"]


def tournament_progress(
    tournament: Tournament,
    counts: tuple[int, int, int] | None = None,
    games: int | None = None,
) -> Progress:
    """Progress counters of ``tournament`` (all zero before it starts); ``counts`` the
    ``tournament_match_counts`` and ``games`` the games played (``TournamentTable``) already
    read, if any."""
    total, done, running = counts or tournament_match_counts(tournament)
    if games is None:
        games = Game.objects.filter(match__tournament=tournament).count()
    return Progress(total, done, running, games)


#: How long the cache keeps what is shown of an ended tournament (``tournament_ended_cached``),
#: seconds: a finished event never changes, but each process's cache is bounded.
ENDED_CACHE_SECONDS = 3600
#: Ended tournaments with fewer matches are not cached: they are read in a few ms anyway.
ENDED_CACHE_MIN_MATCHES = 100

_T = TypeVar("_T")


def tournament_ended_key(tournament: Tournament, counts: tuple[int, int, int]) -> str | None:
    """The cache key of what is shown of ``tournament`` once it can no longer change, or None;
    ``counts`` its ``tournament_match_counts``.

    It can no longer change once it has ended (finished or cancelled) with every match ended
    (finished or aborted: no result, and so no game, can still be recorded). The key holds its
    id and its last change (status, end time, rounds paired, the match counts), so a changed
    row or a late result never reads an old answer.
    """
    total, done, _ = counts
    ended = (Tournament.Status.FINISHED, Tournament.Status.CANCELLED)
    if tournament.status not in ended or done != total or total < ENDED_CACHE_MIN_MATCHES:
        return None
    finished = tournament.finished_at.isoformat() if tournament.finished_at else ""
    return (
        f"tournament-ended:{tournament.pk}:{tournament.status}:{finished}:"
        f"{tournament.current_round}:{total}:{done}"
    )


def tournament_ended_cached(
    tournament: Tournament, counts: tuple[int, int, int], part: str, build: Callable[[], _T]
) -> _T:
    """``build()``, kept in the cache under ``part`` (e.g. ``"api"``) for an ended tournament
    (``tournament_ended_key``; ``counts`` its ``tournament_match_counts``): progress,
    standings, crosstable and rounds of a finished 48-engine round robin take 50-600 ms to
    read and lay out, and never change. ``build`` must return a value the cache can pickle. A
    tournament that can still change is built every time."""
    key = tournament_ended_key(tournament, counts)
    if key is None:
        return build()
    key = f"{key}:{part}"
    value: _T | None = cache.get(key)
    if value is None:
        value = build()
        cache.set(key, value, ENDED_CACHE_SECONDS)
    return value


def tournament_entries(tournament: Tournament) -> list[TournamentEntry]:
    """Entries in seed order, with their engine version and engine loaded."""
    return list(tournament.entries.select_related("engine_version__engine").order_by("seed_no"))


@dataclass(frozen=True)
class GameRow:
    """A game of a tournament as its standings and pages read it (never its move list):
    ``south_id`` the engine version that was South, ``result`` as stored (``1-0``...)."""

    id: int
    index: int
    south_id: int
    result: str


@dataclass(frozen=True)
class RoundMatch:
    """A match of a tournament as its standings, pairings and pages read it: plain columns,
    both engine versions (with their engines) and its games in index order."""

    id: int
    round: int | None
    engine_a: EngineVersion
    engine_b: EngineVersion
    best_of: int
    status: str
    score_a: float | None
    score_b: float | None
    winner_id: int | None
    games: tuple[GameRow, ...]
    engine_a_id: int
    engine_b_id: int


#: The columns of a match ``RoundMatch`` holds, in its rows' order before the versions.
_ROUND_MATCH_FIELDS = (
    "id", "round", "engine_a_id", "engine_b_id", "status", "score_a", "score_b", "best_of",
    "winner_id",
)  # fmt: skip


def tournament_round_matches(
    tournament: Tournament, entries: list[TournamentEntry]
) -> list[RoundMatch]:
    """Every match of ``tournament`` in (round, id) order, with its games: two queries of
    plain columns, one if it has no match (a 48-engine round robin has 1,128 matches and
    about 2,800 games; model rows for them cost more than the standings), the engine versions
    taken from ``entries`` (one more query only for a version that is not an entry's)."""
    matches = list(tournament.matches.order_by("round", "id").values_list(*_ROUND_MATCH_FIELDS))
    games: dict[int, list[GameRow]] = {}
    ids = [m[0] for m in matches]
    # The id range lets PostgreSQL read the games through their (match, index) index: on
    # the join alone it scanned every game of the database (21 ms -> 3.5 ms at 2x10^4 games).
    rows = (
        Game.objects.filter(
            match__tournament=tournament, match_id__gte=min(ids), match_id__lte=max(ids)
        )
        .order_by("match_id", "index")
        .values_list("match_id", "id", "index", "south_id", "result")
        if ids
        else []
    )
    for match_id, game_id, game_index, south_id, result in rows:
        games.setdefault(match_id, []).append(GameRow(game_id, game_index, south_id, result))
    versions = {e.engine_version_id: e.engine_version for e in entries}
    others = {v for m in matches for v in (m[2], m[3])} - versions.keys()
    if others:  # none in a tournament: every match is between two entries
        versions.update(EngineVersion.objects.select_related("engine").in_bulk(others))
    return [
        RoundMatch(match_id, round_no, versions[a], versions[b], best_of, status, score_a,
                   score_b, winner_id, tuple(games.get(match_id, ())), a, b)
        for match_id, round_no, a, b, status, score_a, score_b, best_of, winner_id in matches
    ]  # fmt: skip


def tournament_unplayed(
    tournament: Tournament, entries: list[TournamentEntry]
) -> list[UnplayedResult]:
    """Byes and forfeits of ``tournament`` in (round, id) order, their ``entry`` and
    ``opponent`` set to the rows of ``entries`` (one query)."""
    by_pk = {e.pk: e for e in entries}
    unplayed = list(tournament.unplayed_results.order_by("round", "id"))
    for u in unplayed:
        if u.entry_id in by_pk:
            u.entry = by_pk[u.entry_id]
        if u.opponent_id in by_pk:
            u.opponent = by_pk[u.opponent_id]
    return unplayed


def tournament_results(
    matches: list[RoundMatch], entries: list[TournamentEntry]
) -> list[MatchResult]:
    """The finished matches among ``matches`` as ``MatchResult`` over entry indexes, in id
    order.

    Aborted matches and matches with no score are left out (they score nothing), and so are
    knockout deciders (one-game matches: they decide a tie, shown in the bracket). Only the
    results are read: the games' move lists never are.
    """
    index = {e.engine_version_id: i for i, e in enumerate(entries)}
    results: list[MatchResult] = []
    for m in sorted(matches, key=lambda m: m.id):
        a, b = m.engine_a_id, m.engine_b_id
        if (m.status != Match.Status.FINISHED or m.best_of == 1 or m.score_a is None
                or m.score_b is None or a not in index or b not in index):  # fmt: skip
            continue
        scores = tuple(
            SOUTH_POINTS[g.result] if g.south_id == a else 1.0 - SOUTH_POINTS[g.result]
            for g in m.games
            if g.result in SOUTH_POINTS
        )
        results.append(MatchResult(index[a], index[b], m.score_a, m.score_b, scores, m.id))
    return results


def tournament_awards(
    unplayed: list[UnplayedResult], entries: list[TournamentEntry]
) -> list[Award]:
    """Byes and forfeit wins among ``unplayed`` as ``Award`` over entry indexes."""
    index = {e.pk: i for i, e in enumerate(entries)}
    return [
        Award(index[u.entry_id], None if u.opponent_id is None else index[u.opponent_id])
        for u in unplayed
    ]


@dataclass(frozen=True)
class RoundView:
    """One round as paired: its matches (deciders included), byes (entry indexes) and
    forfeits (``UnplayedResult`` rows, their entries set)."""

    number: int
    matches: list[RoundMatch]
    byes: list[int]
    forfeits: list[UnplayedResult]


@dataclass(frozen=True)
class TournamentTable:
    """Standings (ordered rows), crosstable (rows/columns in seed order), what orders the
    standings, the rounds as paired, the bracket of an elimination format (else None), every
    match in (round, id) order (those of no round paired too) and the games played."""

    entries: list[TournamentEntry]
    standings: list[StandingRow]
    crosstable: list[list[CrossCell | None]]
    ranking: tuple[str, ...] = ()
    rounds: list[RoundView] = field(default_factory=list)
    bracket: list[list[Tie]] | None = None
    matches: list[RoundMatch] = field(default_factory=list)
    games_played: int = 0
    #: The most rounds the format allows these entrants (None: it takes no rounds).
    max_rounds: int | None = None


def tournament_rounds(
    tournament: Tournament,
    entries: list[TournamentEntry],
    matches: list[RoundMatch],
    unplayed: list[UnplayedResult],
) -> list[RoundView]:
    """Rounds 1..``current_round`` with their ``matches``, byes and forfeits (of
    ``unplayed``)."""
    index = {e.pk: i for i, e in enumerate(entries)}
    by_round: dict[int | None, list[RoundMatch]] = {}
    for m in matches:
        by_round.setdefault(m.round, []).append(m)
    return [
        RoundView(
            number,
            by_round.get(number, []),
            [index[u.entry_id] for u in unplayed if u.round == number and u.kind == "bye"],
            [u for u in unplayed if u.round == number and u.kind == "forfeit"],
        )
        for number in range(1, tournament.current_round + 1)
    ]


def tournament_table(tournament: Tournament) -> TournamentTable:
    """Standings, crosstable, rounds and bracket of ``tournament`` from what was played so
    far, ordered by its format (``TournamentFormat.table``). Four queries whatever its size:
    its entries, matches, games (results only) and unplayed results."""
    fmt = get_format(tournament.format)
    entries = tournament_entries(tournament)
    matches = tournament_round_matches(tournament, entries)
    unplayed = tournament_unplayed(tournament, entries)
    results = tournament_results(matches, entries)
    f = field_of(tournament, entries)
    history = history_from(
        entries,
        ((m.id, m.round, m.engine_a_id, m.engine_b_id, m.status, m.score_a, m.score_b,
          m.best_of) for m in matches),
        unplayed,
    )  # fmt: skip
    return TournamentTable(
        entries,
        fmt.table(f, history, results, tournament_awards(unplayed, entries)),
        crosstable(len(entries), results),
        fmt.ranking,
        tournament_rounds(tournament, entries, matches, unplayed),
        fmt.bracket(f, history) if tournament.current_round else None,
        matches,
        sum(len(m.games) for m in matches),
        fmt.max_rounds(len(entries)),
    )


def tournament_first_round(tournament: Tournament) -> list[tuple[int, int | None]]:
    """The pairings round 1 of a tournament that has not started would have now (entry
    indexes, seed order; ``(i, None)`` a bye), as its format pairs them from the field
    (``TournamentFormat.first_round``): for a preview, nothing is stored."""
    from tournaments.formats import Round

    entries = tournament_entries(tournament)
    if len(entries) < 2:
        return []
    step = get_format(tournament.format).first_round(field_of(tournament, entries))
    if not isinstance(step, Round):
        return []
    return [(p.a, p.b) for p in step.pairings] + [(i, None) for i in step.byes]


@dataclass(frozen=True)
class TrfExport:
    """A Swiss as a TRF-16 file (``tournament_trf``): its ``text`` and a download
    ``filename``; ``rounds`` the rounds it holds."""

    text: str
    filename: str
    rounds: int


def swiss_complete_rounds(tournament: Tournament) -> int:
    """The last round k of ``tournament`` such that every match of rounds 1..k has ended
    (finished or aborted; a round of byes and forfeits only is complete): one query."""
    open_rounds = set(
        tournament.matches.exclude(status__in=ENDED_STATUSES).values_list("round", flat=True)
    )
    k = 0
    while k < tournament.current_round and (k + 1) not in open_rounds:
        k += 1
    return k


def tournament_trf(tournament: Tournament, before_round: int | None = None) -> TrfExport:
    """``tournament`` (a Swiss) as TRF-16 with ``XXR`` and ``XXC`` (``tournaments.trf``):
    the file a FIDE pairing program pairs round ``before_round`` from (the rounds before it,
    and ``0000 - Z`` in that round for each engine that was not, or will not be, paired in
    it), by default the rounds played to the end so far (``swiss_complete_rounds``), with the
    next round's absences while the event is running. Start numbers are the Swiss's pairing
    numbers (``tournaments.dutch.pairing_numbers``: Elo at the start descending, then seed),
    since the FIDE programs pair by them; names ``engine vN``, ratings the Elo at the start,
    ranks the format's order of the rounds written. Raises ``ValueError`` for a format other
    than Swiss and for a ``before_round`` outside 1..complete rounds + 1. Three queries (the
    match statuses, the entries, the history)."""
    from tournaments.dutch import pairing_numbers
    from tournaments.rounds import history_of
    from tournaments.trf import from_arena

    if tournament.format != "swiss":
        raise ValueError(f"a {tournament.format} is not a Swiss")
    complete = swiss_complete_rounds(tournament)
    if before_round is not None and not 1 <= before_round <= complete + 1:
        raise ValueError(f"round {before_round} is not 1 to {complete + 1}")
    written = complete if before_round is None else before_round - 1
    entries = tournament_entries(tournament)
    history = [p for p in history_of(tournament, entries) if p.round <= written + 1]
    f = field_of(tournament, entries)
    nxt = written + 1
    absent: set[int] = set()
    if nxt <= tournament.current_round:
        taking_part = {p.a for p in history if p.round == nxt}
        taking_part |= {p.b for p in history if p.round == nxt and p.b is not None}
        absent = set(range(len(entries))) - taking_part
    elif tournament.status == Tournament.Status.RUNNING and nxt <= (tournament.rounds or 0):
        absent = {e.seed for e in f.entrants if e.withdrawn}
    prefix = [p for p in history if p.round <= written]
    tpn = pairing_numbers(f)
    ranks = {row.player: row.rank for row in get_format(tournament.format).order(f, prefix)}
    trf = from_arena(
        f,
        prefix,
        [f"{e.engine_version.engine.name} v{e.engine_version.number}" for e in entries],
        rounds_paired=written,
        absent=absent,
        ranks=ranks,
        ids=[tpn[i] for i in range(len(entries))],
        ratings=[None if e.rating is None else round(e.rating) for e in entries],
        name=tournament.name,
    )
    suffix = "" if before_round is None else f"-before-round-{before_round}"
    return TrfExport(trf.text(), f"tournament-{tournament.pk}{suffix}.trf", written)
