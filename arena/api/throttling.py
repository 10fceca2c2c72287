"""Rate limits of the API's writes (challenges, uploads, tournaments, registration, login) and of
its one costly read, the bulk game export (``ReadRateThrottle``).

A view opts in with ``throttle_classes = (WriteRateThrottle,)`` and a ``throttle_scope`` naming
a rate of ``settings.BAO_THROTTLE_RATES`` (``"<count>/<second|minute|hour|day>"``, or None for
no limit; set from ``BAO_THROTTLE_*``). Reads (GET, HEAD, OPTIONS) are never counted; staff are
exempt. Requests are counted per user, or per client IP for anonymous ones (registration,
login), in the default cache. Over the rate DRF raises ``Throttled``: 429 ``throttled`` with
``details.retry_after_seconds`` and a ``Retry-After`` header (``arena.api.errors``).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from django.conf import settings
from django.http import HttpRequest
from rest_framework.exceptions import Throttled
from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request
from rest_framework.throttling import ScopedRateThrottle


class WriteRateThrottle(ScopedRateThrottle):
    """``ScopedRateThrottle`` for unsafe methods, with the rate read from the settings at each
    request (so an override takes effect without re-importing DRF's settings)."""

    def allow_request(self, request: Request, view: Any) -> bool:
        if request.method in SAFE_METHODS:
            return True
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and user.is_staff:
            return True
        return super().allow_request(request, view)

    def get_rate(self) -> str | None:
        rates: dict[str, str | None] = settings.BAO_THROTTLE_RATES
        if self.scope not in rates:
            raise KeyError(f"no rate in settings.BAO_THROTTLE_RATES for scope {self.scope!r}")
        return rates[self.scope]


class ReadRateThrottle(WriteRateThrottle):
    """A rate for a read that costs as much as many writes (the bulk game export): every
    method counts, per user or, for anonymous clients, per client IP; staff are exempt. Over
    the rate: 429 ``throttled`` as for writes."""

    def allow_request(self, request: Request, view: Any) -> bool:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and user.is_staff:
            return True
        return ScopedRateThrottle.allow_request(self, request, view)


def check_write_rate(request: HttpRequest, scope: str) -> None:
    """Count one write of ``scope`` for ``request`` as the API's views do, in the same cache
    entries (the same user or client IP, the same rate), so a write through a web form and one
    through the API share one budget. Raises ``Throttled`` (429 ``throttled``) over the rate.
    For views that are not DRF views (``arena.web``)."""
    throttle = WriteRateThrottle()
    # The throttle reads only method, user and the client address: a Django request has them.
    if not throttle.allow_request(request, SimpleNamespace(throttle_scope=scope)):  # type: ignore[arg-type]
        raise Throttled(wait=throttle.wait())
