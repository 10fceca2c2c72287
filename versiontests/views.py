"""Version-test API (thin views: parse, call a service or selector, answer).

Reads are open to everyone; creating and stopping a test need an authenticated user.
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.permissions import IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.api.errors import NotFoundError
from arena.api.filters import variant_id
from arena.api.pagination import Pagination
from arena.api.schema import page_parameters
from arena.api.throttling import WriteRateThrottle
from versiontests import selectors, services
from versiontests.models import VersionTest
from versiontests.serializers import (
    VersionTestCreateInput,
    VersionTestListQuery,
    VersionTestStopInput,
    version_test_data,
)


def _get(test_id: int) -> VersionTest:
    test = selectors.version_test_get(test_id)
    if test is None:
        raise NotFoundError(f"No version test {test_id}.", details={"test": test_id})
    return test


class VersionTestListCreateApi(APIView):
    """``GET /api/tests/?status=&variant=&engine=&creator=`` (paginated, newest first),
    ``POST`` to start a test."""

    permission_classes = [IsAuthenticatedOrReadOnly]
    throttle_classes = [WriteRateThrottle]  # POST only: settings.BAO_THROTTLE_RATES
    throttle_scope = "tests"

    @extend_schema(
        operation_id="tests_list",
        parameters=[VersionTestListQuery, *page_parameters()],
        responses=OpenApiTypes.OBJECT,
    )
    def get(self, request: Request) -> Response:
        query = VersionTestListQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        variant = query.validated_data.get("variant")
        qs = selectors.version_test_list(
            status=query.validated_data.get("status"),
            variant=variant_id(variant) if variant else None,
            engine=query.validated_data.get("engine"),
            creator=query.validated_data.get("creator"),
        )
        paginator = Pagination()
        page = paginator.paginate_queryset(qs, request, view=self)
        return paginator.get_paginated_response([version_test_data(t) for t in page or []])

    @extend_schema(
        operation_id="tests_create",
        request=VersionTestCreateInput,
        responses={201: OpenApiTypes.OBJECT},
    )
    def post(self, request: Request) -> Response:
        data = VersionTestCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        test = services.version_test_create(user=request.user, **data.validated_data)
        body = version_test_data(_get(test.pk), detail=True)
        return Response(body, status=status.HTTP_201_CREATED)


class VersionTestDetailApi(APIView):
    """``GET /api/tests/{id}/``: settings, status and the live SPRT figures."""

    @extend_schema(operation_id="tests_retrieve", responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, test_id: int) -> Response:
        return Response(version_test_data(_get(test_id), detail=True))


class VersionTestStopApi(APIView):
    """``POST /api/tests/{id}/stop/``: the creator (or staff) stops a running test."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="tests_stop", request=VersionTestStopInput, responses=OpenApiTypes.OBJECT
    )
    def post(self, request: Request, test_id: int) -> Response:
        VersionTestStopInput(data=request.data).is_valid(raise_exception=True)
        _get(test_id)  # 404 first: an unknown id is not a permission question
        services.version_test_stop(test_id, user=request.user)
        return Response(version_test_data(_get(test_id), detail=True))
