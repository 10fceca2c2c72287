"""Limits on failed logins, on every login path: ``POST /api/auth/token/``, the web's
``/accounts/login/`` and ``/admin/login/`` (docs/api-accounts.md, "Login limits").

Three budgets of *failed* attempts (a successful login never counts), each a sliding window in
the default cache:

- per (username, client IP): django-axes (``AXES_LOCKOUT_PARAMETERS``), ``AXES_FAILURE_LIMIT``
  failures (``BAO_LOGIN_FAILURES_PER_USER_IP``, default 10) lock that pair for
  ``AXES_COOLOFF_TIME`` (``BAO_LOGIN_COOLOFF_MINUTES``, default 15); the owner logging in from
  elsewhere is not affected;
- per username, from any address: ``BAO_LOGIN_FAILURES_PER_USERNAME`` (default ``"100/hour"``),
  so guessing one account from many IPs is bounded too; a client that has logged in as that
  user before (it holds the signed cookie ``KNOWN_COOKIE`` a successful login sets, the
  "device cookie" of OWASP's brute-force guidance) is exempt from this budget, so an attacker
  spending it from many addresses does not lock the owner out of a browser they used before;
- per client IP, any usernames: the ``login`` rate (``BAO_THROTTLE_LOGIN``, default
  ``"60/hour"``), now counting failures only, so the logins of many users behind one NAT no
  longer spend one budget.

Over any of them: ``429 throttled`` in the API's envelope with ``details.retry_after_seconds``
and ``Retry-After`` (the token endpoint), the login form again with that message and status 429
(the web), the same page for the admin's login (``lockout_response``, axes's
``AXES_LOCKOUT_CALLABLE``). ``LoginLimitBackend`` (first in ``AUTHENTICATION_BACKENDS``)
refuses before the password is checked; ``count_failure`` (the ``user_login_failed`` signal)
counts.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.core import signing
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from rest_framework.throttling import BaseThrottle

from arena.accounts.usernames import normalize, skeleton

#: The request attribute that says a login was refused by a limit, and for how many seconds.
RETRY_AFTER = "bao_login_retry_after"


def client_ip(request: HttpRequest) -> str:
    """The client address the API's throttles use (DRF's ``get_ident``: ``REMOTE_ADDR``, or the
    ``X-Forwarded-For`` entry ``NUM_PROXIES`` from the right); axes's
    ``AXES_CLIENT_IP_CALLABLE``."""
    ident = BaseThrottle().get_ident(request)  # type: ignore[arg-type]
    # A request made in-process (``Client.force_login``) has no address: the unspecified one,
    # which PostgreSQL's inet column (axes's ``ip_address``) accepts where "None" is refused.
    return str(ident) if ident else "0.0.0.0"


def _rate(text: str | None) -> tuple[int, int] | None:
    """``"<count>/<second|minute|hour|day>"`` as (count, seconds); None for no limit."""
    if not text:
        return None
    count, period = text.split("/")  # checked by arena.env.env_rate
    return int(count), {"s": 1, "m": 60, "h": 3600, "d": 86400}[period[0]]


#: The cookie that marks a client which logged in as a user before (``mark_known``): signed,
#: holding the casefolded username, for ``KNOWN_MAX_AGE`` seconds.
KNOWN_COOKIE = "bao_known_login"
KNOWN_MAX_AGE = 365 * 86400
_KNOWN_SALT = "arena.accounts.login_limits.known"
_KNOWN_ATTR = "bao_known_login"


def mark_known(request: HttpRequest, username: str) -> None:
    """Note on ``request`` that it logged in as ``username``: ``KnownLoginMiddleware`` then
    sets ``KNOWN_COOKIE`` on the answer."""
    setattr(request, _KNOWN_ATTR, username.casefold())


def on_logged_in(sender: Any, request: HttpRequest | None, user: Any, **_: Any) -> None:
    """``user_logged_in`` (a session login: the web's form, the admin's): ``mark_known``."""
    if request is not None:
        mark_known(request, user.get_username())


def _known(request: HttpRequest, username: str) -> bool:
    """True if ``request`` carries a valid ``KNOWN_COOKIE`` for ``username``."""
    value = request.COOKIES.get(KNOWN_COOKIE)
    if not value or not username:
        return False
    try:
        known = signing.loads(value, salt=_KNOWN_SALT, max_age=KNOWN_MAX_AGE)
    except signing.BadSignature:
        return False
    return bool(known == username.casefold())


class KnownLoginMiddleware:
    """Sets ``KNOWN_COOKIE`` on the answer to a successful login (``mark_known``)."""

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response: HttpResponse = self.get_response(request)
        username = getattr(request, _KNOWN_ATTR, None)
        if username:
            response.set_cookie(
                KNOWN_COOKIE,
                signing.dumps(username, salt=_KNOWN_SALT),
                max_age=KNOWN_MAX_AGE,
                secure=settings.SESSION_COOKIE_SECURE,
                httponly=True,
                samesite="Lax",
            )
        return response


def _budgets(request: HttpRequest, username: str) -> list[tuple[str, tuple[int, int]]]:
    """(cache key, (count, seconds)) of the per-username and per-IP budgets that apply (the
    per-username one not to a client known for ``username``)."""
    budgets = []
    per_user = _rate(settings.BAO_LOGIN_FAILURES_PER_USERNAME)
    if per_user is not None and username and not _known(request, username):
        digest = hashlib.sha256(login_key(username).encode()).hexdigest()[:32]
        budgets.append((f"bao-login-fail:user:{digest}", per_user))
    per_ip = _rate(settings.BAO_THROTTLE_RATES.get("login"))
    if per_ip is not None:
        budgets.append((f"bao-login-fail:ip:{client_ip(request)}", per_ip))
    return budgets


def _recent(key: str, seconds: int, now: float) -> list[float]:
    return [t for t in cache.get(key, []) if t > now - seconds]


def retry_after(request: HttpRequest, username: str) -> int | None:
    """Seconds until a login for ``username`` from this client may be tried again, if a
    per-username or per-IP budget is spent; None if it may be tried now."""
    now = time.time()
    waits = []
    for key, (count, seconds) in _budgets(request, username):
        recent = _recent(key, seconds, now)
        if len(recent) >= count:
            waits.append(int(recent[-count] + seconds - now) + 1)
    return max(waits) if waits else None


def count_failure(
    sender: Any, credentials: dict[str, Any], request: HttpRequest | None = None, **_: Any
) -> None:
    """Count a failed login against the per-username and per-IP budgets (not one refused by a
    limit: that would keep the owner locked out for as long as an attacker tries). Connected
    to ``user_login_failed`` by ``AccountsConfig.ready``."""
    if request is None or getattr(request, RETRY_AFTER, None) is not None:
        return
    if getattr(request, "axes_locked_out", False):
        return
    now = time.time()
    for key, (_count, seconds) in _budgets(request, str(credentials.get("username") or "")):
        cache.set(key, [*_recent(key, seconds, now), now][-1000:], timeout=seconds)


def login_key(username: str) -> str:
    """The name a login's failures count under: the confusable skeleton
    (``arena.accounts.usernames``) of the case-folded name, so fullwidth
    ``\uff42\uff4f\uff42``, ``BOB`` and ``b0b`` spend the one budget of the one account
    registration lets them name."""
    return skeleton(username.casefold())


def axes_username(request: HttpRequest | None, credentials: dict[str, Any] | None) -> str:
    """The name axes keeps a (username, IP) lock under (``AXES_USERNAME_CALLABLE``):
    ``login_key``."""
    return login_key(str((credentials or {}).get("username") or ""))


class NormalizedModelBackend(ModelBackend):
    """Django's model backend, with the username NFKC-normalised first as registration stores
    it (``usernames.normalize``), so a login typed in fullwidth or with a compatibility
    character finds the account."""

    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> Any:
        if username is not None:
            username = normalize(username)
        return super().authenticate(request, username=username, password=password, **kwargs)


class LoginLimitBackend:
    """An authentication backend that logs no one in: placed first, it refuses (Django's
    ``PermissionDenied``, which stops ``authenticate``) a login whose per-username or per-IP
    failure budget is spent, and marks the request (``RETRY_AFTER``) so the caller answers 429.
    Axes's own backend then checks the (username, IP) lock."""

    def authenticate(
        self, request: HttpRequest | None, username: str | None = None, **_: Any
    ) -> None:
        if request is None:
            return None
        wait = retry_after(request, str(username or ""))
        if wait is not None:
            setattr(request, RETRY_AFTER, wait)
            request.axes_locked_out = True  # type: ignore[attr-defined]
            raise PermissionDenied("too many failed logins")
        return None


def refused_for(request: HttpRequest) -> int | None:
    """Seconds to wait if the last ``authenticate(request, ...)`` was refused by a limit (ours
    or axes's (username, IP) lock), else None."""
    wait = getattr(request, RETRY_AFTER, None)
    if wait is not None:
        return int(wait)
    if getattr(request, "axes_locked_out", False):
        return int(settings.AXES_COOLOFF_TIME.total_seconds())
    return None


def message(wait: int) -> str:
    """The one text of a refused login, API and web alike."""
    minutes = max(1, round(wait / 60))
    return (
        "Too many failed logins for this account or from your address; "
        f"try again in about {minutes} minute{'s' if minutes != 1 else ''}."
    )


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: Any = None
) -> HttpResponse:
    """Axes's ``AXES_LOCKOUT_CALLABLE``: the answer to a login refused by a limit. A view that
    already answered 429 (the token endpoint, the web's login form) keeps its answer; anything
    else (the admin's login) gets a 429 page, or the API's envelope under ``/api/``."""
    if original_response is not None and original_response.status_code == 429:
        return original_response
    wait = refused_for(request) or int(settings.AXES_COOLOFF_TIME.total_seconds())
    if request.path.startswith("/api/"):
        response: HttpResponse = JsonResponse(
            {
                "error": {
                    "code": "throttled",
                    "message": message(wait),
                    "details": {"retry_after_seconds": wait},
                }
            },
            status=429,
        )
    else:
        response = HttpResponse(
            render_to_string("accounts/login_throttled.html", {"message": message(wait)}),
            status=429,
        )
    response["Retry-After"] = str(wait)
    return response
