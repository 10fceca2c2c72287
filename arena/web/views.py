"""The web pages' viewer views: the replay of a game (the live pages, ``live_pages``, draw
the same viewer), and the styled 404 page. The other pages: ``pages`` (browsing), ``engine_pages``,
``accounts`` and ``actions`` (forms on the API's services, ``forms``).

``arena.web`` is an app without models: its templates are ``templates/web/*.html`` (all extend
``web/base.html``; ``404.html`` is also Django's 404 page), its static files
``static/web/`` (``arena.css``; ``viewer.js``, the dependency-free board viewer). The board
is drawn as SVG in the HTML (``board.svg_board``); the script animates it from the sowing
traces the rules engine gives (``arena.matches.replay``), so no rule is written in JavaScript.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.html import json_script
from django.utils.safestring import mark_safe
from rest_framework.exceptions import APIException

from arena.api.errors import describe
from arena.matches import selectors as match_selectors
from arena.matches.gamerecord import game_moves, move_number
from arena.matches.replay import moves_with_traces
from arena.referee import TimeControl, TimeControlError
from arena.web.board import svg_board


def not_found(request: HttpRequest, message: str) -> HttpResponse:
    """The styled 404 page (``404.html``, also Django's own 404 page outside ``/api/``)."""
    return render(
        request, "404.html", {"message": message, "request_path": request.path}, status=404
    )


def refused(request: HttpRequest, exc: APIException, what: str) -> HttpResponse:
    """The page for an API error a page cannot put by a field: the styled 404 page for
    ``not_found`` ("There is no <what>."), else the API's message with its status (403
    ``engine_not_yours``, 409 ``tournament_not_cancellable``...)."""
    if exc.status_code == 404:
        return not_found(request, f"There is no {what}.")
    message = describe(exc)[1]
    return render(request, "web/forbidden.html", {"message": message}, status=exc.status_code)


def _requested_ply(request: HttpRequest, last: int) -> int:
    try:
        ply = int(request.GET.get("ply", last))
    except ValueError:
        ply = last
    return max(0, min(ply, last))


def _base_clock_ms(time_control: str) -> int | None:
    try:
        tc = TimeControl.parse(time_control)
    except TimeControlError:
        return None
    return tc.movetime_ms if tc.movetime_ms is not None else tc.base_ms


def _viewer_context(
    request: HttpRequest,
    *,
    variant: str,
    time_control: str,
    start_position: str,
    moves: list[dict[str, Any]],
    south: object,
    north: object,
    live: dict[str, Any] | None = None,
    with_data: bool = True,
) -> dict[str, Any]:
    """What ``web/_viewer.html`` draws: the SVG board of the requested ply (``?ply=N``,
    default the last), the move list, and ``data``, the JSON ``web/viewer.js`` animates
    (``_viewer_data``; None unless ``with_data``: the replay page keeps it in the cache)."""
    last = len(moves)
    ply = _requested_ply(request, last)
    text = start_position if ply == 0 else str(moves[ply - 1].get("position", ""))
    return {
        "svg": svg_board(text),
        "ply": ply,
        "last": last,
        "move": moves[ply - 1] if ply > 0 else None,
        "movetext": _movetext(moves),
        "position": text,
        "south": south,
        "north": north,
        "data": _viewer_data(variant, time_control, start_position, moves, live)
        if with_data
        else None,
    }


def _viewer_data(
    variant: str,
    time_control: str,
    start_position: str,
    moves: list[dict[str, Any]],
    live: dict[str, Any] | None,
) -> dict[str, Any]:
    """The JSON ``web/viewer.js`` animates: every move with its sowing ``trace``."""
    return {
        "variant": variant,
        "start_position": start_position,
        "base_ms": _base_clock_ms(time_control),
        # The script shows a move's info lines, never the lines the referee ignored.
        "moves": [
            {k: v for k, v in move.items() if k != "ignored"}
            for move in moves_with_traces(variant, start_position, moves)
        ],
        "live": live,
    }


def game_replay(request: HttpRequest, game_id: int) -> HttpResponse:
    """``/games/<id>/``: the replay. The board of ply ``?ply=N`` (default the last; 0 is the
    start) is drawn in the HTML; the page's script steps and animates from the traces."""
    game = match_selectors.game_queryset().filter(pk=game_id).first()
    if game is None:
        return not_found(request, f"There is no game {game_id}.")
    # A rules ending's detail is its termination code again ("bao_hamna"): say it once.
    detail = game.detail if game.detail != game.termination else ""
    moves = game_moves(game)
    match = game.match
    context = _viewer_context(
        request,
        variant=match.variant,
        time_control=match.time_control,
        start_position=game.start_position,
        moves=moves,
        south=game.south,
        north=game.north,
        with_data=False,
    )
    # The script's JSON (every move's trace, 0.5 MB for 300 plies) is laid out once per game
    # (arena.matches.selectors.replay_cached): a stored game never changes.
    game_data = match_selectors.replay_cached(
        game,
        "page-data",
        lambda: json_script(
            _viewer_data(match.variant, match.time_control, game.start_position, moves, None),
            "game-data",
        ),
    )
    return render(
        request,
        "web/replay.html",
        # json_script escapes <, > and & in the JSON; the cache returns its text as a str.
        {**context, "game": game, "detail": detail, "game_data": mark_safe(game_data)},
    )


def _movetext(moves: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The moves numbered in pairs as in the text record (``1. f2+ b3+ 2. ...``; a North move
    opening the list reads ``1... b3+``): one ``{"number", "move"}`` per ply, ``number`` the
    label to print before it, or "" inside a pair."""
    items: list[dict[str, Any]] = []
    previous_side = None
    for move in moves:
        items.append({"number": move_number(move, previous_side), "move": move})
        previous_side = move.get("side")
    return items
