"""Recovery of matches nobody is playing (the beat job ``requeue_expired_leases``, every
``settings.BAO_REQUEUE_SCAN_SECONDS``; and the workers themselves when beat is late,
``matches_recover_if_beat_is_late``: beat down, or its ticks dropped in a broker outage).

A match can be left behind in two ways: its worker died or hung (killed, out of memory, machine
lost, referee loop stuck), so it stays ``running`` with a lease that is no longer renewed; or its
``run_match`` message never reached the broker (broker down at commit time) or was lost, so it
stays ``pending``. The job queues them again in one pass (``matches_enqueue_ids``: a wake-up
per worker slot at most, since a message only wakes a slot, which claims by the dispatcher's
order and wakes the next while work remains; extra messages are harmless). A pending match
queued more than ``settings.BAO_LOST_MESSAGE_SECONDS`` ago may just be waiting behind others
(a batch's matches share a few wake-ups): those are queued again at most ``LOST_BATCH`` per
scan, and, once workers have announced their slots, only as many as there are idle slots: while
every slot is busy the chain of wake-ups is alive (each claim wakes the next), and a re-wake
would only add a message that chains on until the queue drains, one more per scan for as long
as a backlog lasts. Slots idle while matches wait is what a lost chain looks like.
A match that has used up its attempts is aborted instead of being tried forever. The same job
re-sends engine validations that never reached a worker (``engines.services``), and kills the
processes left on this host under engine uids whose referee died
(``engines.sandbox.sweep_orphaned_uids``: a stat per uid lock file when there are none).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import F, Q
from django.utils import timezone

from arena.matches.leases import lease_clock_beat, max_attempts, pending_or_expired
from arena.matches.models import LeaseClock, Match
from arena.matches.selectors import live_slots
from arena.matches.services import match_abort, matches_enqueue_ids
from arena.matches.usage import usage_prune
from engines.sandbox import sweep_orphaned_uids
from engines.services import validations_resend_lost

log = logging.getLogger(__name__)

#: A pending match created this long ago and never queued is queued by the job.
UNQUEUED_GRACE_S = 30
#: Most messages re-sent per scan for matches queued long ago (they may be waiting, not lost).
LOST_BATCH = 8


@dataclass
class RequeueReport:
    """Match ids the job queued again and the ones it aborted (out of attempts)."""

    requeued: list[int] = field(default_factory=list)
    aborted: list[int] = field(default_factory=list)
    validations: list[int] = field(default_factory=list)
    #: Engine uids whose leftover processes were killed (``sweep_orphaned_uids``): host state,
    #: not the matches', so left out of comparisons.
    orphans: list[int] = field(default_factory=list, compare=False)


def _lost_message_age() -> timedelta:
    return timedelta(seconds=int(settings.BAO_LOST_MESSAGE_SECONDS))


def stale_matches() -> Q:
    """Matches that surely have no message (module docstring): a ``running`` match whose lease
    expired and that was not queued again since it expired (or long ago); a ``pending`` match
    never queued for ``UNQUEUED_GRACE_S``."""
    now = timezone.now()
    lost = now - _lost_message_age()
    expired_unqueued = Q(status=Match.Status.RUNNING, lease_expires_at__lt=now) & (
        Q(queued_at__isnull=True) | Q(queued_at__lt=F("lease_expires_at")) | Q(queued_at__lt=lost)
    )
    pending_unqueued = Q(
        status=Match.Status.PENDING,
        queued_at__isnull=True,
        created_at__lt=now - timedelta(seconds=UNQUEUED_GRACE_S),
    )
    return expired_unqueued | pending_unqueued


def long_queued() -> Q:
    """Pending matches queued more than ``BAO_LOST_MESSAGE_SECONDS`` ago (lost, or waiting)."""
    return Q(status=Match.Status.PENDING, queued_at__lt=timezone.now() - _lost_message_age())


def _idle_slots(most: int) -> int:
    """How many long-queued matches to wake (module docstring): ``most`` while no worker has
    announced its slots, else the live slots not playing a match with a valid lease, at most
    ``most``."""
    slots = live_slots()
    if slots == 0:
        return most
    now = timezone.now()
    busy = Match.objects.filter(status=Match.Status.RUNNING, lease_expires_at__gte=now).count()
    return max(0, min(most, slots - busy))


def matches_requeue_stale() -> RequeueReport:
    """Abort the matches nobody plays that have used up their attempts, then queue again every
    other stale match (``stale_matches``). Idempotent: a second run finds nothing to do.
    Beats the lease clock and records the scan (``LeaseClock.scanned_at``)."""
    report = RequeueReport()
    lease_clock_beat()
    LeaseClock.objects.filter(pk=1).update(scanned_at=timezone.now())
    limit = max_attempts()
    exhausted = Match.objects.filter(pending_or_expired(timezone.now()), attempts__gte=limit)
    for match_id, attempts in exhausted.values_list("pk", "attempts"):
        error = f"gave up after {attempts} attempts: the worker was lost each time"
        if match_abort(match_id, error):
            report.aborted.append(match_id)
    stale = list(
        Match.objects.filter(stale_matches(), attempts__lt=limit).values_list("pk", flat=True)
    )
    waiting = Match.objects.filter(long_queued(), attempts__lt=limit).order_by("queued_at", "pk")
    stale += list(waiting.values_list("pk", flat=True)[: _idle_slots(LOST_BATCH)])
    report.requeued = matches_enqueue_ids(stale)  # one pass: a wake-up per slot at most
    if report.requeued or report.aborted:
        log.info("requeue: queued %s, aborted %s", report.requeued, report.aborted)
    usage_prune(timezone.now())
    report.validations = validations_resend_lost()
    report.orphans = sweep_orphaned_uids()
    if report.orphans:
        log.warning("requeue: killed processes left under engine uids %s", report.orphans)
    return report


def beat_late_after() -> timedelta:
    """How long without a scan before workers run it themselves: two scan periods."""
    return timedelta(seconds=2 * int(settings.BAO_REQUEUE_SCAN_SECONDS))


def matches_recover_if_beat_is_late(now: datetime | None = None) -> RequeueReport | None:
    """The workers' own recovery (their presence thread calls it every
    ``arena.worker_hooks.PRESENCE_S``): when no scan ran for ``beat_late_after`` (beat down,
    or its ticks lost in a broker outage), the one caller that wins a conditional UPDATE of
    ``LeaseClock.scanned_at`` runs the scan; None when beat is on time or another worker won.
    So a dead worker's match is recovered with beat down, and never by two scanners at once."""
    now = now or timezone.now()
    late = now - beat_late_after()
    if not LeaseClock.objects.filter(pk=1).exists():
        lease_clock_beat(now)
    won = (
        LeaseClock.objects.filter(pk=1)
        .filter(Q(scanned_at__isnull=True) | Q(scanned_at__lt=late))
        .update(scanned_at=now)
    )
    if not won:
        return None
    log.warning(
        "requeue: no scan for %.0f s (is beat down?); this worker runs it",
        beat_late_after().total_seconds(),
    )
    return matches_requeue_stale()
