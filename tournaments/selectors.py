"""Reads of the tournaments app: tournament progress, standings and crosstable, leaderboards,
rating history. Views and the demo command call these; nothing here writes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar

from django.core.cache import cache
from django.db.models import Count, F, Q, QuerySet, Window
from django.db.models.functions import Rank, RowNumber

from arena.matches.models import ENDED_STATUSES, Game, Match
from arena.matches.selectors import match_list_with_games
from arena.rules import SOUTH_POINTS
from engines.models import EngineVersion
from tournaments.formats import get_format
from tournaments.formats.base import Tie
from tournaments.models import (
    Rating,
    RatingPoint,
    RatingPool,
    Tournament,
    TournamentEntry,
    UnplayedResult,
)
from tournaments.rounds import field_of, history_of
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
        matches_done=Count(
            "matches", filter=Q(matches__status__in=ENDED_STATUSES), distinct=True
        ),
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
    tournament: Tournament, counts: tuple[int, int, int] | None = None
) -> Progress:
    """Progress counters of ``tournament`` (all zero before it starts); ``counts`` the
    ``tournament_match_counts`` already read, if any."""
    total, done, running = counts or tournament_match_counts(tournament)
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


def tournament_results(tournament: Tournament, entries: list[TournamentEntry]) -> list[MatchResult]:
    """The finished matches of ``tournament`` as ``MatchResult`` over entry indexes.

    Aborted matches and matches with no score are left out (they score nothing), and so are
    knockout deciders (one-game matches: they decide a tie, shown in the bracket). Read from
    the results only (two queries of plain columns): the games' move lists are never loaded.
    """
    index = {e.engine_version_id: i for i, e in enumerate(entries)}
    finished = tournament.matches.filter(status=Match.Status.FINISHED).exclude(best_of=1)
    matches = finished.order_by("id").values_list(
        "id", "engine_a_id", "engine_b_id", "score_a", "score_b"
    )
    games: dict[int, list[tuple[int, int, str]]] = {}
    rows = (
        Game.objects.filter(match__in=finished.values("id"))
        .order_by("match_id", "index")
        .values_list("match_id", "index", "south_id", "result")
    )
    for match_id, game_index, south_id, result in rows:
        games.setdefault(match_id, []).append((game_index, south_id, result))
    results: list[MatchResult] = []
    for match_id, a, b, score_a, score_b in matches:
        if score_a is None or score_b is None or a not in index or b not in index:
            continue
        scores = tuple(
            SOUTH_POINTS[result] if south_id == a else 1.0 - SOUTH_POINTS[result]
            for _, south_id, result in games.get(match_id, ())
            if result in SOUTH_POINTS
        )
        results.append(MatchResult(index[a], index[b], score_a, score_b, scores, match_id))
    return results


def tournament_awards(tournament: Tournament, entries: list[TournamentEntry]) -> list[Award]:
    """Byes and forfeit wins of ``tournament`` as ``Award`` over entry indexes."""
    index = {e.pk: i for i, e in enumerate(entries)}
    return [
        Award(index[u.entry_id], None if u.opponent_id is None else index[u.opponent_id])
        for u in tournament.unplayed_results.order_by("round", "id")
    ]


#: The columns of a round's matches that ``RoundView`` holds (others are deferred).
ROUND_MATCH_FIELDS = (
    "id", "tournament_id", "round", "engine_a_id", "engine_b_id", "best_of", "status",
    "score_a", "score_b", "winner_id",
)  # fmt: skip


@dataclass(frozen=True)
class RoundView:
    """One round as paired: its matches (``Match`` rows, deciders included, with
    ``ROUND_MATCH_FIELDS`` loaded and both engine versions), byes (entry indexes) and
    forfeits (``UnplayedResult`` rows)."""

    number: int
    matches: list[Any]
    byes: list[int]
    forfeits: list[UnplayedResult]


@dataclass(frozen=True)
class TournamentTable:
    """Standings (ordered rows), crosstable (rows/columns in seed order), what orders the
    standings, the rounds as paired, and the bracket of an elimination format (else None)."""

    entries: list[TournamentEntry]
    standings: list[StandingRow]
    crosstable: list[list[CrossCell | None]]
    ranking: tuple[str, ...] = ()
    rounds: list[RoundView] = field(default_factory=list)
    bracket: list[list[Tie]] | None = None


def tournament_rounds(tournament: Tournament, entries: list[TournamentEntry]) -> list[RoundView]:
    """Rounds 1..``current_round`` with their matches, byes and forfeits."""
    index = {e.pk: i for i, e in enumerate(entries)}
    # Only what a pairing shows, with the versions the entries already loaded: a 64-engine
    # round robin has 2,016 matches, and joining two engines into each cost more than the
    # standings.
    matches = list(tournament.matches.only(*ROUND_MATCH_FIELDS).order_by("round", "id"))
    versions = {e.engine_version_id: e.engine_version for e in entries}
    others = {v for m in matches for v in (m.engine_a_id, m.engine_b_id)} - versions.keys()
    if others:  # none in a tournament: every match is between two entries
        versions.update(EngineVersion.objects.select_related("engine").in_bulk(others))
    for m in matches:
        m.engine_a, m.engine_b = versions[m.engine_a_id], versions[m.engine_b_id]
    unplayed = list(
        tournament.unplayed_results.select_related(
            "entry__engine_version__engine", "opponent__engine_version__engine"
        ).order_by("round", "id")
    )
    return [
        RoundView(
            number,
            [m for m in matches if m.round == number],
            [index[u.entry_id] for u in unplayed if u.round == number and u.kind == "bye"],
            [u for u in unplayed if u.round == number and u.kind == "forfeit"],
        )
        for number in range(1, tournament.current_round + 1)
    ]


def tournament_table(tournament: Tournament) -> TournamentTable:
    """Standings, crosstable, rounds and bracket of ``tournament`` from what was played so
    far, ordered by its format (``TournamentFormat.table``)."""
    fmt = get_format(tournament.format)
    entries = tournament_entries(tournament)
    results = tournament_results(tournament, entries)
    awards = tournament_awards(tournament, entries)
    f = field_of(tournament, entries)
    history = history_of(tournament, entries)
    return TournamentTable(
        entries,
        fmt.table(f, history, results, awards),
        crosstable(len(entries), results),
        fmt.ranking,
        tournament_rounds(tournament, entries),
        fmt.bracket(f, history) if tournament.current_round else None,
    )


class _Ranked(TypedDict):
    rank: int


if TYPE_CHECKING:  # WithAnnotations takes its TypedDict argument for the type checker only
    from django_stubs_ext import WithAnnotations

    #: A ``Rating`` annotated with its leaderboard ``rank``.
    RankedRating = WithAnnotations[Rating, _Ranked]


def leaderboard(*, variant: str, provisional: bool | None = None) -> QuerySet[RankedRating]:
    """The rated versions of ``variant`` in the latest fit, best first, annotated with ``rank``.

    ``rank`` is 1 + the number of listed ratings strictly higher (ties share a rank), computed
    over the listed rows (after the ``provisional`` filter). Versions the fit left out (not
    connected to the pool) are not listed: ``leaderboard_excluded``.
    """
    qs = Rating.objects.filter(variant=variant, rating__isnull=False).select_related(
        "engine_version__engine"
    )
    if provisional is not None:
        qs = qs.filter(provisional=provisional)
    return qs.annotate(rank=Window(expression=Rank(), order_by=F("rating").desc())).order_by(
        "-rating", "engine_version__engine__name", "engine_version__number"
    )


def leaderboard_excluded(*, variant: str) -> QuerySet[Rating]:
    """Versions of ``variant`` with rated games that the latest fit did not rate, with why."""
    return (
        Rating.objects.filter(variant=variant, rating__isnull=True)
        .select_related("engine_version__engine")
        .order_by("engine_version__engine__name", "engine_version__number")
    )


def rating_pool(*, variant: str) -> RatingPool | None:
    """The refit bookkeeping of ``variant`` (last fit time, games, engines), or None."""
    return RatingPool.objects.filter(variant=variant).first()


def rating_history(*, engine_name: str, variant: str | None = None) -> QuerySet[RatingPoint]:
    """Rating history of every version of the engine named ``engine_name``, oldest first: the
    fitted rating after each of its matches, as of the first refit that included it."""
    qs = RatingPoint.objects.filter(engine_version__engine__name=engine_name).select_related(
        "engine_version__engine", "opponent__engine"
    )
    if variant:
        qs = qs.filter(variant=variant)
    return qs.order_by("finished_at", "id")


def rating_trends(*, version_ids: list[int], points: int) -> dict[tuple[int, str], list[float]]:
    """The last ``points`` fitted ratings (Elo, oldest first) of each version in
    ``version_ids`` in each variant it is rated in (``RatingPoint`` history), keyed by
    ``(version id, variant)``: the leaderboards' trend column.

    One query whatever the number of versions and variants: the rows are numbered per version
    and variant from the newest (a window function) and only the first ``points`` are read.
    """
    if not version_ids or points < 1:
        return {}
    rows = (
        RatingPoint.objects.filter(engine_version_id__in=version_ids)
        .annotate(
            recent=Window(
                expression=RowNumber(),
                partition_by=[F("engine_version_id"), F("variant")],
                order_by=[F("finished_at").desc(), F("id").desc()],
            )
        )
        .filter(recent__lte=points)
        .values_list("engine_version_id", "variant", "rating", "recent")
    )
    trends: dict[tuple[int, str], list[tuple[int, float]]] = {}
    for version_id, variant, rating, recent in rows:
        trends.setdefault((version_id, variant), []).append((recent, rating))
    return {key: [r for _, r in sorted(items, reverse=True)] for key, items in trends.items()}


@dataclass(frozen=True)
class HistoryPoint:
    """One point of a rating history chart: ``rating``/``low``/``high`` in Elo after the
    match that finished at ``finished_at``."""

    variant: str
    version: int
    finished_at: Any
    rating: float
    low: float
    high: float


def engine_rating_points(*, engine_id: int) -> list[HistoryPoint]:
    """Every ``RatingPoint`` of an engine's versions, oldest first, as plain values (one
    query, no model rows: a chart of thousands of points stays cheap)."""
    rows = (
        RatingPoint.objects.filter(engine_version__engine_id=engine_id)
        .order_by("finished_at", "id")
        .values_list(
            "variant", "engine_version__number", "finished_at", "rating", "low", "high"
        )
    )
    return [HistoryPoint(*row) for row in rows]


def engine_current_ratings(*, engine_id: int) -> QuerySet[Rating]:
    """The latest fit's row of each version of an engine in each variant, best first."""
    return (
        Rating.objects.filter(engine_version__engine_id=engine_id)
        .select_related("engine_version__engine")
        .order_by("variant", F("rating").desc(nulls_last=True), "-engine_version__number")
    )


def tournament_matches(tournament: Tournament) -> QuerySet[Match]:
    """The matches of ``tournament`` in round order, engines joined, their games' summaries
    prefetched."""
    return match_list_with_games().filter(tournament=tournament).order_by("round", "id")


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
