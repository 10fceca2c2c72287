"""Leases on matches: who may play a match right now, decided by conditional UPDATEs.

A worker owns a match while ``status = running`` and ``lease_token`` is its token. Every
transition is one ``UPDATE ... WHERE`` whose row count is the lock (no SELECT-then-write race,
the same on SQLite and PostgreSQL):

* claim: ``pending`` -> ``running``, or ``running`` with an expired lease -> ``running`` with a new
  token (the previous worker died), while ``attempts < max_attempts``;
* renew: extends ``lease_expires_at`` if the token is still ours;
* release: ``running`` (our token) -> ``pending`` after an infrastructure fault, for a retry,
  or handed back (a worker shutting down): then the claim does not count as an attempt.

Finishing a match (our token -> ``finished``/``aborted``) is ``services.match_record_result``.
Which match a slot claims is ``arena.matches.dispatch``; keeping the lease while the match
plays is ``arena.matches.keeper`` (``match_renew_leases`` and ``match_leases_held``: one
query each for all the matches of a worker process).
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import F, Q, QuerySet
from django.db.models.functions import Coalesce, Greatest
from django.utils import timezone

from arena.matches.models import Match

log = logging.getLogger(__name__)

#: Claims of one match before an infrastructure fault or a lost worker aborts it for good.
DEFAULT_MAX_ATTEMPTS = 3


def max_attempts() -> int:
    """``settings.BAO_MATCH_MAX_ATTEMPTS`` if set, else 3."""
    return int(getattr(settings, "BAO_MATCH_MAX_ATTEMPTS", DEFAULT_MAX_ATTEMPTS))


@dataclass(frozen=True)
class Claim:
    """A won claim: ``token`` identifies this run; ``attempts`` counts this claim; ``lease``
    in seconds; ``worker`` the Celery node that holds it ("" outside a worker)."""

    match_id: int
    token: str
    attempts: int
    lease: int
    worker: str = ""


def pending_or_expired(now: datetime) -> Q:
    """Matches nobody plays: ``pending``, or ``running`` with a lease that expired before
    ``now`` (its worker died or hung)."""
    expired = Q(status=Match.Status.RUNNING, lease_expires_at__lt=now)
    return Q(status=Match.Status.PENDING) | expired


def claimable(now: datetime | None = None) -> Q:
    """Matches a worker may claim now: nobody plays them, they are under the attempt bound and
    not held back for a retry (``available_at`` in the future)."""
    now = now or timezone.now()
    ready = Q(available_at__isnull=True) | Q(available_at__lte=now)
    return pending_or_expired(now) & Q(attempts__lt=max_attempts()) & ready


def match_claim(match_id: int, *, lease_seconds: int, worker: str = "") -> Claim | None:
    """Claim ``match_id`` for ``lease_seconds`` on ``worker`` (a Celery node name, for the queue
    view and hand-backs); None if it is finished, aborted, leased by a live worker, out of
    attempts, held back, or does not exist (the caller then does nothing)."""
    now = timezone.now()
    token = secrets.token_hex(16)
    updated = Match.objects.filter(claimable(now), pk=match_id).update(
        status=Match.Status.RUNNING,
        lease_token=token,
        lease_expires_at=now + timedelta(seconds=lease_seconds),
        attempts=F("attempts") + 1,
        started_at=Coalesce(F("started_at"), now),
        available_at=None,
        worker=worker[:200],
    )
    if updated == 0:
        return None
    attempts = Match.objects.filter(pk=match_id).values_list("attempts", flat=True).first() or 0
    return Claim(
        match_id=match_id, token=token, attempts=attempts, lease=lease_seconds, worker=worker
    )


def match_renew_lease(claim: Claim) -> bool:
    """Extend the lease by ``claim.lease`` seconds from now; False if the lease was lost (another
    worker reclaimed the match after it expired, or it was aborted)."""
    expires = timezone.now() + timedelta(seconds=claim.lease)
    return (
        Match.objects.filter(
            pk=claim.match_id, status=Match.Status.RUNNING, lease_token=claim.token
        ).update(lease_expires_at=expires)
        == 1
    )


def match_renew_leases(claims: list[Claim]) -> int:
    """Extend the leases of every claim still held by its ``lease`` from now, one UPDATE per
    distinct lease length (one for a worker whose matches share a time control); returns the
    number of queries. Which claims still hold is ``match_leases_held``'s to say."""
    by_lease: dict[int, Q] = {}
    for claim in claims:
        mine = Q(pk=claim.match_id, lease_token=claim.token)
        by_lease[claim.lease] = by_lease[claim.lease] | mine if claim.lease in by_lease else mine
    now = timezone.now()
    for lease, mine in by_lease.items():
        Match.objects.filter(mine, status=Match.Status.RUNNING).update(
            lease_expires_at=now + timedelta(seconds=lease)
        )
    return len(by_lease)


def match_leases_held(match_ids: list[int]) -> dict[int, tuple[str, str]]:
    """``(status, lease_token)`` of each match of ``match_ids`` that exists (one query)."""
    rows = Match.objects.filter(pk__in=match_ids).values_list("pk", "status", "lease_token")
    return {pk: (status, token) for pk, status, token in rows}


def match_release(
    claim: Claim, error: str, *, count_attempt: bool = True, delay_s: float = 0
) -> bool:
    """Give the match back (``pending``, no lease) after an infrastructure fault, keeping the
    error text; claimable again ``delay_s`` seconds from now. ``count_attempt`` False takes
    this claim off the attempt count (a hand-back or a dependency outage is not the match's
    doing). False if the lease was already lost."""
    available = timezone.now() + timedelta(seconds=delay_s) if delay_s > 0 else None
    return (
        release_rows(
            Match.objects.filter(
                pk=claim.match_id, status=Match.Status.RUNNING, lease_token=claim.token
            ),
            error,
            count_attempt=count_attempt,
            available_at=available,
        )
        == 1
    )


def release_rows(
    rows: QuerySet[Match],
    error: str,
    *,
    count_attempt: bool,
    available_at: datetime | None = None,
) -> int:
    """Put the running ``rows`` back to ``pending`` with ``error`` (one UPDATE; see
    ``match_release``); returns how many."""
    attempts = F("attempts") if count_attempt else Greatest(F("attempts") - 1, 0)
    return rows.update(
        status=Match.Status.PENDING,
        lease_token="",
        lease_expires_at=None,
        queued_at=None,
        available_at=available_at,
        attempts=attempts,
        error=error,
    )


def match_lease_held(claim: Claim) -> bool | None:
    """Whether ``claim`` still holds its match (one read by primary key): True, False (another
    token or no longer running: cancelled, handed back, taken over), or None when the row is
    not found (deleted, or not visible to this connection): nothing to stop for then, the
    record will find out."""
    row = Match.objects.filter(pk=claim.match_id).values_list("status", "lease_token").first()
    if row is None:
        return None
    return row == (Match.Status.RUNNING, claim.token)
