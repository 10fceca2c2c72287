"""Worker time per user for the fair share, from running totals (issue 29), not from the window's
matches.

A user's recent worker time is, at ``now``, over the window ``W`` =
``settings.BAO_FAIR_SHARE_WINDOW_SECONDS``:

* **ended matches**: the ``UsageMinute`` rollup, which database triggers keep as matches end
  (migration ``0018``): each ``finished`` or ``aborted`` match adds ``finished_at -
  started_at`` seconds to its account's minute of ``finished_at``. A minute counts while it is
  not older than the window's start (``minute >= (now - W) // 60``): an ended match's time
  counts **in full from its end until about one window later** (to the minute), then drops
  out at once. (The earlier sum over the window's rows counted the overlap of each match with
  the window, so a match's time decayed over the window after it started; for matches much
  shorter than the window the two agree.) A match handed back and waiting adds nothing.
* **running matches**: their time so far within the window, ``now - max(started_at,
  now - W)``, summed in the database over the running rows only (a partial index): bounded by
  the slots, whatever the window holds.

The triggers also add to the account's ``UsageTotal``; ``usage_prune`` (the recovery scan,
every ``BAO_REQUEUE_SCAN_SECONDS``) deletes the minutes that left the window and subtracts
them from the totals. A user's ended time is their total less the minutes older than the
window not pruned yet, so ``usage_seconds`` reads one total per user (and a scan's worth of
stale minutes at most) and the running rows, never the window's matches.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import (
    Count,
    DateTimeField,
    DurationField,
    ExpressionWrapper,
    F,
    FloatField,
    OuterRef,
    Subquery,
    Sum,
    Value,
)
from django.db.models.functions import Coalesce, Greatest

from arena.matches.models import Match, UsageMinute, UsageTotal

UserId = int | None

#: The rollup's account of the system's matches (no submitter); user ids start at 1.
SYSTEM_ACCOUNT = 0


def fair_share_window() -> timedelta:
    """The window over which worker time counts toward a user's share."""
    return timedelta(seconds=int(settings.BAO_FAIR_SHARE_WINDOW_SECONDS))


def _account(user: UserId) -> int:
    return SYSTEM_ACCOUNT if user is None else user


def _first_minute(now: datetime) -> int:
    return int((now - fair_share_window()).timestamp() // 60)


@dataclass(frozen=True)
class Running:
    """The running totals of one user: ``count`` running matches, ``used_s`` their worker
    seconds within the window so far."""

    count: int
    used_s: float


def running_totals(now: datetime) -> dict[UserId, Running]:
    """Running matches per submitter (None: the system) and their worker time in the window
    up to ``now``: one aggregate over the running rows (``match_running_submitter_idx``)."""
    since = Value(now - fair_share_window(), output_field=DateTimeField())
    rows = (
        Match.objects.filter(status=Match.Status.RUNNING)
        .values("submitter_id")
        .annotate(
            n=Count("id"),
            used=Sum(
                ExpressionWrapper(
                    Value(now, output_field=DateTimeField()) - Greatest("started_at", since),
                    output_field=DurationField(),
                )
            ),
        )
        .order_by()
    )
    return {
        row["submitter_id"]: Running(
            count=row["n"],
            used_s=max(0.0, row["used"].total_seconds()) if row["used"] is not None else 0.0,
        )
        for row in rows
    }


def ended_seconds(users: Iterable[UserId], now: datetime) -> dict[UserId, float]:
    """Worker seconds of each user's matches that ended within the window before ``now``:
    the account's ``UsageTotal`` less its minutes older than the window not pruned yet (one
    query: a row per user and, per user, the index range of those few minutes)."""
    by_account = {_account(u): u for u in users}
    if not by_account:
        return {}
    stale = (
        UsageMinute.objects.filter(account=OuterRef("account"), minute__lt=_first_minute(now))
        .values("account")
        .annotate(total=Sum("seconds"))
        .values("total")
    )
    rows = (
        UsageTotal.objects.filter(account__in=list(by_account))
        .annotate(stale=Coalesce(Subquery(stale), Value(0.0), output_field=FloatField()))
        .values_list("account", "seconds", "stale")
    )
    used = {by_account[account]: max(0.0, total - old) for account, total, old in rows}
    return {u: used.get(u, 0.0) for u in by_account.values()}


def usage_seconds(
    users: set[UserId], now: datetime, running: dict[UserId, Running] | None = None
) -> dict[UserId, float]:
    """Worker seconds each of ``users`` used within the fair-share window before ``now``:
    ended matches from the rollup plus running matches so far (module docstring). Two
    aggregate queries, one when ``running`` (``running_totals``) is given."""
    if not users:
        return {}
    if running is None:
        running = running_totals(now)
    ended = ended_seconds(users, now)
    return {u: ended[u] + (running[u].used_s if u in running else 0.0) for u in users}


def usage_prune(now: datetime) -> int:
    """Delete the rollup's minutes older than the window (they no longer count) and take them
    off their accounts' totals, in one transaction with those minutes locked (a match ending
    into one of them meanwhile waits, then adds to a fresh row); returns how many minutes."""
    with transaction.atomic():
        old = list(
            UsageMinute.objects.select_for_update()
            .filter(minute__lt=_first_minute(now))
            .values_list("pk", "account", "seconds")
        )
        if not old:
            return 0
        by_account: dict[int, float] = defaultdict(float)
        for _, account, seconds in old:
            by_account[account] += seconds
        UsageMinute.objects.filter(pk__in=[pk for pk, _, _ in old]).delete()
        for account, seconds in by_account.items():
            UsageTotal.objects.filter(account=account).update(
                seconds=Greatest(F("seconds") - seconds, Value(0.0))
            )
    return len(old)


def usage_at_commit() -> None:
    """Add the matches this transaction ends to the rollup at its COMMIT rather than at the
    UPDATE that ends them (PostgreSQL: ``SET CONSTRAINTS`` on the deferrable triggers of
    migration 0022; nothing elsewhere). So an account's minute and total rows, which every
    slot ending a match of that account writes, stay locked for the commit only, not for the
    rest of the transaction. For the outermost transaction that records a result: inside a
    caller's transaction (a test's, say) the setting would outlive the call, so leave it."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS matches_usage_on_end, matches_usage_on_insert DEFERRED")
