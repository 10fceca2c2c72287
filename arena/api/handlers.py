"""Django's own error responses, in the API's JSON shape for paths under ``/api/``.

DRF views answer their errors through ``arena.api.errors.exception_handler``; these cover what
happens outside them: a path no route matches (``api_not_found``, the last API route, so it
answers in DEBUG too, where Django would print its URL list), and Django's 400/403/404/500
handlers (``handler400`` ... in ``arena.urls``; Django calls them when DEBUG is off). Pages
outside ``/api/`` keep Django's HTML views.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import SuspiciousOperation
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect, JsonResponse
from django.urls import Resolver404, resolve
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt

from arena.api.errors import error_body, suspicious_operation_error

API_PREFIX = "/api/"

#: URL name of the catch-all route (``arena.urls``).
NOT_FOUND_ROUTE = "api-not-found"


def is_api(request: HttpRequest) -> bool:
    """True for requests under ``/api/`` (the JSON API)."""
    return request.path_info.startswith(API_PREFIX) or request.path_info == API_PREFIX[:-1]


def json_error(
    status: int, code: str, message: str, details: dict[str, Any] | None = None
) -> JsonResponse:
    return JsonResponse(error_body(code, message, details), status=status)


def _not_found(request: HttpRequest) -> JsonResponse:
    return json_error(404, "not_found", "No API endpoint at this path.", {"path": request.path})


def _real_route(path: str) -> bool:
    try:
        return resolve(path).url_name != NOT_FOUND_ROUTE
    except Resolver404:
        return False


@csrf_exempt
def api_not_found(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
    """The catch-all of ``/api/``: 404 ``not_found`` with ``details.path``.

    A path missing only its trailing slash keeps Django's ``APPEND_SLASH`` behaviour for reads
    (301 to the slashed URL, query kept); a write cannot be redirected without losing its body,
    so it gets the 404 with ``details.did_you_mean``.
    """
    path = request.path_info
    if settings.APPEND_SLASH and not path.endswith("/") and _real_route(path + "/"):
        if request.method in ("GET", "HEAD"):
            return HttpResponsePermanentRedirect(request.get_full_path(force_append_slash=True))
        return json_error(
            404,
            "not_found",
            "No API endpoint at this path; the URL needs its trailing slash.",
            {"path": request.path, "did_you_mean": request.path + "/"},
        )
    return _not_found(request)


def handler400(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Bad request: 413 ``request_too_large`` for an oversized body, else 400 ``bad_request``."""
    if not is_api(request):
        return defaults.bad_request(request, exception)
    if isinstance(exception, SuspiciousOperation):
        error = suspicious_operation_error(exception)
        return json_error(error.status_code, error.default_code, str(error.detail), error.details)
    return json_error(400, "bad_request", "The request cannot be processed.")


def handler403(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Forbidden: 403 ``permission_denied``."""
    if not is_api(request):
        return defaults.permission_denied(request, exception)
    return json_error(
        403, "permission_denied", "You do not have permission to perform this action."
    )


def handler404(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """Not found: 404 ``not_found`` with ``details.path``."""
    if not is_api(request):
        return defaults.page_not_found(request, exception)
    return _not_found(request)


def handler500(request: HttpRequest) -> HttpResponse:
    """Server error: 500 ``server_error`` (the traceback goes to the log, never to clients)."""
    if not is_api(request):
        return defaults.server_error(request)
    return json_error(500, "server_error", "The server failed to answer; it has been logged.")
