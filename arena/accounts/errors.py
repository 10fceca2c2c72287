"""Errors of the accounts app (stable codes; the envelope is ``arena.api.errors``)."""

from __future__ import annotations

from rest_framework import status

from arena.api.errors import ApiError


class UsernameTaken(ApiError):
    default_code = "username_taken"
    default_detail = "This username is already taken."


class UsernameConfusable(ApiError):
    """The name looks like an existing one (``arena.accounts.usernames.skeleton``);
    ``details.username`` (as given), ``details.similar_to`` (the existing name)."""

    default_code = "username_confusable"
    default_detail = "This username looks like an existing one."


class InvalidCredentials(ApiError):
    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "invalid_credentials"
    default_detail = "Unable to log in with the given username and password."
