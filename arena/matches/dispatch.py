"""The dispatcher: which match a free worker slot plays next (one place decides for every match).

The pending rows of ``Match`` are the queue; a Celery ``run_match`` message only says "a slot
may be free" (its match id is a hint, see ``arena.matches.runner``). A slot claims, among the
claimable matches (``leases.claimable``: pending or with an expired lease, under the attempt
bound, past ``available_at``):

0. from a user within their **share of the running slots** (``fair_share``:
   ``ceil(slots / users with work)``, users with a running or claimable match, the system's
   matches without submitter one account; slots as the live workers announce them,
   ``selectors.live_slots``, else ``settings.BAO_WORKER_SLOTS``). A user whose running matches
   reached their share gets no new slot while a user under it waits; when every waiting user
   is at their share, they all may claim (no slot idles while work waits). No preemption:
   running matches are never stopped;
1. the lowest ``priority`` class present among them (challenges and tournament rounds, then
   version tests, then automatic rated play); a lower class never starts while a higher one
   waits, except past a user's share as above;
2. in that class, the ``submitter`` who used the least worker time in the last
   ``settings.BAO_FAIR_SHARE_WINDOW_SECONDS`` (running matches count up to now; ties go to the
   user whose oldest match waits longest);
3. that user's oldest match.

The pick reads four aggregates, none of them rows of the window (``pick``): the claimable
matches grouped by class and user (the partial index over pending and running rows), the
running matches per user with their worker time so far (the running totals), each waiting
user's ended worker time from the rollup the database triggers keep as matches end
(``arena.matches.usage``: one row per user), and the announced slots.

The claim (``match_claim_next``) takes the picked user's oldest match that no other slot is
claiming: ``SELECT ... FOR UPDATE SKIP LOCKED`` in the order above, then the conditional
UPDATE of ``leases.match_claim`` in the same transaction, so concurrent slots take different
rows instead of racing for one, and two slots never take the same match. SQLite has no row
locks (``select_for_update`` does nothing there) but serialises writers: a lost race there
re-picks, and a slot gives up only when nothing is claimable.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Min, Q, Sum
from django.utils import timezone

from arena.matches.leases import Claim, claimable, match_claim
from arena.matches.limits import match_limits
from arena.matches.models import Match, WorkerNode
from arena.matches.usage import fair_share_window as fair_share_window
from arena.matches.usage import running_totals
from arena.matches.usage import usage_seconds as usage_seconds

UserId = int | None

#: A worker whose presence row is older than this is taken for dead (three missed updates):
#: its slots no longer count (here and in the queue view).
WORKER_STALE_S = 30


class WaitingReason(StrEnum):
    """Why a claimable match waits (the queue view's ``waiting_reason``)."""

    #: Every slot is busy; it is the next match a freed slot takes.
    NEXT = "next"
    #: Its user's running matches reached their share of the slots while another user waits.
    OVER_SHARE = "over_share"
    #: A match of a higher class (challenges first, then version tests) waits.
    HIGHER_CLASS = "higher_class"
    #: Matches of users with less recent worker time, or older ones, go first.
    FAIR_SHARE = "fair_share"


def running_counts() -> dict[UserId, int]:
    """Running matches per submitter (None: the system), from the index over running matches
    only (``match_running_submitter_idx``): the running totals the share bounds."""
    return {user: r.count for user, r in running_totals(timezone.now()).items()}


def total_slots(now: datetime) -> int:
    """Match slots of the live workers (announced in the last ``WORKER_STALE_S`` seconds),
    else ``settings.BAO_WORKER_SLOTS`` (no worker announced itself yet)."""
    live = WorkerNode.objects.filter(last_seen__gte=now - timedelta(seconds=WORKER_STALE_S))
    return int(live.aggregate(total=Sum("slots"))["total"] or 0) or int(settings.BAO_WORKER_SLOTS)


def fair_share(slots: int, users_with_work: int) -> int:
    """A user's share of the running slots: ``ceil(slots / users_with_work)``, at least 1."""
    return max(1, math.ceil(slots / max(1, users_with_work)))


@dataclass(frozen=True)
class Candidate:
    """A (class, user) with claimable matches, in pick order: ``capped`` when the user is at
    their share while a user under it waits."""

    priority: int
    submitter_id: UserId
    capped: bool
    used_s: float
    oldest: datetime

    @property
    def key(self) -> tuple[bool, int, float, datetime]:
        return (self.capped, self.priority, self.used_s, self.oldest)


@dataclass(frozen=True)
class Pick:
    """The dispatcher's view at one moment: the candidates in order, the share, the totals."""

    candidates: list[Candidate]
    share: int
    slots: int
    running: dict[UserId, int]


def pick(now: datetime | None = None) -> Pick:
    """The candidates (class, user) in the order of the module docstring; empty when nothing
    is claimable. Four aggregate queries whatever the window or the queue hold."""
    now = now or timezone.now()
    waiting = list(
        Match.objects.filter(claimable(now))
        .values("priority", "submitter_id")
        .annotate(oldest=Min("created_at"))
        .order_by()
    )
    if not waiting:
        return Pick(candidates=[], share=0, slots=0, running={})
    totals = running_totals(now)
    running = {user: r.count for user, r in totals.items()}
    users: set[UserId] = {row["submitter_id"] for row in waiting}
    slots = total_slots(now)
    share = fair_share(slots, len(users | set(running)))
    under = {u for u in users if running.get(u, 0) < share}
    used = usage_seconds(users, now, totals)
    candidates = sorted(
        (
            Candidate(
                priority=row["priority"],
                submitter_id=row["submitter_id"],
                capped=bool(under) and row["submitter_id"] not in under,
                used_s=used[row["submitter_id"]],
                oldest=row["oldest"],
            )
            for row in waiting
        ),
        key=lambda c: c.key,
    )
    return Pick(candidates=candidates, share=share, slots=slots, running=running)


def _in(candidate: Candidate) -> Q:
    who = (
        Q(submitter__isnull=True)
        if candidate.submitter_id is None
        else Q(submitter_id=candidate.submitter_id)
    )
    return who & Q(priority=candidate.priority)


def next_match_id(now: datetime | None = None) -> int | None:
    """The match the order above picks now, or None when nothing is claimable."""
    now = now or timezone.now()
    chosen = pick(now).candidates
    if not chosen:
        return None
    return (
        Match.objects.filter(claimable(now), _in(chosen[0]))
        .order_by("created_at", "id")
        .values_list("pk", flat=True)
        .first()
    )


def _claim_in(candidate: Candidate, now: datetime, worker: str) -> Claim | None:
    """Claim ``candidate``'s oldest match no other slot is claiming (row locks skipped on
    PostgreSQL); None if every one is taken. On PostgreSQL the row stays locked from the
    SELECT to the UPDATE, so its ``attempts`` is the claim's without reading it again."""
    with transaction.atomic():
        row = (
            Match.objects.select_for_update(skip_locked=True, of=("self",))
            .filter(claimable(now), _in(candidate))
            .order_by("created_at", "id")
            .values("pk", "variant", "time_control", "attempts")
            .first()
        )
        if row is None:
            return None
        lease = match_limits(row["variant"], row["time_control"]).lease
        locked = connection.vendor == "postgresql"
        return match_claim(
            row["pk"],
            lease_seconds=lease,
            worker=worker,
            attempts_before=row["attempts"] if locked else None,
        )


def match_claim_next(*, worker: str = "", now: datetime | None = None) -> Claim | None:
    """Claim the match the dispatcher picks for a free slot of ``worker`` (a Celery node
    name, stored on the match); None only when nothing is claimable. A candidate whose
    matches other slots are claiming is passed for the next one; when every candidate was
    taken meanwhile the pick is made again (each round, some slot claimed: the queue shrinks).
    Raises the database's errors (the caller retries transient ones)."""
    while True:
        at = now or timezone.now()
        candidates = pick(at).candidates
        if not candidates:
            return None
        for candidate in candidates:
            claim = _claim_in(candidate, at, worker)
            if claim is not None:
                return claim


@dataclass(frozen=True)
class QueueEntry:
    """A pending match and its place in the dispatch order (1 = next); ``waiting_reason``
    (``WaitingReason``) says why it is not the next."""

    match_id: int
    position: int
    priority: int
    submitter_id: int | None
    waiting_reason: str = WaitingReason.NEXT


def queue_order(now: datetime | None = None) -> list[QueueEntry]:
    """The claimable matches in the order slots would take them if none finished meanwhile:
    users within their share first, then by class, then fair share taken in turns (each
    user's k-th match after every user's (k-1)-th, users with less recent worker time first),
    then age. An estimate: worker time used changes the turns as matches run. Each entry's
    ``waiting_reason``: ``next`` (the first), ``over_share`` (its user is at their share of
    the running slots while another user waits), ``higher_class`` (a higher class comes
    first), ``fair_share`` (users with less recent worker time, or older matches, first)."""
    now = now or timezone.now()
    rows = list(
        Match.objects.filter(claimable(now))
        .order_by("created_at", "id")
        .values_list("pk", "priority", "submitter_id", "created_at")
    )
    if not rows:
        return []
    state = pick(now)
    capped = {c.submitter_id for c in state.candidates if c.capped}
    used = {c.submitter_id: c.used_s for c in state.candidates}
    turn: dict[tuple[int, UserId], int] = defaultdict(int)
    keyed = []
    for pk, priority, user, created in rows:
        k = turn[(priority, user)]
        turn[(priority, user)] += 1
        keyed.append(((user in capped, priority, k, used[user], created, pk), pk, priority, user))
    keyed.sort(key=lambda item: item[0])
    first_class = min((p for _, _, p, u in keyed if u not in capped), default=None)
    entries = []
    for i, (_, pk, priority, user) in enumerate(keyed, start=1):
        if i == 1:
            reason = WaitingReason.NEXT
        elif user in capped:
            reason = WaitingReason.OVER_SHARE
        elif first_class is not None and priority > first_class:
            reason = WaitingReason.HIGHER_CLASS
        else:
            reason = WaitingReason.FAIR_SHARE
        entries.append(
            QueueEntry(
                match_id=pk,
                position=i,
                priority=priority,
                submitter_id=user,
                waiting_reason=str(reason),
            )
        )
    return entries
