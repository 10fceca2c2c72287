"""Accounts in the browser: sign up, log in (``/accounts/login/``) and log out.

The same input serializers, services and rate limits as ``POST /api/auth/register/`` and
``POST /api/auth/token/`` (the ``register`` scope per client IP; failed logins limited as in
``arena.accounts.login_limits``); the browser
then holds a Django session instead of an API token (the API accepts the session too).
"""

from __future__ import annotations

from django.contrib.auth import login, logout
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from arena.accounts.serializers import RegisterInputSerializer, TokenInputSerializer
from arena.accounts.services import user_authenticate, user_register
from arena.web.forms import FORM, Field, FormErrors, form_page, submit

SIGNUP_FIELDS = (
    Field(
        "username",
        "Username",
        required=True,
        autocomplete="username",
        help="Letters, digits and @ . + - _ ; it owns your engines, so it cannot be changed.",
    ),
    Field(
        "password",
        "Password",
        kind="password",
        required=True,
        autocomplete="new-password",
        help="At least 8 characters, not a common password.",
    ),
    Field("email", "Email (optional)", kind="email", autocomplete="email"),
)
LOGIN_FIELDS = (
    Field("username", "Username", required=True, autocomplete="username"),
    Field("password", "Password", kind="password", required=True, autocomplete="current-password"),
)


def next_url(request: HttpRequest) -> str:
    """Where to go after logging in: ``?next=`` (or the posted ``next``) if it is a path of
    this site, else home."""
    target = request.POST.get("next") or request.GET.get("next") or "/"
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return "/"


def signup(request: HttpRequest) -> HttpResponse:
    """``/accounts/signup/``: create an account (``user_register``) and log in."""
    if request.method != "POST":
        return form_page(
            request,
            "web/signup.html",
            SIGNUP_FIELDS,
            {},
            None,
            next_hidden=[("next", next_url(request))],
        )
    values = {k: request.POST.get(k, "") for k in ("username", "password", "email")}
    result = submit(
        request,
        scope="register",
        serializer=RegisterInputSerializer,
        data=values,
        call=lambda d: user_register(**d)[0],
        fields={"username_taken": "username", "username_confusable": "username"},
    )
    if isinstance(result, FormErrors):
        return form_page(
            request,
            "web/signup.html",
            SIGNUP_FIELDS,
            values,
            result,
            next_hidden=[("next", next_url(request))],
        )
    if not isinstance(result, User):  # the project's user model is Django's own
        raise TypeError(f"user_register gave {type(result).__name__}, not a User")
    login(request, result, backend="arena.accounts.login_limits.NormalizedModelBackend")
    return HttpResponseRedirect(next_url(request))


def login_page(request: HttpRequest) -> HttpResponse:
    """``/accounts/login/``: log in with username and password (``user_authenticate``)."""
    if request.method != "POST":
        return form_page(
            request,
            "web/login.html",
            LOGIN_FIELDS,
            {},
            None,
            next_hidden=[("next", next_url(request))],
        )
    values = {k: request.POST.get(k, "") for k in ("username", "password")}
    result = submit(
        request,
        scope=None,  # failed logins are limited by the service (arena.accounts.login_limits)
        serializer=TokenInputSerializer,
        data=values,
        call=lambda d: user_authenticate(request=request, **d),
        fields={"invalid_credentials": FORM, "throttled": FORM},
    )
    if isinstance(result, FormErrors):
        return form_page(
            request,
            "web/login.html",
            LOGIN_FIELDS,
            values,
            result,
            next_hidden=[("next", next_url(request))],
        )
    login(request, result)
    return HttpResponseRedirect(next_url(request))


@require_POST
def logout_page(request: HttpRequest) -> HttpResponse:
    """``POST /accounts/logout/``: end the session (a POST, so no link can log anyone out)."""
    logout(request)
    return HttpResponseRedirect("/")
