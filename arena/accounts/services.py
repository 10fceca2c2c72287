"""Account writes: registration and API tokens (HackSoft style: services write)."""

from __future__ import annotations

from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import ValidationError

from arena.accounts.errors import InvalidCredentials, UsernameTaken


def user_register(
    *, username: str, password: str, email: str = ""
) -> tuple[AbstractBaseUser, str]:
    """Create a user and its API token; returns ``(user, token key)``.

    Raises ``UsernameTaken`` (``username_taken``) if the name exists (case-insensitively, so
    ``Alice`` and ``alice`` cannot both own engines), ``ValidationError`` (``invalid``, details
    under ``password``) if the password fails ``AUTH_PASSWORD_VALIDATORS``.
    """
    User = get_user_model()
    if User.objects.filter(username__iexact=username).exists():
        raise UsernameTaken(details={"username": username})
    candidate = User(username=username, email=email)
    try:
        validate_password(password, user=candidate)
    except DjangoValidationError as exc:
        raise ValidationError({"password": list(exc.messages)}) from None
    try:
        with transaction.atomic():
            user = User.objects.create_user(
                username=username, password=password, email=email
            )
            token = Token.objects.create(user=user)
    except IntegrityError:  # a concurrent registration of the same name won the race
        raise UsernameTaken(details={"username": username}) from None
    return user, token.key


def token_obtain(*, username: str, password: str) -> str:
    """The API token key of the user with these credentials (created on first use).

    Raises ``InvalidCredentials`` (``invalid_credentials``) for a wrong pair or an inactive user.
    """
    user = authenticate(username=username, password=password)
    if user is None:
        raise InvalidCredentials()
    token, _ = Token.objects.get_or_create(user=user)
    return str(token.key)
