"""A stored game as a ``GameLine`` (``arena.matches.gameline``): its export line and its text
record (``GET /api/games/{id}/record.txt``, in the manner of PGN; the layout is described in
``arena.matches.gameline``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.matches.gameline import EngineRef, GameLine, move_number, move_tokens, record_text
from arena.matches.models import Game
from arena.referee.output_cap import cap_stored_moves
from engines.models import EngineVersion

__all__ = ["game_line", "game_moves", "game_record_text", "move_number", "move_tokens"]


def game_moves(game: Game) -> list[dict[str, Any]]:
    """``game.moves`` held to the stored-output cap (``arena.referee.output_cap``: 64 KiB of
    ``info`` and of ignored lines per engine, a marker line for the rest), so a game stored
    before the referee capped its output reads like one stored since."""
    return cap_stored_moves(game.moves or [])


def _ref(version: EngineVersion) -> EngineRef:
    return EngineRef(
        id=version.pk, engine=version.engine.name, version=version.number, label=str(version)
    )


def _event(game: Game) -> str:
    match = game.match
    if match.tournament is not None:
        return match.tournament.name
    return "Bao Arena challenge" if match.challenger_id else "Bao Arena match"


def _iso(value: object) -> str | None:
    isoformat = getattr(value, "isoformat", None)
    return isoformat() if callable(isoformat) else None


def game_line(game: Game, engine_errors: Mapping[str, str] | None = None) -> GameLine:
    """The ``GameLine`` of ``game`` (its match, tournament and the three engine versions
    loaded: ``selectors.game_queryset``). ``engine_errors``: the stderr tails the reader may
    see (``selectors.game_visible_engine_errors``); None shows none."""
    match = game.match
    return GameLine(
        id=game.pk,
        match=match.pk,
        index=game.index,
        event=_event(game),
        round=match.round,
        variant=match.variant,
        time_control=match.time_control,
        seed=match.seed,
        south=_ref(game.south),
        north=_ref(game.north),
        winner=_ref(game.winner) if game.winner is not None else None,
        result=game.result,
        termination=game.termination,
        rated=game.rated,
        plies=game.plies,
        start_position=game.start_position,
        final_position=game.final_position,
        moves=game_moves(game),
        scores=game.scores,
        seeds_in_hand=game.seeds_in_hand,
        engine_errors=dict(engine_errors or {}),
        detail=game.detail,
        time_loss=game.time_loss,
        started_at=_iso(game.started_at),
        duration_ms=game.duration_ms,
        finished_at=_iso(game.finished_at),
    )


def game_record_text(game: Game) -> str:
    """The text record of ``game`` (``arena.matches.gameline.record_text``); ends with a
    newline."""
    return record_text(game_line(game))
