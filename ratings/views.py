"""Ratings API (thin views: parse with an input serializer, call a selector). Reads only, open
to everyone."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from arena.api.filters import variant_id
from arena.api.lists import PaginatedListApi
from arena.api.schema import page_parameters
from engines import selectors as engine_selectors
from ratings import selectors
from ratings.serializers import (
    LeaderboardExcludedOutput,
    LeaderboardOutput,
    LeaderboardQuery,
    LeaderboardRowOutput,
    RatingHistoryQuery,
    RatingPointOutput,
)


class LeaderboardApi(PaginatedListApi):
    """``GET /api/leaderboard/?variant=bao-la-kete&provisional=false`` (paginated, best first),
    with the versions the fit left out (``excluded``) and the time of the fit (``fitted_at``)."""

    # A page with two more keys, so documented by hand: LeaderboardOutput and the page params.
    @extend_schema(parameters=[LeaderboardQuery, *page_parameters()], responses=LeaderboardOutput)
    def get(self, request: Request) -> Response:
        query = LeaderboardQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        variant = variant_id(query.validated_data["variant"])
        qs = selectors.leaderboard(variant=variant, provisional=query.validated_data["provisional"])
        response = self.paginated(qs, LeaderboardRowOutput)
        pool = selectors.rating_pool(variant=variant)
        response.data["excluded"] = LeaderboardExcludedOutput(
            selectors.leaderboard_excluded(variant=variant), many=True
        ).data
        fitted_at = pool.fitted_at if pool is not None else None
        response.data["fitted_at"] = (
            None if fitted_at is None else serializers.DateTimeField().to_representation(fitted_at)
        )
        return response


class EngineRatingHistoryApi(PaginatedListApi):
    """``GET /api/engines/{name}/ratings/?variant=`` (paginated, oldest first)."""

    @extend_schema(parameters=[RatingHistoryQuery], responses=RatingPointOutput(many=True))
    def get(self, request: Request, name: str) -> Response:
        # A name in the path: 404 not_found like the engine's other URLs (any case).
        engine = engine_selectors.engine_get(name)
        query = RatingHistoryQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        variant = query.validated_data.get("variant")
        qs = selectors.rating_history(
            engine_name=engine.name, variant=variant_id(variant) if variant else None
        )
        return self.paginated(qs, RatingPointOutput)
