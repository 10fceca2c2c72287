"""Account writes: registration, API tokens, password changes (HackSoft style: services write).

API tokens are django-rest-knox tokens: the database keeps only a SHA-512 digest of each key
and its first ``PREFIX_LENGTH`` characters (the lookup index, shown to the owner as the token's
name), never the key itself; the key is shown once, when it is minted. Every token expires
``settings.REST_KNOX["TOKEN_TTL"]`` after it was minted (``BAO_TOKEN_TTL_HOURS``, default 30
days); a user holds at most ``MAX_TOKENS_PER_USER`` (minting one more drops the oldest).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.http import HttpRequest
from django.utils import timezone
from knox.models import AuthToken
from knox.settings import CONSTANTS
from rest_framework.exceptions import Throttled, ValidationError

from arena.accounts import login_limits, usernames
from arena.accounts.errors import InvalidCredentials, UsernameConfusable, UsernameTaken
from arena.api.errors import NotFoundError

#: Characters of a key kept in clear (knox's lookup index), shown as the token's name.
PREFIX_LENGTH = CONSTANTS.TOKEN_KEY_LENGTH
#: Live tokens a user may hold; minting past it deletes the oldest.
MAX_TOKENS_PER_USER = 20


def user_register(
    *, username: str, password: str, email: str = ""
) -> tuple[AbstractBaseUser, str, datetime | None]:
    """Create a user and a first API token; returns ``(user, token key, token expiry)``.

    ``username`` is stored NFKC-normalised (``arena.accounts.usernames``). Raises
    ``UsernameTaken`` (``username_taken``) if the name exists (case-insensitively, so ``Alice``
    and ``alice`` cannot both own engines), ``UsernameConfusable`` (``username_confusable``) if
    it looks like an existing one (``\u0430lice`` with a Cyrillic a (U+0430) beside
    ``alice``: the same skeleton), ``ValidationError`` (``invalid``, details under
    ``password``) if the password fails ``AUTH_PASSWORD_VALIDATORS``.
    """
    User = get_user_model()
    username = usernames.normalize(username)
    if User.objects.filter(username__iexact=username).exists():
        raise UsernameTaken(details={"username": username})
    similar = usernames.confusable_with(
        username, User.objects.values_list("username", flat=True).iterator()
    )
    if similar is not None:
        raise UsernameConfusable(
            f"{username!r} looks like the existing username {similar!r}: choose another.",
            details={"username": username, "similar_to": similar},
        )
    _check_password(password, User(username=username, email=email), field="password")
    try:
        with transaction.atomic():
            user = User.objects.create_user(username=username, password=password, email=email)
            key, expiry = token_mint(user=user)
    except IntegrityError:  # a concurrent registration of the same name won the race
        raise UsernameTaken(details={"username": username}) from None
    return user, key, expiry


def token_obtain(
    *, request: HttpRequest, username: str, password: str
) -> tuple[str, datetime | None]:
    """A new API token for the user with these credentials: ``(key, expiry)``. Each call mints
    another token (the earlier ones stay valid until they expire or are revoked).

    Raises ``InvalidCredentials`` (``invalid_credentials``) for a wrong pair or an inactive user,
    ``Throttled`` (429 ``throttled``) when a login limit refused it (``user_authenticate``).
    """
    user = user_authenticate(request=request, username=username, password=password)
    return token_mint(user=user)


def token_mint(*, user: Any) -> tuple[str, datetime | None]:
    """Mint a token for ``user``: ``(key, expiry)``; the key exists nowhere else afterwards.
    Drops the user's expired tokens, and the oldest beyond ``MAX_TOKENS_PER_USER``."""
    with transaction.atomic():
        AuthToken.objects.filter(user=user, expiry__lt=timezone.now()).delete()
        instance, key = AuthToken.objects.create(user=user)
        keep = AuthToken.objects.filter(user=user).order_by("-created", "-digest")
        stale = list(keep.values_list("digest", flat=True)[MAX_TOKENS_PER_USER:])
        if stale:
            AuthToken.objects.filter(digest__in=stale).delete()
    return key, instance.expiry


def token_revoke(*, user: Any, prefix: str) -> None:
    """Revoke ``user``'s token(s) whose key starts with ``prefix`` (the ``prefix`` that
    ``arena.accounts.selectors.token_list`` shows). Raises ``NotFoundError`` (404
    ``not_found``) if ``user`` has none: another user's token is not found either."""
    deleted, _ = AuthToken.objects.filter(user=user, token_key=prefix).delete()
    if not deleted:
        raise NotFoundError("You have no token with this prefix.", details={"prefix": prefix})


def password_change(
    *, user: Any, old_password: str, new_password: str
) -> tuple[str, datetime | None]:
    """Change ``user``'s password and revoke every token they hold (a leaked token dies with
    the old password); returns a new token ``(key, expiry)`` for the caller.

    Raises ``InvalidCredentials`` (``invalid_credentials``) if ``old_password`` is wrong,
    ``ValidationError`` (``invalid``, details under ``new_password``) if the new one fails
    ``AUTH_PASSWORD_VALIDATORS``.
    """
    if not user.check_password(old_password):
        raise InvalidCredentials("The current password is wrong.")
    _check_password(new_password, user, field="new_password")
    with transaction.atomic():
        user.set_password(new_password)
        user.save(update_fields=["password"])
        AuthToken.objects.filter(user=user).delete()
        return token_mint(user=user)


def _check_password(password: str, user: Any, *, field: str) -> None:
    try:
        validate_password(password, user=user)
    except DjangoValidationError as exc:
        raise ValidationError({field: list(exc.messages)}) from None


def user_authenticate(*, request: HttpRequest, username: str, password: str) -> Any:
    """The active user with these credentials (for a browser session: ``arena.web``), asked
    from the client of ``request`` (Django's request: the login limits key on its address).

    Raises ``InvalidCredentials`` (``invalid_credentials``) for a wrong pair or an inactive
    user, as ``token_obtain`` does; ``Throttled`` (429 ``throttled``, with the seconds to wait)
    when a login limit refused the attempt before the password was checked
    (``arena.accounts.login_limits``: per (username, IP), per username, per IP; failures only).
    """
    user = authenticate(request, username=username, password=password)
    if user is None:
        wait = login_limits.refused_for(request)
        if wait is not None:
            raise Throttled(wait=wait, detail=login_limits.message(wait))
        raise InvalidCredentials()
    login_limits.mark_known(request, user.get_username())
    return user
