"""The browsing pages: home, the lists of engines, matches and tournaments, a match and a
tournament. Thin: each reads through the selectors (and filters) the API uses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from rest_framework.exceptions import ValidationError

from arena.api.filters import variant_id
from arena.matches import models as match_models
from arena.matches import selectors as match_selectors
from arena.matches.filters import MatchFilter
from arena.matches.models import Match
from arena.rules import VARIANTS
from arena.web import tournament_layout
from arena.web.charts import sparkline
from arena.web.forms import Field, bind
from arena.web.paging import Listing, listing
from arena.web.views import not_found
from engines import selectors as engine_selectors
from engines.serializers import EngineFilterInputSerializer
from ratings import selectors as rating_selectors
from ratings.stats.whr import PROVISIONAL_GAMES
from tournaments import selectors
from tournaments.models import Tournament
from tournaments.serializers import TournamentListQuery

LEADERBOARD_ROWS = 15
HOME_ROWS = 10
#: Rating points drawn in a leaderboard's trend line (the version's latest matches).
TREND_POINTS = 12

VARIANT_CHOICES = [("", "any variant"), *match_models.VARIANT_CHOICES]


def _games(match: Match) -> list[Any]:
    return sorted(match.games.all(), key=lambda g: g.index)


def leaderboards() -> list[dict[str, Any]]:
    """Per variant: the top established and the top provisional rows of the leaderboard (two
    tables), each with the version's trend (the change over its last ``TREND_POINTS`` rating
    points, and their sparkline); the rows of all variants in one query, their trends in
    another."""
    tops = rating_selectors.leaderboard_tops(variants=list(VARIANTS), rows=LEADERBOARD_ROWS)
    trends = rating_selectors.rating_trends(
        keys=[
            (r.engine_version_id, top.variant)
            for top in tops
            for r in (*top.established, *top.provisional)
        ],
        points=TREND_POINTS,
    )

    def rows(variant: str, ratings: list[Any]) -> list[dict[str, Any]]:
        return [
            {"r": r, "trend": _trend(trends.get((r.engine_version_id, variant), []))}
            for r in ratings
        ]

    return [
        {
            "variant": top.variant,
            "established": rows(top.variant, top.established),
            "provisional": rows(top.variant, top.provisional),
        }
        for top in tops
    ]


def _trend(values: list[float]) -> dict[str, Any]:
    change = values[-1] - values[0] if len(values) > 1 else 0.0
    return {"change": change, "points": sparkline(values), "n": len(values)}


def home(request: HttpRequest) -> HttpResponse:
    """``/``: the leaderboard of each variant with trends, the matches and tournaments being
    played, the latest results."""
    running = list(match_selectors.matches_running()[:HOME_ROWS])
    results = list(match_selectors.matches_recent_results()[:HOME_ROWS])
    return render(
        request,
        "web/home.html",
        {
            "boards": leaderboards(),
            "provisional_games": PROVISIONAL_GAMES,
            "running": running,
            "live_count": match_selectors.live_games_running().count(),
            "tournaments": list(
                selectors.tournament_list().filter(
                    status__in=(Tournament.Status.RUNNING, Tournament.Status.SCHEDULED)
                )[:HOME_ROWS]
            ),
            "results": [(m, _games(m)) for m in results],
        },
    )


# --- lists ------------------------------------------------------------------------------------

ENGINE_FILTERS = (
    Field("search", "Name contains"),
    Field("variant", "Plays", kind="select", choices=VARIANT_CHOICES),
    Field("owner", "Owner (username)"),
    Field(
        "enabled",
        "Status",
        kind="select",
        choices=[("", "enabled or not"), ("true", "enabled"), ("false", "disabled")],
    ),
)


def engine_list(request: HttpRequest) -> HttpResponse:
    """``/engines/``: engines by name, filtered as ``GET /api/engines/`` is."""

    def query(filters: dict[str, str]) -> Any:
        data = EngineFilterInputSerializer(data=filters)
        data.is_valid(raise_exception=True)
        return engine_selectors.engine_list(**data.validated_data)

    def row(engine: Any) -> Any:
        versions = list(engine.versions.all())  # prefetched, in number order
        return engine, (versions[-1] if versions else None)

    result = listing(
        request, tuple(f.name for f in ENGINE_FILTERS), query, {"unknown_variant": "variant"}
    )
    return list_page(request, "web/engines.html", result, ENGINE_FILTERS, row)


MATCH_FILTERS = (
    Field("engine", "Engine"),
    Field("variant", "Variant", kind="select", choices=VARIANT_CHOICES),
    Field(
        "status",
        "Status",
        kind="select",
        choices=[("", "any status"), *[(s, s) for s in Match.Status.values]],
    ),
    Field("tournament", "Tournament id"),
    Field(
        "rated",
        "Rated",
        kind="select",
        choices=[("", "rated or not"), ("true", "rated"), ("false", "unrated")],
    ),
)


def match_list(request: HttpRequest) -> HttpResponse:
    """``/matches/``: matches newest first, filtered as ``GET /api/matches/`` is (the same
    ``MatchFilter``)."""

    def query(filters: dict[str, str]) -> Any:
        filterset = MatchFilter(filters, queryset=match_selectors.match_list_with_games())
        if not filterset.is_valid():
            raise ValidationError(filterset.errors)
        return filterset.qs

    result = listing(
        request, tuple(f.name for f in MATCH_FILTERS), query, {"unknown_variant": "variant"}
    )
    return list_page(request, "web/matches.html", result, MATCH_FILTERS, lambda m: (m, _games(m)))


TOURNAMENT_FILTERS = (
    Field("variant", "Variant", kind="select", choices=VARIANT_CHOICES),
    Field(
        "status",
        "Status",
        kind="select",
        choices=[("", "any status"), *[(s, s) for s in Tournament.Status.values]],
    ),
)


def tournament_list(request: HttpRequest) -> HttpResponse:
    """``/tournaments/``: tournaments, latest start first (``GET /api/tournaments/``)."""

    def query(filters: dict[str, str]) -> Any:
        data = TournamentListQuery(data=filters)
        data.is_valid(raise_exception=True)
        variant = data.validated_data.get("variant")
        return selectors.tournament_list(
            status=data.validated_data.get("status"),
            variant=variant_id(variant) if variant else None,
        )

    result = listing(
        request, tuple(f.name for f in TOURNAMENT_FILTERS), query, {"unknown_variant": "variant"}
    )
    return list_page(request, "web/tournaments.html", result, TOURNAMENT_FILTERS, lambda t: t)


def list_page(
    request: HttpRequest,
    template: str,
    result: Listing,
    fields: tuple[Field, ...],
    row: Callable[[Any], Any],
) -> HttpResponse:
    """A list page: the filters with their errors (the API's status then), the rows of the
    page made by ``row``, the pager."""
    rows = [row(item) for item in result.page.object_list] if result.page is not None else []
    return render(
        request,
        template,
        {
            "listing": result,
            "rows": rows,
            "filters": bind(fields, result.filters, result.errors),
            "filter_errors": result.errors.form if result.errors else [],
        },
        status=result.errors.status if result.errors else 200,
    )


# --- a match, a tournament --------------------------------------------------------------------


def match_page(request: HttpRequest, match_id: int) -> HttpResponse:
    """``/matches/<id>/``: the match, its games (replay links), its live games if running,
    its place in the queue while it waits; its challenger (or staff) may cancel it."""
    match = match_selectors.match_detail_queryset().filter(pk=match_id).first()
    if match is None:
        return not_found(request, f"There is no match {match_id}.")
    live = list(match_selectors.live_game_queryset().filter(match=match).order_by("index"))
    user = request.user
    open_ = match.status in (Match.Status.PENDING, Match.Status.RUNNING)
    return render(
        request,
        "web/match.html",
        {
            "m": match,
            "games": _games(match),
            "live": live,
            "queue_position": match_selectors.queue_position(match),
            "may_cancel": open_
            and (
                bool(getattr(user, "is_staff", False))
                or (user.is_authenticated and match.challenger_id == user.pk)
            ),
        },
    )


#: How the standings' order is named on the page (``TournamentFormat.ranking``).
RANKING_NAMES = {
    "points": "points",
    "sonneborn_berger": "Sonneborn-Berger",
    "buchholz": "Buchholz",
    "head_to_head": "head-to-head",
    "games_won": "games won",
    "round_reached": "round reached",
    "seed": "seed",
}
#: Tie-breaks shown as columns of their own (the others are read from the other columns).
TIE_BREAK_COLUMNS = ("buchholz", "sonneborn_berger")


#: How a knockout tie was decided (``tournaments.formats.knockout.BY_*``), for people.
DECIDED_BY = {
    "bye": "a bye",
    "match": "won the match",
    "decisive_game": "won the decisive game",
    "higher_seed": "the higher seed, the decisive games drawn",
    "forfeit": "by forfeit",
}


def _bracket(rounds: list[list[Any]], names: list[str]) -> list[list[dict[str, Any]]]:
    """The knockout's rounds paired so far, then the rounds to come down to the final, each
    tie to come named by the two ties whose winners meet there."""
    drawn = [
        [
            {
                "tie": tie,
                "high": names[tie.high],
                "low": None if tie.low is None else names[tie.low],
                "how": _decided(tie),
            }
            for tie in ties
        ]
        for ties in rounds
    ]
    while drawn and len(drawn[-1]) > 1:
        before = len(drawn)
        drawn.append(
            [
                {
                    "tie": None,
                    "high": f"winner of round {before} tie {i + 1}",
                    "low": f"winner of round {before} tie {i + 2}",
                    "how": "to come",
                }
                for i in range(0, len(drawn[-1]), 2)
            ]
        )
    return drawn


def _decided(tie: Any) -> str:
    if tie.winner is None:
        return "waiting for its match" if tie.waiting else "not decided yet"
    return DECIDED_BY.get(tie.decided_by, str(tie.decided_by))


def tournament_page(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """``/tournaments/<id>/``: progress, standings (ordered as its format says), crosstable,
    the knockout bracket, the pairings being played and the next ones, live games, every
    round with its matches, byes and forfeits; the creator (or staff) may cancel it.

    The standings and everything from the bracket down are laid out apart
    (``_tournament_standings.html``, ``_tournament_results.html``), and kept in the cache once
    the tournament has ended (``selectors.tournament_ended_cached``): a finished 48-engine
    round robin reads 1,128 matches and lays out 2,304 crosstable cells (0.6 s before they
    were laid out in Python, about 40 ms since)."""
    tournament = Tournament.objects.select_related("created_by").filter(pk=tournament_id).first()
    if tournament is None:
        return not_found(request, f"There is no tournament {tournament_id}.")
    counts = selectors.tournament_match_counts(tournament)
    if selectors.tournament_ended_key(tournament, counts) is not None:
        # Ended, every match ended: nothing is being played or waits, no pairing is planned.
        current: list[selectors.RoundMatch] = []
        upcoming: list[selectors.RoundMatch] = []
        planned: list[tuple[str, str | None]] = []
        progress, standings_html, results_html = selectors.tournament_ended_cached(
            tournament, counts, "web", lambda: _tournament_parts(tournament, counts)[0]
        )
    else:
        (progress, standings_html, results_html), current, upcoming, planned = _tournament_parts(
            tournament, counts
        )
    user = request.user
    may_cancel = tournament.status in (Tournament.Status.SCHEDULED, Tournament.Status.RUNNING) and (
        bool(getattr(user, "is_staff", False))
        or (user.is_authenticated and tournament.created_by_id == user.pk)
    )
    return render(
        request,
        "web/tournament.html",
        {
            "t": tournament,
            "progress": progress,
            "standings_html": standings_html,
            "results_html": results_html,
            "current": current,
            "upcoming": upcoming[:10],
            "upcoming_more": max(0, len(upcoming) - 10),
            "planned": planned,
            "live": list(match_selectors.tournament_live_games(tournament.pk)),
            "may_cancel": may_cancel,
        },
    )


def _tournament_parts(
    tournament: Tournament, counts: tuple[int, int, int]
) -> tuple[
    tuple[selectors.Progress, str, str],
    list[selectors.RoundMatch],
    list[selectors.RoundMatch],
    list[tuple[str, str | None]],
]:
    """The tournament page's progress and laid-out standings and results (safe HTML), and its
    matches being played, its matches waiting, and the pairings of round 1 before the start
    (names); ``counts`` its ``tournament_match_counts``. Everything but the first round's
    preview is read by ``selectors.tournament_table``; the crosstable and the matches are laid
    out in Python (``arena.web.tournament_layout``)."""
    table = selectors.tournament_table(tournament)
    progress = selectors.tournament_progress(tournament, counts, table.games_played)
    names = [str(e.engine_version) for e in table.entries]
    current = [m for m in table.matches if m.status == Match.Status.RUNNING]
    upcoming = [m for m in table.matches if m.status == Match.Status.PENDING]
    planned: list[tuple[str, str | None]] = []
    if not table.matches and tournament.status == Tournament.Status.SCHEDULED:
        planned = [
            (names[a], None if b is None else names[b])
            for a, b in selectors.tournament_first_round(tournament)
        ]
    columns = [t for t in TIE_BREAK_COLUMNS if t in table.ranking]
    standings_html = render_to_string(
        "web/_tournament_standings.html",
        {
            "ranking": [RANKING_NAMES.get(r, r) for r in table.ranking],
            "columns": [RANKING_NAMES[c] for c in columns],
            "standings": [
                (row, table.entries[row.player], [getattr(row, c) for c in columns])
                for row in table.standings
            ],
        },
    )
    results_html = render_to_string(
        "web/_tournament_results.html",
        {
            "names": names,
            "cross": tournament_layout.crosstable_rows(names, table.crosstable),
            "bracket": None if table.bracket is None else _bracket(table.bracket, names),
            "rounds": tournament_layout.rounds_of(
                table.matches,
                {r.number: [names[i] for i in r.byes] for r in table.rounds},
                {r.number: r.forfeits for r in table.rounds},
            ),
        },
    )
    return (progress, standings_html, results_html), current, upcoming, planned
