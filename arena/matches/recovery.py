"""Recovery of matches nobody is playing (the minute beat job ``requeue_expired_leases``).

A match can be left behind in two ways: its worker died (killed, out of memory, machine lost),
so it stays ``running`` with a lease that is no longer renewed; or its ``run_match`` message
never reached the broker (broker down at commit time) or was lost, so it stays ``pending``.
The job sends a new message for each; the claim's conditional UPDATE makes extra messages
harmless. A match that has used up its attempts is aborted instead of being tried forever.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db.models import F, Q
from django.utils import timezone

from arena.matches.leases import max_attempts, pending_or_expired
from arena.matches.models import Match
from arena.matches.services import match_abort, match_enqueue

log = logging.getLogger(__name__)

#: A pending match created this long ago and never queued is queued by the job.
UNQUEUED_GRACE_S = 60


@dataclass
class RequeueReport:
    """Match ids the job queued again and the ones it aborted (out of attempts)."""

    requeued: list[int] = field(default_factory=list)
    aborted: list[int] = field(default_factory=list)


def _lost_message_age() -> timedelta:
    # After the visibility timeout the broker itself would have redelivered an unacked
    # message; a pending match queued longer ago than that lost its message.
    return timedelta(seconds=int(settings.CELERY_BROKER_VISIBILITY_TIMEOUT))


def stale_matches() -> Q:
    """Matches to act on now (module docstring): a ``running`` match whose lease expired and
    that was not queued again since it expired; a ``pending`` match never queued for
    ``UNQUEUED_GRACE_S``; either one queued longer ago than the visibility timeout (that
    message was lost too)."""
    now = timezone.now()
    lost = now - _lost_message_age()
    expired_unqueued = Q(status=Match.Status.RUNNING, lease_expires_at__lt=now) & (
        Q(queued_at__isnull=True) | Q(queued_at__lt=F("lease_expires_at")) | Q(queued_at__lt=lost)
    )
    pending_lost = Q(status=Match.Status.PENDING) & (
        Q(queued_at__isnull=True, created_at__lt=now - timedelta(seconds=UNQUEUED_GRACE_S))
        | Q(queued_at__lt=lost)
    )
    return expired_unqueued | pending_lost


def matches_requeue_stale() -> RequeueReport:
    """Abort the matches nobody plays that have used up their attempts, then queue again every
    other stale match (``stale_matches``). Idempotent: a second run finds nothing to do."""
    report = RequeueReport()
    limit = max_attempts()
    exhausted = Match.objects.filter(pending_or_expired(timezone.now()), attempts__gte=limit)
    for match_id, attempts in exhausted.values_list("pk", "attempts"):
        error = f"gave up after {attempts} attempts: the worker was lost each time"
        if match_abort(match_id, error):
            report.aborted.append(match_id)
    stale = Match.objects.filter(stale_matches(), attempts__lt=limit)
    for match_id in stale.values_list("pk", flat=True):
        if match_enqueue(match_id):
            report.requeued.append(match_id)
    if report.requeued or report.aborted:
        log.info("requeue: queued %s, aborted %s", report.requeued, report.aborted)
    return report
