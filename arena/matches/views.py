"""HTTP views of the matches API (thin: parse, call a service or selector, serialize).

Reads are open to everyone; a challenge needs a logged-in user (token or session).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from asgiref.sync import sync_to_async
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseBase, StreamingHttpResponse
from django.shortcuts import get_object_or_404
from django.utils.cache import patch_vary_headers
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, permissions, status
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.api.auth import request_user
from arena.api.filters import variant_id
from arena.api.handlers import json_error
from arena.api.throttling import ReadRateThrottle, WriteRateThrottle
from arena.matches import export, livestream, selectors, timeloss
from arena.matches.filters import MatchFilter
from arena.matches.gamerecord import game_record_text
from arena.matches.models import Game, LiveGame, Match
from arena.matches.serializers import (
    MOVES_PLACEHOLDER,
    ChallengeInput,
    GameExportQuery,
    GameReplayOutput,
    LiveGameInput,
    LiveGameListOutput,
    LiveGameOutput,
    MatchCancelInput,
    MatchDetailOutput,
    MatchListOutput,
    QueueOutput,
    replay_moves_json,
)
from arena.matches.services import match_cancel_by, match_challenge


class MatchListView(generics.ListAPIView[Match]):
    """``GET /api/matches/`` (paginated; filters ``engine``, ``tournament``, ``variant``,
    ``status``, ``rated``; ``ordering`` by ``created_at``/``finished_at``) and
    ``POST /api/matches/`` (a challenge, see ``ChallengeInput``; 201 with the match)."""

    serializer_class = MatchListOutput
    filterset_class = MatchFilter
    ordering_fields = ["created_at", "finished_at", "id"]
    permission_classes = [permissions.IsAuthenticatedOrReadOnly]
    throttle_classes = [WriteRateThrottle]  # POST only: settings.BAO_THROTTLE_RATES
    throttle_scope = "challenges"

    def get_queryset(self) -> QuerySet[Match]:
        return selectors.match_list()

    @extend_schema(request=ChallengeInput, responses={201: MatchDetailOutput})
    def post(self, request: Request) -> Response:
        data = ChallengeInput(data=request.data)
        data.is_valid(raise_exception=True)
        match = match_challenge(user=request_user(request), **data.validated_data)
        match = selectors.match_detail_queryset().get(pk=match.pk)
        return Response(MatchDetailOutput(match).data, status=status.HTTP_201_CREATED)


class MatchDetailView(generics.RetrieveAPIView[Match]):
    """``GET /api/matches/{id}/``: the match with its games (players, result, termination,
    plies)."""

    serializer_class = MatchDetailOutput

    def get_queryset(self) -> QuerySet[Match]:
        return selectors.match_detail_queryset()


class MatchCancelView(APIView):
    """``POST /api/matches/{id}/cancel/``: stop a pending or running match for good (aborted,
    no games, nothing rated; a running one stops within about 2 s, its engines killed). Its
    challenger or staff only (403 ``permission_denied``); 409 ``match_not_cancellable`` once
    it is over."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=MatchCancelInput, responses={200: MatchDetailOutput})
    def post(self, request: Request, pk: int) -> Response:
        data = MatchCancelInput(data=request.data)
        data.is_valid(raise_exception=True)
        match_cancel_by(request_user(request), pk, reason=data.validated_data["reason"])
        match = selectors.match_detail_queryset().get(pk=pk)
        return Response(MatchDetailOutput(match).data)


class QueueView(APIView):
    """``GET /api/queue/``: the dispatcher's view: slots of the live workers (total, busy, per
    worker), the running matches and the first waiting ones with their positions; for staff
    also each worker's time forfeits over the last hour (``timeloss.rates``)."""

    @extend_schema(responses={200: QueueOutput})
    def get(self, request: Request) -> Response:
        snapshot = selectors.queue_snapshot()
        if getattr(request.user, "is_staff", False):
            snapshot["time_loss"] = [
                {
                    "worker": w.worker,
                    "games": w.games,
                    "time_forfeits": w.forfeits,
                    "rate": round(w.rate, 4),
                }
                for w in timeloss.rates()
            ]
        return Response(QueueOutput(snapshot).data)


class ReplayJSONRenderer(JSONRenderer):
    """The API's JSON, with the replay's cached ``moves`` text (``replay_moves_json``) put in
    place of ``MOVES_PLACEHOLDER``: the 0.5 MB of a 300-ply game's traces are neither traced
    nor rendered again for each request (issue 32)."""

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        body = bytes(super().render(data, accepted_media_type, renderer_context))
        response = (renderer_context or {}).get("response")
        moves = getattr(response, "replay_moves_json", None)
        if moves is None:
            return body
        return body.replace(bytes(super().render(MOVES_PLACEHOLDER)), moves, 1)


class GameDetailView(generics.RetrieveAPIView[Game]):
    """``GET /api/games/{id}/``: the replay (start position, every move with its time and the
    position after it, result, termination, scores, seeds in hand; engine errors for their
    owners)."""

    serializer_class = GameReplayOutput
    renderer_classes = [ReplayJSONRenderer]

    def get_queryset(self) -> QuerySet[Game]:
        return selectors.game_queryset()

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        game = self.get_object()
        if not isinstance(request.accepted_renderer, ReplayJSONRenderer):
            return Response(self.get_serializer(game).data)
        context = {**self.get_serializer_context(), "moves_as_json": True}
        response = Response(self.get_serializer(game, context=context).data)
        response.replay_moves_json = replay_moves_json(game)  # type: ignore[attr-defined]
        return response


class GameRecordView(APIView):
    """``GET /api/games/{id}/record.txt``: the game as a text record (``gamerecord``)."""

    @extend_schema(responses={(200, "text/plain"): str})
    def get(self, request: Request, pk: int) -> HttpResponse:
        game = get_object_or_404(selectors.game_queryset(), pk=pk)
        response = HttpResponse(game_record_text(game), content_type="text/plain; charset=utf-8")
        filename = f"bao-match{game.match_id}-game{game.index}.txt"
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response


class GameExportView(APIView):
    """``GET /api/games/export/``: finished games as JSON lines (``application/x-ndjson``),
    one game a line in the format of ``arena.matches.gameline`` (the replay's fields and the
    text record; ``bao-match --out`` writes the same), in id order after ``since``, at most
    ``limit``; filters ``engine``, ``tournament``, ``test``, ``variant``. While more games
    follow, a ``Link: <...>; rel="next"`` header names the next page (``since`` set to this
    page's last id). gzip-encoded when ``Accept-Encoding`` allows it. Rate-limited per user or
    client IP (``BAO_THROTTLE_EXPORT``; 429 ``throttled``)."""

    throttle_classes = [ReadRateThrottle]
    throttle_scope = "export"
    refuses_empty = True  # `?tournament=` is 400, not every game (arena.api.schema)

    @extend_schema(
        parameters=[GameExportQuery],
        responses={
            (200, "application/x-ndjson"): OpenApiResponse(
                response=str,
                description="One JSON object a line: id, match, index, event, round, variant,"
                " time_control, seed, south, north, winner, result, termination, rated,"
                " plies, start_position, final_position, moves, scores, seeds_in_hand,"
                " engine_errors, detail, time_loss, started_at, duration_ms, finished_at,"
                " record (the text record of record.txt). Header Link rel=next while more"
                " games follow.",
            )
        },
    )
    def get(self, request: Request) -> HttpResponseBase:
        data = GameExportQuery(data=request.query_params)
        data.is_valid(raise_exception=True)
        q = data.validated_data
        variant = q.get("variant")
        query = selectors.ExportQuery(
            engine=q.get("engine"),
            tournament=q.get("tournament"),
            test=q.get("test"),
            variant=variant_id(variant) if variant else None,
            since=q["since"],
            limit=q["limit"],
        )
        ids, more = selectors.games_export_ids(query)
        lines = export.lines(selectors.games_by_ids(ids), request.user)
        gzipped = export.accepts_gzip(request.headers.get("Accept-Encoding", ""))
        response = StreamingHttpResponse(
            export.gzip_stream(lines) if gzipped else lines,
            content_type=export.CONTENT_TYPE,
        )
        if gzipped:
            response["Content-Encoding"] = "gzip"
        patch_vary_headers(response, ["Accept-Encoding"])
        if more:
            response["Link"] = f'<{export.next_url(request, ids[-1])}>; rel="next"'
        return response


class LiveGameListView(generics.ListAPIView[LiveGame]):
    """``GET /api/live/``: the games being played now (paginated, newest first)."""

    serializer_class = LiveGameListOutput

    def get_queryset(self) -> QuerySet[LiveGame]:
        return selectors.live_games_running()


class LiveGameDetailView(APIView):
    """``GET /api/live/{id}/?since=N``: a game as it is being played: its moves so far (after
    ply ``since``; poll with the last ply you have), status and, once ended, result; ``game``
    names the stored replay when the match has been recorded."""

    @extend_schema(parameters=[LiveGameInput], responses={200: LiveGameOutput})
    def get(self, request: Request, pk: int) -> Response:
        query = LiveGameInput(data=request.query_params)
        query.is_valid(raise_exception=True)
        live = get_object_or_404(selectors.live_game_queryset(), pk=pk)
        context = {
            "since": query.validated_data["since"],
            "moves": selectors.live_moves(live),
            "game_id": selectors.live_game_replay_id(live),
        }
        return Response(LiveGameOutput(live, context=context).data)


async def live_events(request: HttpRequest, pk: int) -> HttpResponseBase:
    """``GET /api/live/{id}/events``: the game's events as Server-Sent Events
    (``text/event-stream``), from its ``game`` event (or after ``Last-Event-ID``) through the
    later games of its match until the match's ``end`` (docs/live.md, "Events"). 404
    ``not_found`` for an unknown game; 400 ``invalid`` for a junk ``Last-Event-ID``; 503
    ``live_stream_unavailable`` when served by a WSGI worker, which a stream would hold
    (clients then poll ``GET /api/live/{id}/``); 429 ``too_many_streams`` past the client's
    cap (``livestream.admit_stream``)."""
    last = livestream.stream_request(request, f"/api/live/{pk}/")
    if isinstance(last, HttpResponseBase):
        return last
    live = await sync_to_async(selectors.live_game_for_stream)(pk)
    if live is None:
        return json_error(404, "not_found", "No live game with this id.", {"live": pk})
    lease = await livestream.admit_stream(request)
    if isinstance(lease, HttpResponseBase):
        return lease
    return livestream.sse_response(
        livestream.live_hub().stream(
            live.match_id, lambda: livestream.stream_start(live, last), last
        ),
        lease,
    )
