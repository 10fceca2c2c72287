"""API errors: one JSON shape for every error, and ``ApiError`` classes with stable codes.

Every error response of the API is::

    {"error": {"code": "<stable_code>", "message": "<readable text>", "details": {...}}}

``code`` is stable (clients branch on it); ``message`` is for people; ``details`` holds field
errors for ``invalid`` (``{"field": ["message", ...]}``) and is ``{}`` otherwise unless an error
adds context. DRF's own exceptions are mapped (``invalid``, ``not_authenticated``,
``authentication_failed``, ``permission_denied``, ``not_found``, ``method_not_allowed``,
``parse_error``, ``unsupported_media_type``, ``throttled``, ``not_acceptable``); Django's
``Http404``/``PermissionDenied`` too, and its ``SuspiciousOperation`` family (``RequestDataTooBig``
-> 413 ``request_too_large``, the others -> 400 ``bad_request``). Apps raise ``ApiError``
subclasses for their own cases. Responses Django itself makes under ``/api/`` (unknown paths,
500s) use the same shape (``arena.api.handlers``). Every code is listed in ``docs/api-errors.md``.
"""

from __future__ import annotations

import logging
import math
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

logger = logging.getLogger(__name__)


class ApiError(exceptions.APIException):
    """Base of the service's own API errors: subclasses set ``status_code``, ``default_code``
    and ``default_detail``; ``details`` (a dict) is copied into the response."""

    status_code: int = status.HTTP_400_BAD_REQUEST
    default_code = "error"
    default_detail = "The request could not be processed."

    def __init__(
        self, message: str | None = None, *, details: dict[str, Any] | None = None
    ) -> None:
        super().__init__(detail=message or self.default_detail, code=self.default_code)
        self.details: dict[str, Any] = details or {}


class UnknownVariant(ApiError):
    default_code = "unknown_variant"
    default_detail = "Unknown variant."


class RequestTooLarge(ApiError):
    """A request body over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` bytes (``details.max_bytes``); engine
    uploads have their own limit and code (``upload_too_large``)."""

    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "request_too_large"
    default_detail = "The request body is larger than the limit."


class UnknownField(ApiError):
    """A request body holds a field the endpoint does not take (a misspelt ``time_controll``
    would otherwise be dropped and its default used): ``details.fields`` names the unknown
    ones (dotted inside a nested object: ``consent.laddr``), ``details.known`` the accepted
    ones. Raised by ``arena.api.serializers.BodySerializer``."""

    default_code = "unknown_field"
    default_detail = "The request body has a field this endpoint does not take."


class BadRequest(ApiError):
    """A request Django refuses as suspicious (too many fields or files, a bad host...)."""

    default_code = "bad_request"
    default_detail = "The request cannot be processed."


# DRF exception class -> stable code (DRF's own ``default_code`` is close but not uniform).
_DRF_CODES: tuple[tuple[type[exceptions.APIException], str], ...] = (
    (exceptions.ValidationError, "invalid"),
    (exceptions.NotAuthenticated, "not_authenticated"),
    (exceptions.AuthenticationFailed, "authentication_failed"),
    (exceptions.PermissionDenied, "permission_denied"),
    (exceptions.NotFound, "not_found"),
    (exceptions.MethodNotAllowed, "method_not_allowed"),
    (exceptions.NotAcceptable, "not_acceptable"),
    (exceptions.UnsupportedMediaType, "unsupported_media_type"),
    (exceptions.ParseError, "parse_error"),
    (exceptions.Throttled, "throttled"),
)


def error_body(code: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON body of an error response (see the module docstring)."""
    return {"error": {"code": code, "message": message, "details": details or {}}}


def _code_for(exc: exceptions.APIException) -> str:
    if isinstance(exc, ApiError):
        return exc.default_code
    for cls, code in _DRF_CODES:
        if isinstance(exc, cls):
            return code
    return str(getattr(exc, "default_code", "error"))


def _message_for(exc: exceptions.APIException, code: str) -> str:
    if code == "invalid":
        return "The request is invalid; see details."
    detail = exc.detail
    if isinstance(detail, (list, dict)):
        return str(exc.default_detail)
    return str(detail)


def _details_for(exc: exceptions.APIException, code: str) -> dict[str, Any]:
    if isinstance(exc, ApiError):
        return dict(exc.details)
    if code == "invalid":
        detail = exc.detail
        if isinstance(detail, dict):
            return {key: _flatten(value) for key, value in detail.items()}
        # A ValidationError raised with a list or a string is not tied to a field.
        return {"non_field_errors": _flatten(detail)}
    if isinstance(exc, exceptions.Throttled):
        # Throttled.__init__ sets ``wait`` (seconds or None); the DRF stubs do not declare it.
        wait: float | None = exc.wait  # type: ignore[attr-defined]
        if wait is not None:
            # Rounded up, as DRF's Retry-After header: 0.4 s left is "retry in 1 s", not 0.
            return {"retry_after_seconds": math.ceil(wait)}
    return {}


def _flatten(value: Any) -> Any:
    """DRF ``ErrorDetail`` trees -> plain strings (lists of messages, nested dicts kept)."""
    if isinstance(value, dict):
        return {key: _flatten(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_flatten(item) for item in value]
    return str(value)


def describe(exc: exceptions.APIException) -> tuple[str, str, dict[str, Any]]:
    """``(code, message, details)`` of an API error, exactly as its JSON envelope says them:
    for callers that show the error elsewhere than in a JSON body (the web forms,
    ``arena.web.forms``, put each message next to the field it concerns)."""
    code = _code_for(exc)
    return code, _message_for(exc, code), _details_for(exc, code)


def suspicious_operation_error(exc: SuspiciousOperation) -> ApiError:
    """Django's refusal of a request as the API error it means (413 for an oversized body)."""
    if isinstance(exc, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        return RequestTooLarge(
            f"The request body is larger than {limit} bytes.", details={"max_bytes": limit}
        )
    # Django logs these on its 'django.security' loggers when it handles them; keep the trail.
    logging.getLogger(f"django.security.{type(exc).__name__}").warning("%s", exc)
    return BadRequest(str(exc) or None)


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF ``EXCEPTION_HANDLER``: every API error as ``{"error": {code, message, details}}``.

    Unexpected exceptions are not handled here (returns None, Django answers 500 and logs it):
    the API's own code turns bad input into typed errors before that.
    """
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    elif isinstance(exc, SuspiciousOperation):
        exc = suspicious_operation_error(exc)
    response = drf_exception_handler(exc, context)  # keeps headers: WWW-Authenticate, Retry-After
    if response is None or not isinstance(exc, exceptions.APIException):
        return response
    response.data = error_body(*describe(exc))
    return response


class NotFoundError(ApiError):
    """A named object does not exist (``not_found``, like DRF's ``NotFound`` but with details)."""

    status_code = status.HTTP_404_NOT_FOUND
    default_code = "not_found"
    default_detail = "Not found."
