"""OpenAPI pieces shared by the views: the error envelope as a documented response."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, inline_serializer
from rest_framework import serializers

ErrorSerializer = inline_serializer(
    name="Error",
    fields={
        "error": inline_serializer(
            name="ErrorBody",
            fields={
                "code": serializers.CharField(help_text="Stable error code, e.g. `not_found`."),
                "message": serializers.CharField(),
                "details": serializers.DictField(
                    help_text="Field errors for `invalid`, else context."
                ),
            },
        )
    },
)

_ERROR = OpenApiResponse(ErrorSerializer, description="Error envelope, see `code`.")

#: Responses every endpoint may give, for ``extend_schema(responses={..., **ERROR_RESPONSES})``.
ERROR_RESPONSES = {400: _ERROR, 401: _ERROR, 403: _ERROR, 404: _ERROR}
#: The error responses of an upload (adds 413 ``upload_too_large``).
UPLOAD_ERROR_RESPONSES = {**ERROR_RESPONSES, 413: _ERROR}
