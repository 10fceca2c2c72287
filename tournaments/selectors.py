"""Reads of the tournaments app: tournament progress, standings and crosstable, leaderboards,
rating history. Views and the demo command call these; nothing here writes."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, F, Q, QuerySet, Window
from django.db.models.functions import Rank

from tournaments.models import Rating, RatingPoint, RatingPool, Tournament, TournamentEntry
from tournaments.standings import (
    CrossCell,
    MatchResult,
    StandingRow,
    crosstable,
    standings,
)

_SOUTH_POINTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


def tournament_list(
    *, status: str | None = None, variant: str | None = None
) -> QuerySet[Tournament]:
    """Tournaments, newest start first, with ``matches_total``/``matches_done`` annotations."""
    qs = Tournament.objects.all().annotate(
        matches_total=Count("matches", distinct=True),
        matches_done=Count(
            "matches", filter=Q(matches__status__in=("finished", "aborted")), distinct=True
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


def tournament_progress(tournament: Tournament) -> Progress:
    """Progress counters of ``tournament`` (all zero before it starts)."""
    from arena.matches.models import Game

    counts = tournament.matches.aggregate(
        total=Count("id"),
        done=Count("id", filter=Q(status__in=("finished", "aborted"))),
        running=Count("id", filter=Q(status="running")),
    )
    games = Game.objects.filter(match__tournament=tournament).count()
    return Progress(counts["total"], counts["done"], counts["running"], games)


def tournament_entries(tournament: Tournament) -> list[TournamentEntry]:
    """Entries in seed order, with their engine version and engine loaded."""
    return list(tournament.entries.select_related("engine_version__engine").order_by("seed_no"))


def tournament_results(tournament: Tournament, entries: list[TournamentEntry]) -> list[MatchResult]:
    """The finished matches of ``tournament`` as ``MatchResult`` over entry indexes.

    Aborted matches and matches with no score are left out (they score nothing).
    """
    index = {e.engine_version_id: i for i, e in enumerate(entries)}
    results: list[MatchResult] = []
    matches = tournament.matches.filter(status="finished").prefetch_related("games").order_by("id")
    for m in matches:
        if (
            m.score_a is None
            or m.score_b is None
            or m.engine_a_id not in index
            or m.engine_b_id not in index
        ):
            continue
        games = []
        for g in sorted(m.games.all(), key=lambda g: g.index):
            if g.result not in _SOUTH_POINTS:
                continue
            south_points = _SOUTH_POINTS[g.result]
            games.append(south_points if g.south_id == m.engine_a_id else 1.0 - south_points)
        results.append(
            MatchResult(
                index[m.engine_a_id], index[m.engine_b_id], m.score_a, m.score_b, tuple(games), m.pk
            )
        )
    return results


@dataclass(frozen=True)
class TournamentTable:
    """Standings (ordered rows) and crosstable (rows/columns in seed order) of a tournament."""

    entries: list[TournamentEntry]
    standings: list[StandingRow]
    crosstable: list[list[CrossCell | None]]


def tournament_table(tournament: Tournament) -> TournamentTable:
    """Standings and crosstable of ``tournament`` from its finished matches so far."""
    entries = tournament_entries(tournament)
    results = tournament_results(tournament, entries)
    return TournamentTable(
        entries, standings(len(entries), results), crosstable(len(entries), results)
    )


def leaderboard(*, variant: str, provisional: bool | None = None) -> QuerySet[Rating]:
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
