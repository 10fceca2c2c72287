"""Reads of people's games: one game's state for its person (position, legal moves, clocks),
and the lists of the profile and engine pages."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import QuerySet
from django.utils import timezone

from arena.matches.selectors import events_past
from arena.rules import get_variant
from people.models import PersonGame, PersonGameEvent
from people.rules_view import legal_moves

#: Games shown on a profile or engine page.
RECENT = 20


def clocks_now(game: PersonGame, now: datetime | None = None) -> dict[str, Any]:
    """``{"south_ms", "north_ms", "running"}``: each clock as it stands ``now`` (the side to
    move's clock less the time since its turn began), ``running`` the side whose clock runs
    (``"S"``/``"N"``; None before the start and after the end)."""
    south, north = game.clock_south_ms, game.clock_north_ms
    running = None
    if game.status == PersonGame.Status.RUNNING and game.turn_started_at is not None:
        running = game.position.split()[1] if len(game.position.split()) > 1 else None
        spent = int(((now or timezone.now()) - game.turn_started_at).total_seconds() * 1000)
        if running == "S":
            south = max(0, south - spent)
        elif running == "N":
            north = max(0, north - spent)
    return {"south_ms": south, "north_ms": north, "running": running}


def game_state(game: PersonGame) -> dict[str, Any]:
    """What ``GET /api/play/{id}/`` answers (``people.serializers.PersonGameOutput``)."""
    v = get_variant(game.variant)
    position = v.parse_position(game.position)
    yours = (
        game.status == PersonGame.Status.RUNNING
        and position.side == game.person_side
        and not game.pending_move
        and not game.resign_requested
    )
    legal = legal_moves(v, position) if yours else []
    # A position without a legal move ends the game (rules 9): the worker records it next.
    yours = yours and bool(legal)
    return {
        "id": game.pk,
        "status": game.status,
        "variant": game.variant,
        "time_control": game.time_control,
        "engine": str(game.engine),
        "engine_name": game.engine.engine.name,
        "your_side": game.person_side,
        "side_to_move": position.side,
        "your_turn": yours,
        "start_position": game.start_position,
        "position": game.position,
        "plies": game.plies,
        "moves": game.moves,
        "legal_moves": [m.move for m in legal],
        "legal": [m.to_dict() for m in legal],
        "clocks": clocks_now(game),
        "result": game.result,
        "termination": game.termination,
        "detail": game.detail,
        "replay": f"/play/{game.pk}/",
    }


def game_queryset() -> QuerySet[PersonGame]:
    return PersonGame.objects.select_related("engine__engine", "player")


def games_of_player(user_id: int) -> list[PersonGame]:
    """The person's latest ``RECENT`` games, newest first."""
    return list(game_queryset().filter(player_id=user_id)[:RECENT])


def games_of_engine(engine_id: int) -> list[PersonGame]:
    """The latest ``RECENT`` games people played against engine ``engine_id`` (any version)."""
    return list(game_queryset().filter(engine__engine_id=engine_id)[:RECENT])


def game_for_stream(game_id: int) -> PersonGame | None:
    """Game ``game_id`` for its event stream (any person's: games are public to watch)."""
    return PersonGame.objects.filter(pk=game_id).first()


def game_events_from(game_id: int, first_seq: int = 1) -> list[PersonGameEvent]:
    """The events of game ``game_id`` from ``first_seq`` on, in order."""
    return list(PersonGameEvent.objects.filter(game_id=game_id, seq__gte=first_seq).order_by("seq"))


def game_events_after(cursors: dict[int, int], limit: int = 5_000) -> list[PersonGameEvent]:
    """The events past each cursor (game id -> the last seq seen), by game and seq: one query
    for a few hundred games (``arena.matches.selectors.events_past``)."""
    return events_past(PersonGameEvent.objects.all(), "game_id", cursors, limit)


def games_ended(game_ids: list[int]) -> set[int]:
    """Which of ``game_ids`` are over (``finished``, ``aborted``) or gone."""
    open_ = PersonGame.objects.filter(
        pk__in=game_ids, status__in=(PersonGame.Status.PENDING, PersonGame.Status.RUNNING)
    ).values_list("pk", flat=True)
    return set(game_ids) - set(open_)
