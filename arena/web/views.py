"""The small web page: leaderboards, recent matches and tournaments on ``/``, a tournament page,
and a replay page per game (one board per ply, previous/next links; no JavaScript).

``arena.web`` is not an installed app, so its templates (``arena/web/templates/web/``) are read
by a template engine of its own rather than by the project's app-directories loader.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.template import Context, Engine

from arena.matches.gamerecord import move_number
from arena.rules import VARIANTS
from arena.web.board import board_from_text
from tournaments import selectors
from tournaments.models import Tournament

_ENGINE = Engine(dirs=[str(Path(__file__).resolve().parent / "templates")], autoescape=True)
LEADERBOARD_ROWS = 20
RECENT_MATCHES = 20
RECENT_TOURNAMENTS = 10


def _render(name: str, context: dict[str, Any], status: int = 200) -> HttpResponse:
    return HttpResponse(_ENGINE.get_template(name).render(Context(context)), status=status)


def home(request: HttpRequest) -> HttpResponse:
    """``/``: the leaderboard of each variant, the latest matches and tournaments."""
    from arena.matches.models import Match

    boards = []
    for variant in VARIANTS:
        rows = list(selectors.leaderboard(variant=variant)[:LEADERBOARD_ROWS])
        boards.append({"variant": variant, "rows": rows})
    matches = list(
        Match.objects.select_related("engine_a__engine", "engine_b__engine")
        .prefetch_related("games")
        .order_by("-created_at", "-id")[:RECENT_MATCHES]
    )
    recent = [(m, sorted(m.games.all(), key=lambda g: g.index)) for m in matches]
    tournaments = list(selectors.tournament_list()[:RECENT_TOURNAMENTS])
    return _render(
        "web/home.html", {"boards": boards, "matches": recent, "tournaments": tournaments}
    )


def tournament_page(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """``/tournaments/<id>/``: progress, standings and crosstable."""
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        raise Http404("no such tournament")
    table = selectors.tournament_table(tournament)
    names = [str(e.engine_version) for e in table.entries]
    standings = [(row, names[row.player]) for row in table.standings]
    cross = [
        (names[i], [(j == i, cell) for j, cell in enumerate(row)])
        for i, row in enumerate(table.crosstable)
    ]
    matches = tournament.matches.select_related(
        "engine_a__engine", "engine_b__engine"
    ).prefetch_related("games")
    return _render(
        "web/tournament.html",
        {
            "t": tournament,
            "progress": selectors.tournament_progress(tournament),
            "standings": standings,
            "names": names,
            "cross": cross,
            "matches": [
                (m, sorted(m.games.all(), key=lambda g: g.index))
                for m in matches.order_by("round", "id")
            ],
        },
    )


def game_replay(request: HttpRequest, game_id: int) -> HttpResponse:
    """``/games/<id>/?ply=N``: the board after ply N (0 = start), the move list, prev/next links."""
    from arena.matches.models import Game

    game = (
        Game.objects.select_related("match", "south__engine", "north__engine")
        .filter(pk=game_id)
        .first()
    )
    if game is None:
        raise Http404("no such game")
    moves = list(game.moves or [])
    try:
        ply = int(request.GET.get("ply", len(moves)))
    except ValueError:
        ply = len(moves)
    ply = max(0, min(ply, len(moves)))
    text = game.start_position if ply == 0 else str(moves[ply - 1].get("position", ""))
    # A rules ending's detail is its termination code again ("bao_hamna"): say it once.
    detail = game.detail if game.detail != game.termination else ""
    return _render(
        "web/replay.html",
        {
            "game": game,
            "ply": ply,
            "last": len(moves),
            "prev": ply - 1 if ply > 0 else None,
            "next": ply + 1 if ply < len(moves) else None,
            "move": moves[ply - 1] if ply > 0 else None,
            "movetext": _movetext(moves),
            "detail": detail,
            "position": text,
            "board": board_from_text(text),
        },
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
