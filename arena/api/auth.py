"""The user of an authenticated API request, typed."""

from __future__ import annotations

from django.contrib.auth.models import User
from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request


def request_user(request: Request) -> User:
    """``request.user`` for a view that requires authentication (its permission class has
    already refused anonymous requests). Raises ``NotAuthenticated`` (401
    ``not_authenticated``) for an anonymous one all the same, so a view that forgot the
    permission fails closed."""
    user = request.user
    if not isinstance(user, User):
        raise NotAuthenticated()
    return user
