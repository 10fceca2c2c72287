"""Tournaments API (thin views: parse with an input serializer, call a service or selector).

Reads are open to everyone; creating a tournament needs an authenticated user, cancelling one
its creator or staff.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.api.auth import request_user
from arena.api.filters import variant_id
from arena.api.lists import PaginatedListApi
from arena.api.schema import ErrorSerializer
from arena.api.throttling import WriteRateThrottle
from tournaments import selectors, services
from tournaments.errors import NotFoundError, TournamentNotSwiss
from tournaments.models import Tournament
from tournaments.serializers import (
    TournamentCancelInput,
    TournamentCreateInput,
    TournamentDetailOutput,
    TournamentListOutput,
    TournamentListQuery,
    TournamentTrfQuery,
    tournament_detail_data,
)


class TournamentListCreateApi(PaginatedListApi):
    """``GET /api/tournaments/?status=&variant=`` (paginated), ``POST`` to create one."""

    permission_classes = [IsAuthenticatedOrReadOnly]
    throttle_classes = [WriteRateThrottle]  # POST only: settings.BAO_THROTTLE_RATES
    throttle_scope = "tournaments"

    @extend_schema(
        operation_id="tournaments_list",
        parameters=[TournamentListQuery],
        responses=TournamentListOutput(many=True),
    )
    def get(self, request: Request) -> Response:
        query = TournamentListQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        variant = query.validated_data.get("variant")
        qs = selectors.tournament_list(
            status=query.validated_data.get("status"),
            variant=variant_id(variant) if variant else None,
        )
        return self.paginated(qs, TournamentListOutput)

    @extend_schema(
        operation_id="tournaments_create",
        request=TournamentCreateInput,
        responses={201: TournamentDetailOutput},
    )
    def post(self, request: Request) -> Response:
        data = TournamentCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        tournament = services.tournament_create(
            **data.validated_data, created_by=request_user(request)
        )
        return Response(_detail(tournament), status=status.HTTP_201_CREATED)


def _detail(tournament: Tournament) -> dict[str, Any]:
    counts = selectors.tournament_match_counts(tournament)

    def build() -> dict[str, Any]:
        table = selectors.tournament_table(tournament)
        progress = selectors.tournament_progress(tournament, counts, table.games_played)
        return tournament_detail_data(tournament, progress, table)

    return selectors.tournament_ended_cached(tournament, counts, "api", build)


class TournamentDetailApi(APIView):
    """``GET /api/tournaments/{id}/``: status, progress, standings, crosstable."""

    @extend_schema(operation_id="tournaments_retrieve", responses=TournamentDetailOutput)
    def get(self, request: Request, tournament_id: int) -> Response:
        return Response(_detail(get_object_or_404(Tournament, pk=tournament_id)))


class TournamentCancelApi(APIView):
    """``POST /api/tournaments/{id}/cancel/`` (``{"reason": ...}`` optional): by its creator or
    staff; its unfinished matches are aborted. Answers the tournament, now ``cancelled``."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="tournaments_cancel",
        request=TournamentCancelInput,
        responses=TournamentDetailOutput,
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        data = TournamentCancelInput(data=request.data)
        data.is_valid(raise_exception=True)
        services.tournament_cancel_by(
            request_user(request), tournament_id, reason=data.validated_data["reason"]
        )
        return Response(_detail(get_object_or_404(Tournament, pk=tournament_id)))


class TournamentTrfApi(APIView):
    """``GET /api/tournaments/{id}/trf/?round=N``: a Swiss as FIDE's TRF-16 file
    (``selectors.tournament_trf``), ``text/plain; charset=utf-8``, as a download: by default
    the rounds played to the end so far (the file to pair the next round from), with ``round``
    the file to pair round N from. 409 ``tournament_not_swiss`` for another format; 404
    ``not_found`` for a ``round`` after the rounds played to the end + 1 (``details.round``,
    ``details.max_round``), 400 ``invalid`` for one below 1."""

    @extend_schema(
        operation_id="tournaments_trf",
        parameters=[
            OpenApiParameter(
                "round",
                int,
                required=False,
                description="Export the event as it was when this round was to be paired "
                "(1 to the rounds played to the end + 1); by default all of them.",
            )
        ],
        responses={
            (200, "text/plain"): OpenApiResponse(
                str,
                description="TRF-16 (FIDE's tournament report file) with XXR (rounds) and "
                "XXC (first colour): one 001 record per engine, start number = pairing number, "
                "white = engine_a (South in game 1), results in match points (1 = 0), "
                "forfeits + -, the bye U, an engine not to be paired 0000 - Z.",
            ),
            404: OpenApiResponse(
                ErrorSerializer,
                description="`not_found`: no such tournament, or `round` is after the rounds "
                "played to the end + 1 (`details.round`, `details.max_round`).",
            ),
            409: OpenApiResponse(
                ErrorSerializer, description="`tournament_not_swiss`: `details.format`."
            ),
        },
    )
    def get(self, request: Request, tournament_id: int) -> HttpResponse:
        tournament = get_object_or_404(Tournament, pk=tournament_id)
        query = TournamentTrfQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        if tournament.format != "swiss":
            raise TournamentNotSwiss(details={"format": tournament.format})
        before = query.validated_data.get("round")
        last = selectors.swiss_complete_rounds(tournament) + 1
        if before is not None and before > last:
            raise NotFoundError(
                f"round {before} cannot be paired from what was played yet (1 to {last})",
                details={"round": before, "max_round": last},
            )
        export = selectors.tournament_trf(tournament, before)
        response = HttpResponse(export.text, content_type="text/plain; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{export.filename}"'
        return response
