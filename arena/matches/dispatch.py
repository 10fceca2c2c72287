"""The dispatcher: which match a free worker slot plays next (one place decides for every match).

The pending rows of ``Match`` are the queue; a Celery ``run_match`` message only says "a slot
may be free" (its match id is a hint, see ``arena.matches.runner``). A slot claims, among the
claimable matches (``leases.claimable``: pending or with an expired lease, under the attempt
bound, past ``available_at``):

1. the lowest ``priority`` class present (challenges and tournament rounds, then version tests,
   then automatic rated play). No preemption: a running match is never stopped for a higher
   class, and a lower class never starts while a higher one waits;
2. in that class, the ``submitter`` who used the least worker time in the last
   ``settings.BAO_FAIR_SHARE_WINDOW_SECONDS`` (running matches count up to now; ties go to the
   user whose oldest match waits longest; matches without submitter share one account);
3. that user's oldest match.

The choice is advisory; the claim itself is one conditional UPDATE (``leases.match_claim``), so
two slots never take the same match: the loser of a race chooses again.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Min, Q
from django.utils import timezone

from arena.matches.leases import Claim, claimable, match_claim
from arena.matches.limits import match_limits
from arena.matches.models import Match

#: Choices re-made after a lost race before a slot gives up for this message.
CLAIM_RACES = 8

UserId = int | None


def fair_share_window() -> timedelta:
    """The window over which worker time counts toward a user's share."""
    return timedelta(seconds=int(settings.BAO_FAIR_SHARE_WINDOW_SECONDS))


def usage_seconds(users: set[UserId], now: datetime) -> dict[UserId, float]:
    """Worker seconds each submitter's matches used within the fair-share window before
    ``now``: the overlap of [started_at, finished_at or now] with the window, over running and
    ended matches (a match handed back and waiting counts nothing more)."""
    if not users:
        return {}
    since = now - fair_share_window()
    who = Q(submitter_id__in=[u for u in users if u is not None])
    if None in users:
        who |= Q(submitter__isnull=True)
    rows = Match.objects.filter(
        who,
        Q(status=Match.Status.RUNNING) | Q(finished_at__gt=since),
        started_at__isnull=False,
    ).values_list("submitter_id", "started_at", "finished_at", "status")
    used: dict[UserId, float] = defaultdict(float)
    for user, started, finished, status in rows:
        if started is None:  # excluded by the query; for the type checker
            continue
        end = now if status == Match.Status.RUNNING or finished is None else finished
        start = max(started, since)
        if end > start:
            used[user] += (end - start).total_seconds()
    return {u: used.get(u, 0.0) for u in users}


def next_match_id(now: datetime | None = None) -> int | None:
    """The match the order above picks now, or None when nothing is claimable."""
    now = now or timezone.now()
    queue = Match.objects.filter(claimable(now))
    top = queue.aggregate(top=Min("priority"))["top"]
    if top is None:
        return None
    in_class = queue.filter(priority=top)
    oldest = {
        row["submitter_id"]: row["oldest"]
        for row in in_class.values("submitter_id").annotate(oldest=Min("created_at"))
    }
    if not oldest:
        return None
    used = usage_seconds(set(oldest), now)
    user = min(oldest, key=lambda u: (used[u], oldest[u]))
    mine = (
        in_class.filter(submitter__isnull=True)
        if user is None
        else in_class.filter(submitter_id=user)
    )
    return mine.order_by("created_at", "id").values_list("pk", flat=True).first()


def match_claim_next(*, worker: str = "", now: datetime | None = None) -> Claim | None:
    """Claim the match the dispatcher picks for a free slot of ``worker`` (a Celery node
    name, stored on the match); None when nothing is claimable. Raises the database's errors
    (the caller retries transient ones)."""
    for _ in range(CLAIM_RACES):
        match_id = next_match_id(now)
        if match_id is None:
            return None
        row = Match.objects.filter(pk=match_id).values("variant", "time_control").first()
        if row is None:
            continue
        lease = match_limits(row["variant"], row["time_control"]).lease
        claim = match_claim(match_id, lease_seconds=lease, worker=worker)
        if claim is not None:
            return claim
    return None


@dataclass(frozen=True)
class QueueEntry:
    """A pending match and its place in the dispatch order (1 = next)."""

    match_id: int
    position: int
    priority: int
    submitter_id: int | None


def queue_order(now: datetime | None = None) -> list[QueueEntry]:
    """The claimable matches in the order slots would take them if none finished meanwhile:
    by class, then fair share taken in turns (each user's k-th match after every user's
    (k-1)-th, users with less recent worker time first), then age. An estimate: worker time
    used changes the turns as matches run."""
    now = now or timezone.now()
    rows = list(
        Match.objects.filter(claimable(now))
        .order_by("created_at", "id")
        .values_list("pk", "priority", "submitter_id", "created_at")
    )
    used = usage_seconds({r[2] for r in rows}, now)
    turn: dict[tuple[int, UserId], int] = defaultdict(int)
    keyed = []
    for pk, priority, user, created in rows:
        k = turn[(priority, user)]
        turn[(priority, user)] += 1
        keyed.append(((priority, k, used[user], created, pk), pk, priority, user))
    keyed.sort(key=lambda item: item[0])
    return [
        QueueEntry(match_id=pk, position=i, priority=priority, submitter_id=user)
        for i, (_, pk, priority, user) in enumerate(keyed, start=1)
    ]
