"""Ladder API (thin views: parse with an input serializer, call a service). The ladder of a
variant is open to everyone; keeping a version on it needs its engine's owner."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ladder import services
from ladder.serializers import LadderKeepInput, LadderOutput, LadderQuery


class LadderApi(APIView):
    """``GET /api/ladder/?variant=``: the ladder of a variant now (docs/ladder.md)."""

    @extend_schema(operation_id="ladder_state", parameters=[LadderQuery], responses=LadderOutput)
    def get(self, request: Request) -> Response:
        query = LadderQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        return Response(services.ladder_state(query.validated_data["variant"]))


class LadderKeepApi(APIView):
    """``POST /api/ladder/keep/``: keep an older version of your engine on the ladder
    (``{"engine", "version", "keep"}``); answers the ladder's view of nothing but ``ok``."""

    permission_classes = [IsAuthenticatedOrReadOnly]

    @extend_schema(operation_id="ladder_keep", request=LadderKeepInput, responses=LadderKeepInput)
    def post(self, request: Request) -> Response:
        data = LadderKeepInput(data=request.data)
        data.is_valid(raise_exception=True)
        version = services.ladder_keep(
            user=request.user,
            engine_name=data.validated_data["engine"],
            number=data.validated_data["version"],
            keep=data.validated_data["keep"],
        )
        return Response(
            {
                "engine": version.engine.name,
                "version": version.number,
                "keep": data.validated_data["keep"],
            }
        )
