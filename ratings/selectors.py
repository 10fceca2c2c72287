"""Reads of ratings: leaderboards, the excluded versions, each variant's pool, rating history
and trends. Views, the web pages and the demo command call these; nothing here writes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

from django.db import connection
from django.db.models import F, QuerySet, Window
from django.db.models.functions import Coalesce, Rank, RowNumber

from ratings.models import Rating, RatingPoint, RatingPool


class _Ranked(TypedDict):
    rank: int


if TYPE_CHECKING:  # WithAnnotations takes its TypedDict argument for the type checker only
    from django_stubs_ext import WithAnnotations

    #: A ``Rating`` annotated with its leaderboard ``rank``.
    RankedRating = WithAnnotations[Rating, _Ranked]


def leaderboard(*, variant: str, provisional: bool | None = None) -> QuerySet[RankedRating]:
    """The rated versions of ``variant`` in the latest fit, annotated with ``rank``: the
    established versions best first, then the provisional ones best first (lila #720: a
    version with a handful of games, or only a bound, must not rank above engines with
    hundreds).

    ``rank`` counts within each of the two lists: 1 + the number of listed ratings of the same
    list strictly higher (ties share a rank), computed over the listed rows (after the
    ``provisional`` filter). Versions the fit left out (not connected to the pool) are not
    listed: ``leaderboard_excluded``.
    """
    qs = Rating.objects.filter(variant=variant, rating__isnull=False).select_related(
        "engine_version__engine"
    )
    if provisional is not None:
        qs = qs.filter(provisional=provisional)
    rank = Window(expression=Rank(), partition_by=[F("provisional")], order_by=F("rating").desc())
    return qs.annotate(rank=rank).order_by(
        "provisional", "-rating", "engine_version__engine__name", "engine_version__number"
    )


@dataclass(frozen=True)
class LeaderboardTop:
    """The top of one variant's leaderboard: its first established and provisional rows (each
    a ``RankedRating``, ranked within its own list as ``leaderboard`` ranks them)."""

    variant: str
    established: list[Any]
    provisional: list[Any]


def leaderboard_tops(*, variants: Sequence[str], rows: int) -> list[LeaderboardTop]:
    """The first ``rows`` established and ``rows`` provisional versions of each of
    ``variants`` (in that order), in one query: the home page's leaderboards."""
    within = [F("variant"), F("provisional")]
    order: list[Any] = [
        F("rating").desc(),
        F("engine_version__engine__name"),
        F("engine_version__number"),
    ]
    qs = (
        Rating.objects.filter(variant__in=variants, rating__isnull=False)
        .select_related("engine_version__engine")
        .annotate(
            rank=Window(expression=Rank(), partition_by=within, order_by=F("rating").desc()),
            place=Window(expression=RowNumber(), partition_by=within, order_by=order),
        )
        .filter(place__lte=rows)
        .order_by("variant", "provisional", *order)
    )
    tops = {v: LeaderboardTop(v, [], []) for v in variants}
    for row in qs:
        top = tops[row.variant]
        (top.provisional if row.provisional else top.established).append(row)
    return list(tops.values())


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


def rating_trends(
    *, keys: Sequence[tuple[int, str]], points: int
) -> dict[tuple[int, str], list[float]]:
    """The last ``points`` fitted ratings (Elo, oldest first) of each ``(version id,
    variant)`` of ``keys`` that has any (``RatingPoint`` history), keyed by it: the
    leaderboards' trend column.

    One query, reading ``points`` rows per key whatever the history's length: on PostgreSQL
    a ``LATERAL`` join, each key's newest rows through the ``rating_point_history_idx``
    index (the window function below numbered every point of the versions first: 5,000 rows
    at 2x10^4 games, 26,000 at 10^5, about 10 ms -> 0.5 ms); elsewhere (SQLite) the rows of
    the versions are numbered per key from the newest and only the first ``points`` kept.
    """
    keys = sorted(set(keys))
    if not keys or points < 1:
        return {}
    rows: Iterable[tuple[int, str, float]]
    if connection.vendor == "postgresql":
        table = RatingPoint._meta.db_table
        with connection.cursor() as cursor:
            cursor.execute(
                f"""SELECT k.version_id, k.variant, p.rating
                FROM unnest(%s::bigint[], %s::text[]) AS k(version_id, variant)
                CROSS JOIN LATERAL (
                    SELECT rating, finished_at, id FROM {table}
                    WHERE engine_version_id = k.version_id AND variant = k.variant
                    ORDER BY finished_at DESC, id DESC LIMIT %s
                ) AS p
                ORDER BY k.version_id, k.variant, p.finished_at, p.id""",
                [[v for v, _ in keys], [variant for _, variant in keys], points],
            )  # fmt: skip
            rows = cursor.fetchall()
    else:
        wanted = set(keys)
        numbered = (
            RatingPoint.objects.filter(engine_version_id__in={v for v, _ in keys})
            .annotate(
                recent=Window(
                    expression=RowNumber(),
                    partition_by=[F("engine_version_id"), F("variant")],
                    order_by=[F("finished_at").desc(), F("id").desc()],
                )
            )
            .filter(recent__lte=points)
            .order_by("engine_version_id", "variant", "finished_at", "id")
            .values_list("engine_version_id", "variant", "rating")
        )
        rows = (row for row in numbered if (row[0], row[1]) in wanted)
    trends: dict[tuple[int, str], list[float]] = {}
    for version_id, variant, rating in rows:
        trends.setdefault((version_id, variant), []).append(rating)
    return trends


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
    query, no model rows: a chart of thousands of points stays cheap). The unbounded end of
    a bound's interval (None) is drawn at the rating itself."""
    rows = (
        RatingPoint.objects.filter(engine_version__engine_id=engine_id)
        .order_by("finished_at", "id")
        .values_list(
            "variant",
            "engine_version__number",
            "finished_at",
            "rating",
            Coalesce("low", "rating"),
            Coalesce("high", "rating"),
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


def version_ratings(*, variant: str, version_ids: Sequence[int]) -> dict[int, float]:
    """The Elo of each of ``version_ids`` rated in ``variant``'s latest fit (versions without
    a rating are left out)."""
    rows = Rating.objects.filter(
        variant=variant, engine_version_id__in=list(version_ids), rating__isnull=False
    ).values_list("engine_version_id", "rating")
    return {int(version): float(rating) for version, rating in rows if rating is not None}
