"""Account reads (HackSoft style: selectors read, services write)."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from knox.models import AuthToken


def token_list(*, user: Any) -> QuerySet[AuthToken]:
    """``user``'s live API tokens, newest first (expired ones are left out). Each has
    ``token_key`` (the key's first characters, its name), ``created`` and ``expiry``."""
    from django.utils import timezone

    # knox publishes no types: its manager is Any to mypy, the query set is typed here.
    live: QuerySet[AuthToken] = AuthToken.objects.filter(user=user).exclude(
        expiry__lt=timezone.now()
    )
    return live.order_by("-created", "-digest")
