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
(``arena.matches.usage``: one row per user), and the announced slots. On PostgreSQL they are
one prebuilt statement (``_pick_sql``), read with a plain cursor; SQLite runs the ORM's
(``_pick_orm``).

The claim (``match_claim_next``) takes the picked user's oldest match that no other slot is
claiming: ``SELECT ... FOR UPDATE SKIP LOCKED`` in the order above, then the conditional
UPDATE of ``leases.match_claim`` in the same transaction, so concurrent slots take different
rows instead of racing for one, and two slots never take the same match. SQLite has no row
locks (``select_for_update`` does nothing there) but serialises writers: a lost race there
re-picks, and a slot gives up only when nothing is claimable.
"""

from __future__ import annotations

import functools
import math
import threading
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Min, Q, Sum
from django.utils import timezone

from arena.matches.leases import Claim, claimable, claimable_params, claimable_sql, match_claim
from arena.matches.limits import match_limits
from arena.matches.models import Match, UsageMinute, UsageTotal, WorkerNode
from arena.matches.usage import SYSTEM_ACCOUNT, running_totals
from arena.matches.usage import fair_share_window as fair_share_window
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


def _ordered(
    waiting: list[tuple[int, UserId, datetime]],
    running: dict[UserId, int],
    used: dict[UserId, float],
    slots: int,
) -> Pick:
    """The pick from its aggregates: ``waiting`` (class, user, oldest claimable match's
    ``created_at``), running matches per user, each waiting user's worker seconds in the
    window, and the slots (module docstring, steps 0 to 2)."""
    users: set[UserId] = {user for _, user, _ in waiting}
    share = fair_share(slots, len(users | set(running)))
    under = {u for u in users if running.get(u, 0) < share}
    candidates = sorted(
        (
            Candidate(
                priority=priority,
                submitter_id=user,
                capped=bool(under) and user not in under,
                used_s=used[user],
                oldest=oldest,
            )
            for priority, user, oldest in waiting
        ),
        key=lambda c: c.key,
    )
    return Pick(candidates=candidates, share=share, slots=slots, running=running)


#: Row kinds of the pick's statement (its first column).
_WAITING, _RUNNING, _ENDED, _SLOTS = 0, 1, 2, 3


@functools.cache
def _pick_sql() -> str:
    """The pick's one statement on PostgreSQL, built once (parameters: ``claimable_params``
    and ``since``, ``first_minute``, ``stale``). Rows ``(kind, priority, user, oldest, count,
    seconds)``: a row per (class, user) with claimable matches (``_WAITING``: the oldest's
    ``created_at``), per user with running matches (``_RUNNING``: how many, their worker
    seconds in the window so far), per waiting account with ended worker time (``_ENDED``:
    its ``UsageTotal`` less its minutes older than the window not pruned yet), and one
    ``_SLOTS`` row (the live workers' slots, 0 when none announced). The same aggregates as
    ``usage.running_totals``, ``usage.ended_seconds`` and ``total_slots``, in one round trip."""
    match, total = Match._meta.db_table, UsageTotal._meta.db_table
    minute, node = UsageMinute._meta.db_table, WorkerNode._meta.db_table
    running = Match.Status.RUNNING.value
    return (
        "WITH waiting AS (SELECT m.priority, m.submitter_id, min(m.created_at) AS oldest"
        f" FROM {match} AS m WHERE {claimable_sql('m')} GROUP BY m.priority, m.submitter_id),"
        " busy AS (SELECT m.submitter_id, count(*) AS n, coalesce(sum(extract(epoch FROM"
        " %(now)s - greatest(m.started_at, %(since)s))), 0)::float8 AS used"
        f" FROM {match} AS m WHERE m.status = '{running}' GROUP BY m.submitter_id),"
        f" ended AS (SELECT t.account, greatest(0, t.seconds - coalesce((SELECT sum(u.seconds)"
        f" FROM {minute} AS u WHERE u.account = t.account AND u.minute < %(first_minute)s),"
        f" 0))::float8 AS seconds FROM {total} AS t WHERE t.account IN"
        f" (SELECT DISTINCT coalesce(w.submitter_id, {SYSTEM_ACCOUNT}) FROM waiting AS w))"
        f" SELECT {_WAITING}, w.priority, w.submitter_id::bigint, w.oldest, 0::bigint,"
        " 0::float8 FROM waiting AS w"
        f" UNION ALL SELECT {_RUNNING}, 0, b.submitter_id, NULL, b.n, greatest(0, b.used)"
        " FROM busy AS b WHERE EXISTS (SELECT 1 FROM waiting)"
        f" UNION ALL SELECT {_ENDED}, 0, e.account, NULL, 0, e.seconds FROM ended AS e"
        f" UNION ALL SELECT {_SLOTS}, 0, NULL, NULL, (SELECT coalesce(sum(n.slots), 0)"
        f" FROM {node} AS n WHERE n.last_seen >= %(stale)s), 0 WHERE EXISTS (SELECT 1 FROM waiting)"
    )


def _pick_postgresql(now: datetime) -> Pick:
    params = claimable_params(now)
    window = fair_share_window()
    params.update(
        since=now - window,
        first_minute=int((now - window).timestamp() // 60),
        stale=now - timedelta(seconds=WORKER_STALE_S),
    )
    with connection.cursor() as cursor:
        cursor.execute(_pick_sql(), params)
        rows = cursor.fetchall()
    waiting: list[tuple[int, UserId, datetime]] = []
    running: dict[UserId, int] = {}
    used: dict[UserId, float] = defaultdict(float)
    slots = 0
    for kind, priority, user, oldest, count, seconds in rows:
        if kind == _WAITING:
            waiting.append((priority, user, oldest))
        elif kind == _RUNNING:
            running[user] = count
            used[user] += seconds
        elif kind == _ENDED:
            used[None if user == SYSTEM_ACCOUNT else user] += seconds
        else:
            slots = int(count)
    if not waiting:
        return Pick(candidates=[], share=0, slots=0, running={})
    return _ordered(waiting, running, used, slots or int(settings.BAO_WORKER_SLOTS))


def pick(now: datetime | None = None) -> Pick:
    """The candidates (class, user) in the order of the module docstring; empty when nothing
    is claimable. On PostgreSQL one prebuilt statement of four aggregates (``_pick_sql``),
    read with a plain cursor; elsewhere four aggregate queries of the ORM. Either way,
    whatever the window holds."""
    now = now or timezone.now()
    if connection.vendor == "postgresql":
        return _pick_postgresql(now)
    return _pick_orm(now)


def _pick_orm(now: datetime) -> Pick:
    """``pick`` through the ORM (SQLite; on PostgreSQL the reference ``_pick_sql`` is tested
    against)."""
    waiting = list(
        Match.objects.filter(claimable(now))
        .values("priority", "submitter_id")
        .annotate(oldest=Min("created_at"))
        .order_by()
    )
    if not waiting:
        return Pick(candidates=[], share=0, slots=0, running={})
    totals = running_totals(now)
    users: set[UserId] = {row["submitter_id"] for row in waiting}
    return _ordered(
        [(row["priority"], row["submitter_id"], row["oldest"]) for row in waiting],
        {user: r.count for user, r in totals.items()},
        usage_seconds(users, now, totals),
        total_slots(now),
    )


def _in(candidate: Candidate) -> Q:
    who = (
        Q(submitter__isnull=True)
        if candidate.submitter_id is None
        else Q(submitter_id=candidate.submitter_id)
    )
    return who & Q(priority=candidate.priority)


@functools.cache
def _oldest_sql(*, system: bool, lock: bool) -> str:
    """The oldest claimable match of one (class, user) on PostgreSQL, from ``match_queue_idx``
    (parameters: ``claimable_params``, ``priority`` and, unless ``system``, ``user``); with
    ``lock``, ``FOR UPDATE SKIP LOCKED``: a row another slot is claiming is passed over."""
    who = "m.submitter_id IS NULL" if system else "m.submitter_id = %(user)s"
    return (
        f"SELECT m.id, m.variant, m.time_control, m.attempts FROM {Match._meta.db_table} AS m"
        f" WHERE m.priority = %(priority)s AND {who} AND {claimable_sql('m')}"
        " ORDER BY m.created_at, m.id LIMIT 1" + (" FOR UPDATE OF m SKIP LOCKED" if lock else "")
    )


def _oldest(candidate: Candidate, now: datetime, *, lock: bool) -> tuple[int, str, str, int] | None:
    """``(id, variant, time_control, attempts)`` of ``candidate``'s oldest claimable match
    (PostgreSQL: ``_oldest_sql``), or None."""
    params = claimable_params(now)
    params.update(priority=candidate.priority, user=candidate.submitter_id)
    sql = _oldest_sql(system=candidate.submitter_id is None, lock=lock)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    return None if row is None else (row[0], row[1], row[2], row[3])


def next_match_id(now: datetime | None = None) -> int | None:
    """The match the order above picks now, or None when nothing is claimable."""
    now = now or timezone.now()
    chosen = pick(now).candidates
    if not chosen:
        return None
    if connection.vendor == "postgresql":
        row = _oldest(chosen[0], now, lock=False)
        return None if row is None else row[0]
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
    if connection.vendor != "postgresql":
        with transaction.atomic():
            row = (
                Match.objects.filter(claimable(now), _in(candidate))
                .order_by("created_at", "id")
                .values_list("pk", "variant", "time_control")
                .first()
            )
            if row is None:
                return None
            lease = match_limits(row[1], row[2]).lease
            return match_claim(row[0], lease_seconds=lease, worker=worker)
    with transaction.atomic():
        locked = _oldest(candidate, now, lock=True)
        if locked is None:
            return None
        pk, variant, time_control, attempts = locked
        lease = match_limits(variant, time_control).lease
        return match_claim(pk, lease_seconds=lease, worker=worker, attempts_before=attempts)


def match_claim_next(*, worker: str = "", now: datetime | None = None) -> Claim | None:
    """Claim the match the dispatcher picks for a free slot of ``worker`` (a Celery node
    name, stored on the match); None only when nothing is claimable. A candidate whose
    matches other slots are claiming is passed for the next one; when every candidate was
    taken meanwhile the pick is made again (each round, some slot claimed: the queue shrinks).
    The slots of one process claim one at a time (``_claiming``). Raises the database's errors
    (the caller retries transient ones)."""
    with _claiming:
        return _claim_next(worker, now)


#: One claim at a time per process: a process's slots (threads) share one interpreter, so
#: claiming side by side gains them no CPU, only more transactions and SKIP LOCKED scans at
#: once in the database (a worker of a thousand thread slots ran a thousand); a claim takes
#: milliseconds, far under a match.
_claiming = threading.Lock()


def _claim_next(worker: str, now: datetime | None) -> Claim | None:
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
