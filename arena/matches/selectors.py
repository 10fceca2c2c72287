"""Reads of the matches app: match lists and details, replays, who may see engine errors."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Prefetch, QuerySet

from arena.matches.models import Game, LiveGame, Match

_VERSION_FIELDS = (
    "engine_a__engine",
    "engine_b__engine",
    "winner__engine",
)


#: Columns of the joined engine versions that no match list shows (a JSON decode each).
_VERSION_UNSHOWN = ("variants", "failed_variants", "rejection_log", "rejection_reason")


def match_list() -> QuerySet[Match]:
    """Every match, newest first (the ``match_created_idx`` order), with its engines joined
    (filters are applied by the view)."""
    unshown = [
        f"{side}__{column}"
        for side in ("engine_a", "engine_b", "winner")
        for column in _VERSION_UNSHOWN
    ]
    return (
        Match.objects.select_related(*_VERSION_FIELDS, "tournament")
        .defer(*unshown)
        .order_by("-created_at", "-id")
    )


def match_detail_queryset() -> QuerySet[Match]:
    """Matches with their games (without the move lists, which only the replay needs)."""
    games = Game.objects.select_related("south__engine", "north__engine", "winner__engine").defer(
        "moves", "engine_errors"
    )
    return match_list().prefetch_related(Prefetch("games", queryset=games.order_by("index")))


def game_summaries() -> QuerySet[Game]:
    """Games in index order with only what a list of matches shows (id, match, index, result,
    termination): to prefetch as ``Prefetch("games", queryset=game_summaries())`` where the
    move lists, which only a replay needs, would be decoded for nothing."""
    return Game.objects.only("id", "match_id", "index", "result", "termination").order_by("index")


def game_queryset() -> QuerySet[Game]:
    """Games with everything a replay shows."""
    return Game.objects.select_related(
        "match", "match__tournament", "south__engine", "north__engine", "winner__engine"
    )


def game_visible_engine_errors(
    game: Game, user: AbstractBaseUser | AnonymousUser | None
) -> dict[str, Any]:
    """The stderr tails of ``game`` the user may read: an engine's own errors are shown to its
    owner (and to staff) only, since stderr can reveal an engine's internals; others get ``{}``
    for that side. Shape ``{"south": "<text>", "north": "<text>"}`` (sides without errors
    omitted)."""
    errors: dict[str, Any] = game.engine_errors or {}
    if user is None or not user.is_authenticated:
        return {}
    if getattr(user, "is_staff", False):
        return dict(errors)
    owners = {"south": game.south.engine.owner_id, "north": game.north.engine.owner_id}
    return {side: text for side, text in errors.items() if owners.get(side) == user.pk}


def live_game_queryset() -> QuerySet[LiveGame]:
    """Live games with their match and engines joined."""
    return LiveGame.objects.select_related("match", "south__engine", "north__engine")


def live_games_running() -> QuerySet[LiveGame]:
    """The games being played now: running live rows of running matches (a row left
    ``running`` by a worker that died belongs to a match that is no longer ``running``, or
    is reset when the match is played again), newest first."""
    return live_game_queryset().filter(
        status=LiveGame.Status.RUNNING, match__status=Match.Status.RUNNING
    )


def live_game_replay_id(live: LiveGame) -> int | None:
    """The id of the stored replay of a live game, once its match is recorded, else None."""
    return Game.objects.filter(match_id=live.match_id, index=live.index).values_list(
        "pk", flat=True
    ).first()
