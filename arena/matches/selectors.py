"""Reads of the matches app: match lists and details, replays, who may see engine errors."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Prefetch, QuerySet

from arena.matches.models import Game, Match

_VERSION_FIELDS = (
    "engine_a__engine",
    "engine_b__engine",
    "winner__engine",
)


def match_list() -> QuerySet[Match]:
    """Every match, newest first, with its engines joined (filters are applied by the view)."""
    return Match.objects.select_related(*_VERSION_FIELDS, "tournament").order_by(
        "-created_at", "-id"
    )


def match_detail_queryset() -> QuerySet[Match]:
    """Matches with their games (without the move lists, which only the replay needs)."""
    games = Game.objects.select_related("south__engine", "north__engine", "winner__engine").defer(
        "moves", "engine_errors"
    )
    return match_list().prefetch_related(Prefetch("games", queryset=games.order_by("index")))


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
