"""Engine endpoints under /api/engines/. Thin: parse input, call a selector or service, render."""

from __future__ import annotations

from django.conf import settings
from django.db.models import QuerySet
from django.http import FileResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import parsers, permissions, status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.api import filters as api_filters
from arena.api import parsers as api_parsers
from arena.api.errors import NotFoundError
from arena.api.schema import ERROR_RESPONSES, UPLOAD_ERROR_RESPONSES
from arena.api.throttling import WriteRateThrottle
from engines import selectors, services
from engines import serializers as s
from engines.errors import UploadTooLarge
from engines.models import Engine
from engines.storage import open_stored

#: Bytes a multipart body may carry beyond the file itself (boundaries, headers, small fields).
MULTIPART_SLACK_BYTES = 64 * 1024

UPLOAD_DESCRIPTION = """Upload an engine (multipart/form-data: `name`, `file`, optional \
`description`).

`file` is either a single executable - a script whose first line is `#!` (for example
`#!/usr/bin/env python3`) or an ELF binary - or a `.zip` / `.tar.gz` archive holding the manifest
`bao-engine.json` (`{"name": ..., "command": [...], "author": ...}`). Browsers do not send file
permissions, so the arena sets the executable bit of a single-file upload itself; inside archives,
keep the execute bits of your programs (or start them through an interpreter in `command`).

The first upload of a name creates the engine (you own it); later uploads add versions 2, 3, ...
A new version is `pending`, then validated on a worker (handshake and a short game against the
bundled random engine): `active`, or `rejected` with `rejection_code` (e.g. `handshake_failed`,
`crash`, `illegal_move`), a public one-line `rejection_reason` and `rejection_log` (the tail of
the engine's stderr: shown to you and to staff, null for others). Poll
`GET /api/engines/{name}/versions/{n}/`.

Errors: `engine_not_yours` (403), `duplicate_version` (409, the same file as the latest
version), `throttled` (429, `BAO_THROTTLE_UPLOADS`, default 30 an hour), `upload_too_large`
(413, limit `BAO_ENGINE_MAX_BYTES`),
`unsafe_archive`, `bad_manifest`, `not_executable`, `bad_upload`, `runtime_missing` (the command
needs a runtime no live worker offers: `GET /api/runtimes/`), `invalid` (400),
`not_authenticated` (401). A refused upload stores nothing."""


class EngineListCreateView(GenericAPIView[Engine]):
    """``GET`` lists engines (paginated, filtered, ordered); ``POST`` uploads a version."""

    parser_classes = (
        parsers.MultiPartParser,
        api_parsers.FormParser,
    )
    filter_backends = (api_filters.OrderingFilter,)
    ordering_fields = (
        "name",
        "created_at",
    )
    ordering = ("name",)
    serializer_class = s.EngineListOutputSerializer
    queryset = Engine.objects.none()  # for the schema; get_queryset builds the real one
    throttle_classes = (WriteRateThrottle,)  # POST only: settings.BAO_THROTTLE_RATES
    throttle_scope = "uploads"

    def initial(self, request: Request, *args: object, **kwargs: object) -> None:
        # Refuse an oversized body from its Content-Length before anything reads and spools it
        # (even authentication may: a session login's CSRF check reads the form).
        if request.method == "POST":
            declared = request.META.get("CONTENT_LENGTH") or "0"
            limit = int(settings.BAO_ENGINE_MAX_BYTES)
            if declared.isdigit() and int(declared) > limit + MULTIPART_SLACK_BYTES:
                raise UploadTooLarge(
                    f"The upload is larger than {limit} bytes.",
                    details={"max_bytes": limit},
                )
        super().initial(request, *args, **kwargs)

    def get_queryset(self) -> QuerySet[Engine]:
        # An empty parameter (`?bundled=`) means "not given", as on every list.
        given = {k: v for k, v in self.request.query_params.dict().items() if v != ""}
        params = s.EngineFilterInputSerializer(data=given)
        params.is_valid(raise_exception=True)
        return selectors.engine_list(**params.validated_data)

    @extend_schema(
        operation_id="engines_list",
        summary="List engines",
        parameters=[s.EngineFilterInputSerializer],
        responses={200: s.EngineListOutputSerializer(many=True), **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        queryset = self.filter_queryset(self.get_queryset())
        page = self.paginate_queryset(queryset)
        data = s.EngineListOutputSerializer(page, many=True).data
        return self.get_paginated_response(data)

    @extend_schema(
        operation_id="engines_upload",
        summary="Upload an engine (new engine or new version)",
        description=UPLOAD_DESCRIPTION,
        request={"multipart/form-data": s.EngineUploadInputSerializer},
        responses={201: s.EngineVersionOutputSerializer, **UPLOAD_ERROR_RESPONSES},
    )
    def post(self, request: Request) -> Response:
        data = s.EngineUploadInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        version = services.engine_version_create(
            owner=request.user,
            name=data.validated_data["name"],
            upload=data.validated_data["file"],
            description=data.validated_data["description"],
        )
        body = s.EngineVersionOutputSerializer(version, context={"request": request}).data
        location = f"/api/engines/{version.engine.name}/versions/{version.number}/"
        return Response(body, status=status.HTTP_201_CREATED, headers={"Location": location})


class EngineDetailView(APIView):
    """``GET`` an engine with its versions; ``PATCH`` its description / enabled flag / consent
    (owner)."""

    parser_classes = (
        api_parsers.JSONParser,
        api_parsers.FormParser,
        parsers.MultiPartParser,
    )

    @extend_schema(
        operation_id="engines_retrieve",
        summary="An engine with its versions",
        responses={200: s.EngineDetailOutputSerializer, **ERROR_RESPONSES},
    )
    def get(self, request: Request, name: str) -> Response:
        engine = selectors.engine_get(name)
        context = {"request": request}
        return Response(s.EngineDetailOutputSerializer(engine, context=context).data)

    @extend_schema(
        operation_id="engines_update",
        summary="Change an engine's description, enabled flag or consent (owner only)",
        description="Errors: `engine_not_yours` (403), `not_found`, `invalid`. A disabled engine "
        "keeps its history but enters no new matches. `consent` (any subset) says who may pair "
        "the engine: `rated_pairing` (`anyone` | `own_events`), `challenges` (`all` | "
        "`unrated` | `none`), `ladder`, `version_tests` and `people` (booleans); a pairing it "
        "refuses is 403 `pairing_refused`. Defaults allow everything but `people` (off).",
        request=s.EngineUpdateInputSerializer,
        responses={200: s.EngineDetailOutputSerializer, **ERROR_RESPONSES},
    )
    def patch(self, request: Request, name: str) -> Response:
        engine = selectors.engine_for_owner(name, request.user)
        data = s.EngineUpdateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.engine_update(engine=engine, **data.validated_data)
        engine = selectors.engine_get(name)
        context = {"request": request}
        return Response(s.EngineDetailOutputSerializer(engine, context=context).data)


class EngineVersionDetailView(APIView):
    """``GET`` one version: status, rejection code and reason, checksum, variants."""

    @extend_schema(
        operation_id="engines_versions_retrieve",
        summary="One version of an engine (validation status)",
        responses={200: s.EngineVersionOutputSerializer, **ERROR_RESPONSES},
    )
    def get(self, request: Request, name: str, number: int) -> Response:
        version = selectors.version_get(selectors.engine_get(name), number)
        return Response(s.EngineVersionOutputSerializer(version, context={"request": request}).data)


class EngineVersionDownloadView(APIView):
    """``GET`` the stored upload of a version (owner only)."""

    permission_classes = (permissions.IsAuthenticated,)

    @extend_schema(
        operation_id="engines_versions_download",
        summary="Download the uploaded file of a version (owner only)",
        description="The file exactly as stored (single scripts with the executable bit set by "
        "the arena). Errors: `not_authenticated` (401), `engine_not_yours` (403), `not_found`.",
        responses={
            (200, "application/octet-stream"): OpenApiResponse(OpenApiTypes.BINARY),
            **ERROR_RESPONSES,
        },
    )
    def get(self, request: Request, name: str, number: int) -> FileResponse:
        version = selectors.version_get(selectors.engine_for_owner(name, request.user), number)
        try:
            stored = open_stored(version.storage_path)
        except FileNotFoundError:
            raise NotFoundError(
                "The stored file of this version is missing.",
                details={"version": number},
            ) from None
        return FileResponse(
            stored,
            as_attachment=True,
            filename=version.original_filename or version.storage_path.rpartition("/")[2],
            content_type="application/octet-stream",
        )


class RuntimesView(APIView):
    """``GET`` the runtimes the live workers offer engines, each probed in its sandbox."""

    @extend_schema(
        operation_id="runtimes_list",
        summary="What a worker offers engines: Python, node, Java, the C and C++ libraries",
        description="Each worker probes its sandbox when it starts, running each runtime as an "
        "engine would be run (docs/runtimes.md). `runtimes`: every distinct runtime some live "
        "worker offers; `workers`: each live worker's own list. Both are empty while no worker "
        "runs. An upload whose command needs a runtime none offers is refused "
        "(`runtime_missing`).",
        responses={200: s.RuntimesOutputSerializer, **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        return Response(s.RuntimesOutputSerializer(selectors.runtimes_offered()).data)
