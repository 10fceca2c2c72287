"""Account endpoints: register, tokens (obtain, list, revoke), password change, who am I.
Thin: parse, call a service or selector, render."""

from __future__ import annotations

from django.contrib.auth import update_session_auth_hash
from drf_spectacular.utils import extend_schema
from knox.models import AuthToken
from rest_framework import permissions, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.accounts import serializers as s
from arena.accounts.selectors import token_list
from arena.accounts.services import password_change, token_obtain, token_revoke, user_register
from arena.api.auth import request_user
from arena.api.schema import ERROR_RESPONSES
from arena.api.throttling import WriteRateThrottle

TOKEN_LIFETIME_NOTE = (
    "Each call mints a new token (earlier ones keep working until they expire or are revoked); "
    "a token expires BAO_TOKEN_TTL_HOURS after it is minted (default 720 h, 30 days). The "
    "arena stores only a digest of the key: keep it, it cannot be shown again."
)


class RegisterView(APIView):
    permission_classes = (permissions.AllowAny,)
    authentication_classes = ()  # registration must work without (and despite) credentials
    throttle_classes = (WriteRateThrottle,)  # per client IP: settings.BAO_THROTTLE_RATES
    throttle_scope = "register"

    @extend_schema(
        operation_id="auth_register",
        summary="Create an account",
        description="Creates a user and returns a first API token. Errors: `username_taken`, "
        "`invalid` (field details, e.g. a too short or too common password). "
        + TOKEN_LIFETIME_NOTE,
        request=s.RegisterInputSerializer,
        responses={201: s.RegisterOutputSerializer, **ERROR_RESPONSES},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = s.RegisterInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user, token, expiry = user_register(**data.validated_data)
        body = {"user": s.UserOutputSerializer(user).data, "token": token, "expires_at": expiry}
        return Response(s.RegisterOutputSerializer(body).data, status=status.HTTP_201_CREATED)


class TokenView(APIView):
    permission_classes = (permissions.AllowAny,)
    authentication_classes = ()
    # Failed logins are limited per (username, IP), per username and per IP, successes never
    # counted (arena.accounts.login_limits): no request-rate throttle here.

    @extend_schema(
        operation_id="auth_token",
        summary="Mint an API token for an account",
        description="Errors: `invalid_credentials`, `invalid`, `throttled` (429: too many "
        "failed logins for this username from this address, for this username, or from this "
        "address; `details.retry_after_seconds`). " + TOKEN_LIFETIME_NOTE,
        request=s.TokenInputSerializer,
        responses={200: s.TokenOutputSerializer, **ERROR_RESPONSES},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = s.TokenInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        token, expiry = token_obtain(request=request._request, **data.validated_data)
        return Response(s.TokenOutputSerializer({"token": token, "expires_at": expiry}).data)


class TokenListView(APIView):
    permission_classes = (permissions.IsAuthenticated,)

    @extend_schema(
        operation_id="auth_tokens_list",
        summary="Your live API tokens (never their keys)",
        responses={200: s.TokenListOutputSerializer(many=True), **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        used = request.auth.digest if isinstance(request.auth, AuthToken) else None
        rows = [
            {
                "token_key": t.token_key,
                "created": t.created,
                "expiry": t.expiry,
                "current": t.digest == used,
            }
            for t in token_list(user=request.user)
        ]
        return Response(s.TokenListOutputSerializer(rows, many=True).data)


class TokenRevokeView(APIView):
    permission_classes = (permissions.IsAuthenticated,)

    @extend_schema(
        operation_id="auth_tokens_revoke",
        summary="Revoke one of your tokens by its prefix",
        description="204 once revoked (the token stops working at once; revoking the one this "
        "request uses logs this client out). Errors: `not_found` (404: you have no token with "
        "this prefix; another user's token is never found), `not_authenticated`.",
        responses={204: None, **ERROR_RESPONSES},
    )
    def delete(self, request: Request, prefix: str) -> Response:
        token_revoke(user=request.user, prefix=prefix)
        return Response(status=status.HTTP_204_NO_CONTENT)


class PasswordChangeView(APIView):
    permission_classes = (permissions.IsAuthenticated,)
    throttle_classes = (WriteRateThrottle,)  # the login rate, per user: slows guessing
    throttle_scope = "login"

    @extend_schema(
        operation_id="auth_password_change",
        summary="Change your password",
        description="Revokes every token of the account (a leaked token dies with the old "
        "password) and returns a new one. Errors: `invalid_credentials` (the current password "
        "is wrong), `invalid` (the new one fails the password rules; details under "
        "`new_password`), `not_authenticated`.",
        request=s.PasswordChangeInputSerializer,
        responses={200: s.TokenOutputSerializer, **ERROR_RESPONSES},
    )
    def post(self, request: Request) -> Response:
        data = s.PasswordChangeInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        token, expiry = password_change(user=request.user, **data.validated_data)
        if request.user.is_authenticated and hasattr(request, "session"):
            # A browser session logged in by password stays logged in with the new one.
            update_session_auth_hash(request._request, request.user)
        return Response(s.TokenOutputSerializer({"token": token, "expires_at": expiry}).data)


class MeView(APIView):
    permission_classes = (permissions.IsAuthenticated,)

    @extend_schema(
        operation_id="auth_me",
        summary="The authenticated user",
        responses={200: s.MeOutputSerializer, **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        user = request_user(request)
        body = {
            "id": user.pk,
            "username": user.get_username(),
            "email": user.email,
            "date_joined": user.date_joined,
            "engines": list(user.engines.order_by("name").values_list("name", flat=True)),
        }
        return Response(s.MeOutputSerializer(body).data)
