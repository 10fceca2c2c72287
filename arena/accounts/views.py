"""Account endpoints: register, obtain a token, who am I. Thin: parse, call a service, render."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import permissions, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.accounts import serializers as s
from arena.accounts.services import token_obtain, user_register
from arena.api.auth import request_user
from arena.api.schema import ERROR_RESPONSES
from arena.api.throttling import WriteRateThrottle


class RegisterView(APIView):
    permission_classes = (permissions.AllowAny,)
    authentication_classes = ()  # registration must work without (and despite) credentials
    throttle_classes = (WriteRateThrottle,)  # per client IP: settings.BAO_THROTTLE_RATES
    throttle_scope = "register"

    @extend_schema(
        operation_id="auth_register",
        summary="Create an account",
        description="Creates a user and returns its API token. Errors: `username_taken`, "
        "`invalid` (field details, e.g. a too short or too common password).",
        request=s.RegisterInputSerializer,
        responses={201: s.RegisterOutputSerializer, **ERROR_RESPONSES},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = s.RegisterInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user, token = user_register(**data.validated_data)
        body = {"user": s.UserOutputSerializer(user).data, "token": token}
        return Response(
            s.RegisterOutputSerializer(body).data, status=status.HTTP_201_CREATED
        )


class TokenView(APIView):
    permission_classes = (permissions.AllowAny,)
    authentication_classes = ()
    throttle_classes = (WriteRateThrottle,)  # per client IP: slows password guessing
    throttle_scope = "login"

    @extend_schema(
        operation_id="auth_token",
        summary="Obtain the API token of an account",
        description="Errors: `invalid_credentials`, `invalid`.",
        request=s.TokenInputSerializer,
        responses={200: s.TokenOutputSerializer, **ERROR_RESPONSES},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = s.TokenInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return Response({"token": token_obtain(**data.validated_data)})


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
            "engines": list(
                user.engines.order_by("name").values_list("name", flat=True)
            ),
        }
        return Response(s.MeOutputSerializer(body).data)
