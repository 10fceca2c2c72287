"""Queueing matches: the per-user cap (``queue_admit``), the ``run_match`` wake-ups that tell
free slots work is waiting (``matches_enqueue_ids``, the chain of ``match_wake_next``), and a
shutting-down worker handing its matches back (``matches_hand_back``).

Tasks are sent by name through the project's Celery app (``arena.celery``), imported where a
task is sent: the tasks module imports the services, never the reverse.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from django.contrib.auth.models import User
from django.utils import timezone

from arena.matches import errors
from arena.matches.leases import claimable, max_attempts, pending_or_expired, release_rows
from arena.matches.models import Match
from arena.matches.selectors import live_slots

log = logging.getLogger(__name__)

#: The task that plays a match (``arena.matches.tasks.run_match``), sent by name.
RUN_MATCH_TASK = "arena.matches.tasks.run_match"


def queued_count(user: User) -> int:
    """Matches of ``user`` waiting for a slot (pending, as submitter)."""
    return Match.objects.filter(submitter=user, status=Match.Status.PENDING).count()


def queue_admit(user: User | None, adding: int) -> None:
    """Refuse a creation that would put more than ``settings.BAO_QUEUE_MAX_PER_USER`` matches
    of ``user`` in the queue: ``QueueFull`` (409 ``queue_full``, details ``queued``, ``adding``,
    ``limit``). Staff and the system (None) are exempt; the fair share, not this cap, keeps one
    user from holding every slot."""
    from django.conf import settings

    if user is None or getattr(user, "is_staff", False):
        return
    limit = int(settings.BAO_QUEUE_MAX_PER_USER)
    queued = queued_count(user)
    if queued + adding > limit:
        raise errors.QueueFull(
            f"you have {queued} matches queued; {adding} more would exceed the limit of {limit}."
            " Wait for some to be played.",
            details={"queued": queued, "adding": adding, "limit": limit},
        )


def match_enqueue(match_id: int, *, countdown: float | None = None) -> bool:
    """Queue one match nobody plays (pending, or running with an expired lease): a
    ``run_match`` wake-up whose hint is this match, and ``queued_at`` noted. Returns False if
    the broker refused (the requeue job sends it later) or the match is played, done or out of
    attempts. Safe to call twice: a message that finds nothing to claim does nothing.
    """
    return len(matches_enqueue_ids([match_id], countdown=countdown)) == 1


def matches_enqueue(match_ids: Sequence[int], *, countdown: float | None = None) -> int:
    """``matches_enqueue_ids`` for callers that need only how many were queued."""
    return len(matches_enqueue_ids(match_ids, countdown=countdown))


def wake_ups_for(queued: int) -> int:
    """How many ``run_match`` wake-ups a batch of ``queued`` matches sends: one per worker slot
    (the live workers' announced slots, ``selectors.live_slots``; before any worker announced
    itself, ``settings.BAO_WORKER_SLOTS``), at most one per match. More slots than that are
    woken by the chain (``match_wake_next``). Tasks run in-process (``task_always_eager``:
    no worker, no chain): one per match."""
    from django.conf import settings

    from arena.celery import registered_task

    if queued <= 1:
        return queued
    if registered_task(RUN_MATCH_TASK).app.conf.task_always_eager:
        return queued
    slots = live_slots() or int(settings.BAO_WORKER_SLOTS)
    return min(queued, max(1, slots))


def matches_enqueue_ids(match_ids: Sequence[int], *, countdown: float | None = None) -> list[int]:
    """Queue many matches in one pass: one query reads the ones nobody plays among
    ``match_ids`` (as ``match_enqueue``), ``wake_ups_for`` of them ``run_match`` wake-ups are
    sent, and one UPDATE notes ``queued_at`` of all of them. Returns their ids (ascending);
    [] if the broker refused the first wake-up (they stay unqueued for the requeue job).

    The rows of ``Match`` are the queue and a message only says "a slot may be free, work is
    waiting": a slot claims the dispatcher's pick (``arena.matches.dispatch``), not the
    message's match, and wakes the next slot when it claims (``match_wake_next``), so a batch
    of 2,016 matches sends a message per worker slot, not per match. A single match's wake-up
    carries its id as the hint (a worker's redelivered message waits for that match's expiring
    lease, ``runner.claim_next``); a batch's carry none. A broker that refuses a later wake-up
    stops the pass: the ones sent already wake the slots, which chain to the rest.
    """
    ids = list(
        Match.objects.filter(
            pending_or_expired(timezone.now()), attempts__lt=max_attempts(), pk__in=match_ids
        )
        .order_by("id")
        .values_list("id", flat=True)
    )
    if not ids:
        return []
    if not send_wake_ups(len(ids), hint=ids[0] if len(ids) == 1 else None,
                          countdown=countdown):  # fmt: skip
        return []
    Match.objects.filter(pk__in=ids).update(queued_at=timezone.now())
    return ids


def send_wake_ups(queued: int, *, hint: int | None, countdown: float | None = None) -> int:
    """Send ``wake_ups_for(queued)`` ``run_match`` wake-ups carrying ``hint``; returns how many
    went out (a broker that refuses one stops the pass, logged)."""
    # Imported here: importing the Celery app resolves the broker (and may start the embedded
    # one), which a web or management process that never queues a match must not pay for.
    from arena.celery import registered_task

    run_match = registered_task(RUN_MATCH_TASK)
    sent = 0
    for _ in range(wake_ups_for(queued)):
        try:
            run_match.apply_async(
                args=[hint],  # type: ignore[arg-type]  # any sequence; celery-types: tuple
                countdown=countdown,  # type: ignore[arg-type]  # None means now; stubs: float
            )
        except Exception:  # broker down: the caller leaves the rest to the requeue job
            log.exception("could not queue run_match (%s matches waiting)", queued)
            break
        sent += 1
    return sent


def match_wake_next() -> bool | None:
    """The chain of wake-ups: a slot that has just claimed a match sends one ``run_match``
    wake-up (no hint) if any match is still claimable, so a free slot (of any worker) takes the
    next one; the last claim of a drained queue sends none. So every claimable match has a
    wake-up waiting for it while any remains, however few messages queued it
    (``matches_enqueue_ids``). Returns True if one was sent, False if nothing is claimable (or
    under ``task_always_eager``, where every match of a batch has its own in-process run), None
    if the broker or the database failed: logged, never raised (the runner tries again once
    its match is played; the requeue job re-wakes a queue whose messages were lost).
    """
    from arena.celery import registered_task

    try:
        run_match = registered_task(RUN_MATCH_TASK)
        if run_match.app.conf.task_always_eager:
            return False
        if not Match.objects.filter(claimable(timezone.now())).exists():
            return False
        run_match.apply_async(args=[None])  # type: ignore[arg-type]  # celery-types: tuple
    except Exception:
        log.exception("could not send the next wake-up")
        return None
    return True


def matches_hand_back(worker: str) -> list[int]:
    """A worker shutting down gives back the matches it plays: ``pending`` again at once, the
    claim not counted as an attempt, and a ``run_match`` message each so another worker takes
    them. Its own slots see the lease gone and stop within a second. Returns the match ids."""
    rows = Match.objects.filter(status=Match.Status.RUNNING, worker=worker)
    ids = list(rows.values_list("pk", flat=True))
    if not ids:
        return []
    handed = release_rows(
        rows.filter(pk__in=ids), f"handed back by {worker} (shutting down)", count_attempt=False
    )
    log.warning("worker %s shutting down: %s matches handed back %s", worker, handed, ids)
    for match_id in ids:
        match_enqueue(match_id)
    return ids
