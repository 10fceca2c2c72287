"""Leases on matches: who may play a match right now, decided by conditional UPDATEs.

A worker owns a match while ``status = running`` and ``lease_token`` is its token. Every
transition is one ``UPDATE ... WHERE`` whose row count is the lock (no SELECT-then-write race,
the same on SQLite and PostgreSQL):

* claim: ``pending`` -> ``running``, or ``running`` with an expired lease -> ``running`` with a new
  token (the previous worker died), while ``attempts < max_attempts``;
* renew: extends ``lease_expires_at`` if the token is still ours;
* release: ``running`` (our token) -> ``pending`` after an infrastructure fault, for a retry.

Finishing a match (our token -> ``finished``/``aborted``) is ``services.match_record_result``.
"""

from __future__ import annotations

import logging
import secrets
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import close_old_connections, connection
from django.db.models import F, Q
from django.db.models.functions import Coalesce
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
    in seconds."""

    match_id: int
    token: str
    attempts: int
    lease: int


def pending_or_expired(now: datetime) -> Q:
    """Matches nobody plays: ``pending``, or ``running`` with a lease that expired before
    ``now`` (its worker died or hung)."""
    expired = Q(status=Match.Status.RUNNING, lease_expires_at__lt=now)
    return Q(status=Match.Status.PENDING) | expired


def claimable() -> Q:
    """Matches a worker may claim now: nobody plays them and they are under the attempt bound."""
    return pending_or_expired(timezone.now()) & Q(attempts__lt=max_attempts())


def match_claim(match_id: int, *, lease_seconds: int) -> Claim | None:
    """Claim ``match_id`` for ``lease_seconds``; None if it is finished, aborted, leased by a live
    worker, out of attempts, or does not exist (the caller then does nothing)."""
    now = timezone.now()
    token = secrets.token_hex(16)
    updated = (
        Match.objects.filter(claimable(), pk=match_id)
        .update(
            status=Match.Status.RUNNING,
            lease_token=token,
            lease_expires_at=now + timedelta(seconds=lease_seconds),
            attempts=F("attempts") + 1,
            started_at=Coalesce(F("started_at"), now),
        )
    )
    if updated == 0:
        return None
    attempts = Match.objects.filter(pk=match_id).values_list("attempts", flat=True).first() or 0
    return Claim(match_id=match_id, token=token, attempts=attempts, lease=lease_seconds)


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


def match_release(claim: Claim, error: str) -> bool:
    """Give the match back (``pending``, no lease) after an infrastructure fault, keeping the
    error text and the attempt count; False if the lease was already lost."""
    return (
        Match.objects.filter(
            pk=claim.match_id, status=Match.Status.RUNNING, lease_token=claim.token
        ).update(
            status=Match.Status.PENDING,
            lease_token="",
            lease_expires_at=None,
            queued_at=None,
            error=error,
        )
        == 1
    )


class LeaseHeartbeat:
    """Renews a claim every ``lease / 3`` seconds from a daemon thread while a match plays,
    and on every game start/end event of the referee (``on_event``).

    The thread keeps a lease alive through long single moves (a clock can grow with
    increments). It uses its own database connection and closes it when stopped. ``lost`` is
    set once a renewal finds the token gone: the result will then not be recorded by us.
    """

    def __init__(self, claim: Claim, *, interval: float | None = None) -> None:
        self.claim = claim
        self.interval = interval if interval is not None else max(1.0, claim.lease / 3)
        self.lost = False
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name=f"lease-match-{claim.match_id}", daemon=True
        )

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def renew(self) -> None:
        if not match_renew_lease(self.claim):
            if not self.lost:
                log.warning("match %s: lease lost (another worker holds it)", self.claim.match_id)
            self.lost = True

    def on_event(self, event: dict[str, Any]) -> None:
        """Referee progress callback: renew on game boundaries (cheap, same thread)."""
        if event.get("event") in ("game_start", "game_end"):
            self.renew()

    def _run(self) -> None:
        try:
            while not self._stop.wait(self.interval):
                try:
                    self.renew()
                except Exception:  # a database hiccup must not kill the heartbeat
                    log.exception("match %s: lease renewal failed", self.claim.match_id)
                    close_old_connections()
        finally:
            connection.close()
