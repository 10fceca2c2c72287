"""Dependency outages: ``503 service_unavailable`` with ``Retry-After`` instead of a 500, and
``/healthz`` (issue 11).

When the database, the broker or a shared cache cannot be reached, a request fails for a reason
that is neither the client's nor a bug: ``OutageMiddleware`` turns the error into ``503`` with a
``Retry-After`` header (``RETRY_AFTER_S``), in the API's error shape under ``/api/``
(``service_unavailable``, details ``dependency`` and ``retry_after_seconds``) and as plain text
elsewhere. ``healthz`` reports each dependency: ``200`` when all answer, else ``503``.
A database that hangs (packets dropped, not refused) gets the same answers within about 5 s:
the connect, statement and client-side deadlines of ``arena.dbbackend`` (settings
``DATABASE_*``) turn the wait into an ``OperationalError``.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from django.db import InterfaceError, OperationalError, connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from kombu.exceptions import OperationalError as BrokerError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from arena.api.errors import error_body
from arena.dbbackend import deadline

log = logging.getLogger(__name__)

#: Seconds a client is asked to wait after a 503 (a restart or failover usually takes this).
RETRY_AFTER_S = 30
#: Seconds ``healthz`` waits for each dependency.
PROBE_TIMEOUT_S = 2


def dependency_of(exc: BaseException) -> str | None:
    """``"database"``, ``"broker"`` or ``"cache"`` for an error of an unreachable dependency,
    else None."""
    if isinstance(exc, OperationalError | InterfaceError):
        return "database"
    if isinstance(exc, BrokerError):
        return "broker"
    if isinstance(exc, RedisConnectionError | RedisTimeoutError):
        return "cache"
    return None


def unavailable(request: HttpRequest, dependency: str) -> HttpResponse:
    """The 503 answer for ``request`` while ``dependency`` is down."""
    message = f"The {dependency} is unavailable; retry in {RETRY_AFTER_S} s."
    response: HttpResponse
    if request.path_info.startswith("/api/"):
        body = error_body(
            "service_unavailable",
            message,
            {"dependency": dependency, "retry_after_seconds": RETRY_AFTER_S},
        )
        response = JsonResponse(body, status=503)
    else:
        response = HttpResponse(message, status=503, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = str(RETRY_AFTER_S)
    return response


class OutageMiddleware:
    """Answers ``unavailable`` for a view that failed on an unreachable dependency."""

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response: HttpResponse = self.get_response(request)
        return response

    def process_exception(self, request: HttpRequest, exc: Exception) -> HttpResponse | None:
        dependency = dependency_of(exc)
        if dependency is None:
            return None
        log.warning(
            "%s %s: the %s is unavailable (%s)", request.method, request.path, dependency, exc
        )
        return unavailable(request, dependency)


def _probe_database() -> None:
    # A hung server (packets dropped) answers nothing: the probe gives up after its bound,
    # the reused connection's health check after less, a new connection after connect_timeout.
    with deadline(PROBE_TIMEOUT_S), connection.cursor() as cursor:
        cursor.execute("SELECT 1")


def _probe_broker() -> None:
    from arena.celery import app

    with app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, interval_start=0, timeout=PROBE_TIMEOUT_S)


def healthz(request: HttpRequest) -> JsonResponse:
    """``GET /healthz``: ``{"status": "ok"|"unavailable", "database": {"ok", "ms"|"error"},
    "broker": {...}}``; 200 when both answer, else 503 with ``Retry-After``."""
    report: dict[str, Any] = {}
    for name, probe in (("database", _probe_database), ("broker", _probe_broker)):
        began = time.monotonic()
        try:
            probe()
            report[name] = {"ok": True, "ms": round((time.monotonic() - began) * 1000, 1)}
        except Exception as exc:
            report[name] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:300]}
            if name == "database":
                connection.close()
    ok = all(part["ok"] for part in report.values())
    response = JsonResponse(
        {"status": "ok" if ok else "unavailable", **report}, status=200 if ok else 503
    )
    if not ok:
        response["Retry-After"] = str(RETRY_AFTER_S)
    return response
