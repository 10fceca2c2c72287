"""The pages of people's games (docs/play.md): the form that starts a game against an engine
(``/play/new/?engine=``), the game's page (``/play/<id>/``: the interactive board while it is
played, the replay once it ended) and a person's page listing their games
(``/people/<username>/``). The board is the replay's SVG (``web/_viewer.html``) made
clickable by ``static/web/play.js``, which offers only the legal moves the server's rules
engine lists (``GET /api/play/{id}/``); no rule is written in JavaScript.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render

from arena.api.auth import request_user
from arena.web.actions import start_field, variant_field
from arena.web.forms import Field, FieldMap, FormErrors, form_page, submit
from arena.web.views import _viewer_context, not_found
from people import selectors, services
from people.models import PersonGame
from people.serializers import PlayStartInput

#: How often the play page asks for the engine's move (ms) while the engine thinks.
PLAY_POLL_MS = 250

PLAY_ERRORS: FieldMap = {
    "engine_not_found": "engine",
    "engine_disabled": "engine",
    "engine_not_active": "engine",
    "pairing_refused": "engine",
    "variant_not_supported": "variant",
    "unknown_variant": "variant",
    "time_control_not_for_people": "time_control",
    "unknown_start_suite": "start_suite",
}


def _fields() -> list[Field]:
    return [
        Field("engine", "Engine", required=True, help="Its latest active version plays."),
        variant_field(),
        Field(
            "time_control",
            "Time control",
            value="300+3",
            required=True,
            help="Base seconds + increment seconds per move: 300+3 is five minutes and 3 s a "
            "move (5+3).",
        ),
        Field(
            "side",
            "Your side",
            kind="select",
            value="random",
            choices=[("random", "random"), ("south", "South (moves first)"), ("north", "North")],
        ),
        start_field(),
    ]


@login_required
def play_new(request: HttpRequest) -> HttpResponse:
    """``/play/new/``: start a game against an engine (``?engine=`` fills its name)."""
    fields = _fields()
    if request.method != "POST":
        return form_page(
            request, "web/play_new.html", fields, {"engine": request.GET.get("engine", "")}, None
        )
    values = {
        k: request.POST.get(k, "")
        for k in ("engine", "variant", "time_control", "side", "start_suite")
    }
    result = submit(
        request,
        scope=None,
        serializer=PlayStartInput,
        data=values,
        call=lambda d: services.person_game_start(user=request_user(request), **d),
        fields=PLAY_ERRORS,
    )
    if isinstance(result, FormErrors):
        return form_page(request, "web/play_new.html", fields, values, result)
    messages.success(request, f"Game {result.pk} against {result.engine} is starting.")
    return HttpResponseRedirect(f"/play/{result.pk}/")


def play_page(request: HttpRequest, game_id: int) -> HttpResponse:
    """``/play/<id>/``: its person plays on the board while the game runs; anyone sees the
    replay once it ended (a game being played is its person's alone)."""
    game = selectors.game_queryset().filter(pk=game_id).first()
    ended = game is not None and game.status in (
        PersonGame.Status.FINISHED,
        PersonGame.Status.ABORTED,
    )
    if game is None or (not ended and game.player_id != request.user.pk):
        return not_found(request, f"There is no game {game_id} of yours.")
    person = game.player.get_username()
    south, north = (person, game.engine) if game.person_side == "S" else (game.engine, person)
    context = _viewer_context(
        request,
        variant=game.variant,
        time_control=game.time_control,
        start_position=game.start_position,
        moves=list(game.moves),
        south=south,
        north=north,
    )
    play = None
    if not ended:
        play = {
            "url": f"/api/play/{game.pk}/",
            "events": f"/api/play/{game.pk}/events",
            "poll_ms": PLAY_POLL_MS,
            "your_side": game.person_side,
            "kind": "kingulu" if game.variant == "bao-kingulu" else "bao",
        }
    return render(
        request,
        "web/play.html",
        {**context, "game": game, "ended": ended, "play": play, "person": person},
    )


def person_page(request: HttpRequest, username: str) -> HttpResponse:
    """``/people/<username>/``: a person's games against engines, newest first."""
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        return not_found(request, f"There is no person named {username!r}.")
    return render(
        request,
        "web/person.html",
        {"person": user, "games": selectors.games_of_player(user.pk)},
    )
