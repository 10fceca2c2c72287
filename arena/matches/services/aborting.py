"""Ending matches that will not be played out: aborting (``match_abort``, ``matches_abort``) and
cancelling (``match_cancel``, ``match_cancel_by``). Each is one conditional UPDATE per match,
whose row count is the lock: a worker still playing the match finds its lease gone within a
second (``arena.matches.keeper``), kills its engines and records nothing."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from arena.matches import errors
from arena.matches.events import MatchEnded, publish_match_ended
from arena.matches.leases import Claim, pending_or_expired
from arena.matches.models import Match

if TYPE_CHECKING:
    from django.db.models import QuerySet

log = logging.getLogger(__name__)


def match_abort(match_id: int, error: str, *, claim: Claim | None = None) -> bool:
    """Mark a match ``aborted`` with ``error`` (no games) and publish ``MatchEnded``.

    With ``claim``: only if we still hold its lease. Without: only if it is ``pending`` or
    ``running`` with an expired lease (the requeue job giving up on a match out of attempts).
    Returns True if this call aborted it.
    """
    with transaction.atomic():
        rows = Match.objects.filter(pk=match_id)
        if claim is not None:
            rows = rows.filter(status=Match.Status.RUNNING, lease_token=claim.token)
        else:
            rows = rows.filter(pending_or_expired(timezone.now()))
        if _abort_rows(rows, error) == 0:
            return False
        _publish_ended(match_id)
    return True


def _abort_rows(rows: QuerySet[Match], error: str) -> int:
    """The one abort UPDATE: ``rows`` become ``aborted`` with ``error`` (at most 10000
    characters), lease released, finished now. Returns the row count (the lock)."""
    return rows.update(
        status=Match.Status.ABORTED,
        lease_token="",
        lease_expires_at=None,
        finished_at=timezone.now(),
        error=error[:10000],
    )


def _publish_ended(match_id: int) -> None:
    status, variant, tournament_id, rated, priority = Match.objects.values_list(
        "status", "variant", "tournament_id", "rated", "priority"
    ).get(pk=match_id)
    publish_match_ended(
        MatchEnded(
            match_id=match_id,
            status=status,
            variant=variant,
            tournament_id=tournament_id,
            rated=rated,
            priority=priority,
        )
    )


def match_cancel_by(user: User, match_id: int, *, reason: str = "") -> None:
    """``match_cancel`` on behalf of ``user``: the match's challenger, or staff (the API's
    ``POST /api/matches/{id}/cancel/`` and the web's match page). ``reason`` "" becomes
    "by <username>".

    Raises ``NotFoundError`` (404 ``not_found``) for no such match, DRF's
    ``PermissionDenied`` (403 ``permission_denied``) for anyone else, ``MatchNotCancellable``
    (409 ``match_not_cancellable``) once it is over.
    """
    from rest_framework.exceptions import PermissionDenied

    from arena.api.errors import NotFoundError

    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        raise NotFoundError(f"no match {match_id}", details={"match": match_id})
    if not (user.is_staff or match.challenger_id == user.pk):
        raise PermissionDenied("Only the match's challenger or staff may cancel it.")
    if not match_cancel(match.pk, reason=reason or f"by {user.get_username()}"):
        match.refresh_from_db(fields=["status"])
        raise errors.MatchNotCancellable(
            f"match {match.pk} is {match.status}: only a pending or running match can be "
            "cancelled.",
            details={"status": match.status},
        )


def match_cancel(match_id: int, *, reason: str) -> bool:
    """Stop a pending or running match for good: it becomes ``aborted`` with the error
    ``"cancelled: <reason>"``, no games and nothing rated (``matches_abort``), and the
    match-ended hook is published (its tournament advances).

    A worker playing it finds its lease gone within a second (``arena.matches.keeper``),
    kills the engines and records nothing. Permission is the caller's (the view lets the
    challenger and staff). Returns False if the match is already over (or missing).
    """
    with transaction.atomic():
        if not matches_abort(match_ids=[match_id], error=f"cancelled: {reason}"):
            return False
        _publish_ended(match_id)
    log.info("match %s cancelled: %s", match_id, reason)
    return True


def matches_abort(
    *,
    error: str,
    tournament_id: int | None = None,
    match_ids: Sequence[int] | None = None,
    pending_only: bool = False,
) -> list[int]:
    """Abort the unfinished matches of a tournament (``tournament_id``) or the given
    ``match_ids``: each still ``pending`` (or ``running``, unless ``pending_only``) becomes
    ``aborted`` with ``error``, its lease released, no games. Returns the ids this call aborted
    (one conditional UPDATE per match, so a match claimed meanwhile is left to its worker when
    ``pending_only``).

    A worker still playing an aborted match finds its lease gone within a second
    (``arena.matches.keeper``), kills its engines and records nothing; a queued message finds
    nothing to claim. No
    hook is called: the caller (cancelling a tournament, forfeiting a withdrawn engine's
    pairings) updates its own state in the same transaction.
    """
    statuses = (
        [Match.Status.PENDING] if pending_only else [Match.Status.PENDING, Match.Status.RUNNING]
    )
    rows = Match.objects.filter(status__in=statuses)
    if tournament_id is not None:
        rows = rows.filter(tournament_id=tournament_id)
    if match_ids is not None:
        rows = rows.filter(pk__in=list(match_ids))
    aborted = []
    for match_id in rows.order_by("id").values_list("id", flat=True):
        if _abort_rows(Match.objects.filter(pk=match_id, status__in=statuses), error):
            aborted.append(match_id)
    return aborted
