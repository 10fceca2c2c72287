"""OpenAPI pieces shared by the views: the error envelope, documented on every operation.

``AutoSchema`` (``DEFAULT_SCHEMA_CLASS``) adds the error responses an operation can give to
whatever its view declares, from what the view is, so that a new endpoint is documented
truthfully without listing them by hand (docs/api-errors.md has the codes):

* 400 (``invalid`` and friends: every operation checks its query parameters; request bodies
  are closed objects, ``unknown_field``), 404 (an unknown
  object in the path, a page past the end), 405 and 406 (content negotiation), everywhere;
* 401 and 403 where the view authenticates (a wrong token is refused even on a read);
* 409 (the state forbids it), 413 (body too large) and 415 (``Content-Type`` not read) on
  writes;
* 429 on writes of a view with a rate limit (``throttle_classes``).

Optional query parameters are marked ``allowEmptyValue``: an empty one (``?variant=``) means
the parameter is not given, on every endpoint but those whose view sets ``refuses_empty``
(``GET /api/games/export/``: 400 ``invalid``). Free text query parameters exclude NUL, which
Django's and DRF's text fields refuse.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.plumbing import force_instance
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, inline_serializer
from rest_framework import serializers

from arena.api.serializers import BodySerializer

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

#: Status -> what it means here, in the response's description.
ERROR_MEANINGS = {
    400: "Bad input: `invalid` (details per field or query parameter), `unknown_field` (a "
    "body field the endpoint does not take; `details.fields`) or a specific code.",
    401: "`not_authenticated` or `authentication_failed` (a wrong token).",
    403: "`permission_denied` or a specific code (e.g. `engine_not_yours`).",
    404: "`not_found`: nothing at this path (or a page past the end).",
    405: "`method_not_allowed`.",
    406: "`not_acceptable`: the `Accept` header asks for a format the API does not produce.",
    409: "The current state forbids it (e.g. `engine_not_active`, `duplicate_version`).",
    413: "`request_too_large` or `upload_too_large`; `details.max_bytes`.",
    415: "`unsupported_media_type`: a body type this endpoint does not read.",
    429: "`throttled`: too many writes; `details.retry_after_seconds`, `Retry-After` header.",
}

#: A text query parameter: anything but NUL.
NO_NUL_PATTERN = "^[^\\u0000]*$"

_WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def error_statuses(view: Any, method: str) -> list[int]:
    """The error statuses ``method`` on ``view`` can answer (module docstring)."""
    codes = [400, 404, 405, 406]
    if getattr(view, "authentication_classes", ()):
        codes += [401, 403]
    if method.upper() in _WRITES:
        codes += [409, 413, 415]
        if getattr(view, "throttle_classes", ()):
            codes.append(429)
    return sorted(codes)


class AutoSchema(SpectacularAutoSchema):
    """drf-spectacular's ``AutoSchema`` that documents the error responses (module docstring)
    and closes request bodies: a ``BodySerializer`` in a request is an object with
    ``additionalProperties: false`` (``arena.api.serializers``: other keys are 400
    ``unknown_field``)."""

    def _map_basic_serializer(self, serializer: Any, direction: Any) -> Any:
        schema = super()._map_basic_serializer(serializer, direction)  # type: ignore[no-untyped-call]
        instance = force_instance(serializer)  # type: ignore[no-untyped-call]
        if direction == "request" and isinstance(instance, BodySerializer):
            schema["additionalProperties"] = False
        return schema

    def get_operation(self, *args: Any, **kwargs: Any) -> Any:
        operation = super().get_operation(*args, **kwargs)
        if operation is None:
            return None
        for parameter in operation.get("parameters", []):
            if parameter.get("in") != "query":
                continue
            if not parameter.get("required") and not getattr(self.view, "refuses_empty", False):
                # An empty optional parameter (`?variant=`) means "not given", except on a view
                # that refuses it (`refuses_empty`: the export, where a dropped filter would
                # export every game).
                parameter["allowEmptyValue"] = True
            schema = parameter.get("schema", {})
            if schema.get("type") == "string" and not {"enum", "pattern", "format"} & set(schema):
                # Django's and DRF's text fields refuse NUL characters (400 `invalid`).
                schema["pattern"] = NO_NUL_PATTERN
        ref = self.resolve_serializer(ErrorSerializer, "response").ref
        responses = operation.setdefault("responses", {})
        for code in error_statuses(self.view, self.method):
            responses.setdefault(
                str(code),
                {
                    "content": {"application/json": {"schema": ref}},
                    "description": ERROR_MEANINGS[code],
                },
            )
        return operation


def page_parameters() -> list[OpenApiParameter]:
    """``page`` and ``page_size`` as ``Pagination`` documents them, for a view whose page is
    documented by hand (a page with more keys than drf-spectacular's envelope)."""
    from arena.api.pagination import Pagination

    return [
        OpenApiParameter(
            name=p["name"],
            type=p["schema"],
            location=OpenApiParameter.QUERY,
            required=False,
            description=p["description"],
        )
        for p in Pagination().get_schema_operation_parameters(None)
    ]
