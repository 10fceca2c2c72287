"""HTTP views of ``/api/play/`` (thin: parse, call a service or selector, serialize).

Signed-in users only (token or session); a game is played by its person alone. Its event
stream (``play_events``) is public, as a game on lichess is: anyone with its id may watch it
(docs/play.md, "Watching a game").
"""

from __future__ import annotations

from asgiref.sync import sync_to_async
from django.http import HttpRequest, HttpResponseBase
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.api.auth import request_user
from arena.api.handlers import json_error
from arena.matches import livestream
from people import selectors, services
from people.errors import GameNotFound
from people.livestream import PERSON_GAMES, stream_start
from people.models import PersonGame
from people.serializers import PersonGameOutput, PlayMoveInput, PlayResignInput, PlayStartInput

ERRORS = (
    "Errors: `not_found` (404, also another person's game), `game_over` (409), "
    "`not_your_turn` (409)"
)


def _state(request: Request, game_id: int) -> Response:
    game = selectors.game_queryset().filter(pk=game_id, player_id=request_user(request).pk).first()
    if game is None:
        raise GameNotFound(details={"game": game_id})
    return Response(PersonGameOutput(selectors.game_state(game)).data)


def _game(game: PersonGame) -> dict[str, object]:
    return dict(
        PersonGameOutput(selectors.game_state(selectors.game_queryset().get(pk=game.pk))).data
    )


class PlayStartApi(APIView):
    """``POST /api/play/``: a person starts a game against an engine."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="play_create",
        summary="Play an engine (a casual game against a person)",
        description="Starts a game of the signed-in person against `engine` (its latest active "
        "version), which its owner must let people play (consent setting `people`). The game "
        "waits for a people slot of a worker (`status` `pending`), then runs: follow "
        "`GET /api/play/{id}/events` (or poll `GET /api/play/{id}/`) for the engine's moves "
        "and both clocks. Never rated. Errors: "
        "`engine_not_found` (404), `pairing_refused` (403), `engine_disabled`, "
        "`engine_not_active`, `too_many_games` (409), `unknown_variant`, "
        "`variant_not_supported`, `time_control_not_for_people`, `unknown_start_suite` (400).",
        request=PlayStartInput,
        responses={201: PersonGameOutput},
    )
    def post(self, request: Request) -> Response:
        data = PlayStartInput(data=request.data)
        data.is_valid(raise_exception=True)
        game = services.person_game_start(user=request_user(request), **data.validated_data)
        return Response(_game(game), status=status.HTTP_201_CREATED)


class PlayDetailApi(APIView):
    """``GET /api/play/{id}/``: the game's state for its person."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="play_retrieve",
        summary="A person's game: position, legal moves, clocks, result",
        description="`legal` lists the legal moves from the server's rules engine when it is "
        "your turn (else empty): each token with its `pit`, `direction` and nyumba `choice`. "
        "`clocks` are as they stand at the answer; the side in `running` is ticking. "
        "Errors: `not_found` (404).",
        responses={200: PersonGameOutput},
    )
    def get(self, request: Request, game_id: int) -> Response:
        return _state(request, game_id)


class PlayMoveApi(APIView):
    """``POST /api/play/{id}/move/``: the person's move."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="play_move",
        summary="Play a move in a game against an engine",
        description="`move` in the rules' notation (`f2-`, `c2+s`; Kingulu `a1`); `ply` the "
        "ply it is for (`plies` + 1 of the state you saw; optional, but send it): the same "
        "move resent for a ply already taken answers the game unchanged (200), so a double "
        "click or a retry is never a second move. The worker hands it to the engine within "
        "about 20 ms. "
        + ERRORS
        + ", `ply_mismatch` (409: `ply` is not the ply at hand; `details.ply`, "
        "`details.expected`), `invalid_move` (400: not a move token), `illegal_move` (400: "
        "not legal here; `details.legal`).",
        request=PlayMoveInput,
        responses={200: PersonGameOutput},
    )
    def post(self, request: Request, game_id: int) -> Response:
        data = PlayMoveInput(data=request.data)
        data.is_valid(raise_exception=True)
        game = services.person_move(
            game_id=game_id,
            user=request_user(request),
            move=data.validated_data["move"],
            ply=data.validated_data.get("ply"),
        )
        return Response(_game(game))


class PlayResignApi(APIView):
    """``POST /api/play/{id}/resign/``: the person resigns."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="play_resign",
        summary="Resign a game against an engine",
        description="The engine wins by `resignation`: at once for a game not yet begun, "
        "within about 0.1 s for a running one. Errors: `not_found` (404), `game_over` (409).",
        request=PlayResignInput,
        responses={200: PersonGameOutput},
    )
    def post(self, request: Request, game_id: int) -> Response:
        PlayResignInput(data=request.data).is_valid(raise_exception=True)
        game = services.person_resign(game_id=game_id, user=request_user(request))
        return Response(_game(game))


async def play_events(request: HttpRequest, game_id: int) -> HttpResponseBase:
    """``GET /api/play/{id}/events``: the game's events as Server-Sent Events
    (``text/event-stream``: ``game``, ``move``, ``clock``, ``end``; docs/play.md), from its
    first (or after ``Last-Event-ID``) until its ``end``. Public, no sign-in (games are
    public to watch). 404 ``not_found`` for an unknown game; 400 ``invalid`` for a junk
    ``Last-Event-ID``; 503 ``live_stream_unavailable`` when served by a WSGI worker (clients
    then poll ``GET /api/play/{id}/``); 429 ``too_many_streams`` past the client's cap
    (``livestream.admit_stream``)."""
    last = livestream.stream_request(request, f"/api/play/{game_id}/")
    if isinstance(last, HttpResponseBase):
        return last
    game = await sync_to_async(selectors.game_for_stream)(game_id)
    if game is None:
        return json_error(404, "not_found", "No game with this id.", {"game": game_id})
    lease = await livestream.admit_stream(request)
    if isinstance(lease, HttpResponseBase):
        return lease
    return livestream.sse_response(
        livestream.live_hub(PERSON_GAMES).stream(game.pk, lambda: stream_start(game, last), last),
        lease,
    )
