"""Leases on matches: who may play a match right now, decided by conditional UPDATEs.

A worker owns a match while ``status = running`` and ``lease_token`` is its token. Every
transition is one ``UPDATE ... WHERE`` whose row count is the lock (no SELECT-then-write race,
the same on SQLite and PostgreSQL):

* claim: ``pending`` -> ``running``, or ``running`` with an expired lease -> ``running`` with a new
  token (the previous worker died), while ``attempts < max_attempts``; but no expired lease is
  taken over within ``TAKEOVER_GRACE_S`` of the workers reaching the database again after an
  outage (``LeaseClock``, below), so a worker that played on through the outage keeps its
  match;
* renew: extends ``lease_expires_at`` if the token is still ours;
* release: ``running`` (our token) -> ``pending`` after an infrastructure fault, for a retry,
  or handed back (a worker shutting down): then the claim does not count as an attempt.

After an outage. A worker's referee plays on while the database is unreachable, but its lease
cannot be renewed: an outage longer than the lease leaves every lease expired when the database
answers again, and a slot or the recovery scan could take a match whose worker is about to
renew it (issue 30: games discarded, an attempt used). So the keepers beat a clock row
(``LeaseClock``, ``lease_clock_beat``) with each renewal: a beat after a silence longer than
two renewal periods, during which running leases expired, is the end of an outage, and sets
``up_since``; until ``TAKEOVER_GRACE_S`` after it no expired lease is claimable
(``takeovers_held``), while each live worker's keeper, retrying every poll, renews at its first
successful query. While the clock is silent for longer than the gap (the database has just come
back and nobody has beaten yet) takeovers are held too. A dead worker's match is taken over
once the grace has passed (the recovery scan beats every ``BAO_REQUEUE_SCAN_SECONDS``; in a
system otherwise idle its first beat after the death starts the grace, so recovery waits
``TAKEOVER_GRACE_S`` more). An idle spell with nothing expired is not an outage. The clock is
the writers' (application) clock, as for the leases themselves.

Finishing a match (our token -> ``finished``/``aborted``) is ``services.match_record_result``.
Which match a slot claims is ``arena.matches.dispatch``; keeping the lease while the match
plays is ``arena.matches.keeper`` (``match_renew_leases`` and ``match_leases_held``: one query
each for all the matches of a worker process).
"""

from __future__ import annotations

import functools
import logging
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import Exists, F, Q, QuerySet
from django.db.models.functions import Coalesce, Greatest
from django.utils import timezone

from arena.matches.models import LeaseClock, Match

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


#: Seconds after the workers reach the database again following an outage during which no
#: expired lease is taken over: a worker still playing renews within a poll or two of its
#: reconnection (``arena.matches.keeper``), far under this.
TAKEOVER_GRACE_S = 10
#: The start of time for a clock row that has seen nothing yet.
_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)


#: A tick's beat writes the clock only if nobody beat it in the last ``1 / BEAT_SHARE`` of the
#: outage gap (``match_leases_tick``): the silence an outage is told by stays at least
#: ``1 - 1 / BEAT_SHARE`` of the gap, still longer than a renewal period.
BEAT_SHARE = 4


def outage_gap_s(lease_seconds: int) -> float:
    """A silence of the lease beats longer than this is an outage: two renewal periods of
    ``lease_seconds`` (a lease renewed every third of it cannot expire in less)."""
    return max(1.0, 2 * lease_seconds / 3)


def _lease_setting() -> int:
    return int(settings.BAO_MATCH_LEASE_SECONDS)


def takeovers_held(now: datetime) -> Q:
    """True for every row while the workers are inside ``TAKEOVER_GRACE_S`` of reaching the
    database again after an outage (``LeaseClock.up_since``), or while the clock is silent
    (no beat for ``outage_gap_s``: the database may just have come back, before any keeper
    or scan beat). No clock row (no worker or scan ever beat): never held."""
    gap = timedelta(seconds=outage_gap_s(_lease_setting()))
    grace = timedelta(seconds=TAKEOVER_GRACE_S)
    return Q(Exists(LeaseClock.objects.filter(
        Q(up_since__gt=now - grace) | Q(seen_at__lt=now - gap), pk=1
    )))  # fmt: skip


def pending_or_expired(now: datetime) -> Q:
    """Matches nobody plays: ``pending``, or ``running`` with a lease that expired before
    ``now`` (its worker died or hung), unless the workers have just come back from a
    database outage (``takeovers_held``: a worker still playing renews first)."""
    expired = Q(status=Match.Status.RUNNING, lease_expires_at__lt=now) & ~takeovers_held(now)
    return Q(status=Match.Status.PENDING) | expired


def takeovers_held_for(now: datetime | None = None) -> float:
    """Seconds until expired leases become claimable again (``takeovers_held``), 0 when they
    are now. A silent clock counts as a grace about to start (the next beat starts it)."""
    now = now or timezone.now()
    row = LeaseClock.objects.filter(pk=1).values_list("seen_at", "up_since").first()
    if row is None:
        return 0.0
    seen, up = row
    if seen < now - timedelta(seconds=outage_gap_s(_lease_setting())):
        return float(TAKEOVER_GRACE_S)
    return max(0.0, (up + timedelta(seconds=TAKEOVER_GRACE_S) - now).total_seconds())


def lease_clock_beat(now: datetime | None = None) -> bool:
    """Record that a worker reaches the database (the keeper's renewal beat, every third of
    a lease, and each recovery scan); after a silence longer than ``outage_gap_s`` during
    which running leases expired (an outage, not an idle spell), ``up_since`` becomes now and
    takeovers wait ``TAKEOVER_GRACE_S``. True when this beat found an outage. One query,
    three or four after a gap."""
    now = now or timezone.now()
    gap = now - timedelta(seconds=outage_gap_s(_lease_setting()))
    if LeaseClock.objects.filter(pk=1, seen_at__gte=gap).update(seen_at=now):
        return False  # the usual beat: one UPDATE
    clock = LeaseClock.objects.filter(pk=1).values_list("seen_at", flat=True).first()
    if clock is None:
        LeaseClock.objects.get_or_create(pk=1, defaults={"seen_at": now, "up_since": _EPOCH})
        return False
    outage = clock < gap and (
        Match.objects.filter(
            status=Match.Status.RUNNING, lease_expires_at__gte=clock, lease_expires_at__lt=now
        ).exists()
    )
    if outage:
        LeaseClock.objects.filter(pk=1).update(seen_at=now, up_since=now)
        log.warning(
            "the workers reached the database again after %.0f s: leases that expired meanwhile "
            "are not taken over for %s s",
            (now - clock).total_seconds(),
            TAKEOVER_GRACE_S,
        )
    else:
        LeaseClock.objects.filter(pk=1).update(seen_at=now)
    return outage


def claimable(now: datetime | None = None) -> Q:
    """Matches a worker may claim now: nobody plays them, they are under the attempt bound and
    not held back for a retry (``available_at`` in the future)."""
    now = now or timezone.now()
    ready = Q(available_at__isnull=True) | Q(available_at__lte=now)
    return pending_or_expired(now) & Q(attempts__lt=max_attempts()) & ready


def claimable_sql(alias: str) -> str:
    """``claimable`` as one SQL condition on the columns of ``alias`` (a name for
    ``matches_match`` in the caller's statement), for PostgreSQL's prebuilt statements (the
    dispatcher's pick and claim, ``match_claim``). Its named parameters are
    ``claimable_params``'s; the same rows as ``claimable`` at the same ``now``."""
    m = alias
    return (
        f"(({m}.status = '{Match.Status.PENDING.value}' OR ({m}.status ="
        f" '{Match.Status.RUNNING.value}' AND {m}.lease_expires_at < %(now)s AND NOT EXISTS"
        f" (SELECT 1 FROM {LeaseClock._meta.db_table} AS clock WHERE clock.id = 1"
        " AND (clock.up_since > %(held_up)s OR clock.seen_at < %(held_seen)s))))"
        f" AND {m}.attempts < %(max_attempts)s"
        f" AND ({m}.available_at IS NULL OR {m}.available_at <= %(now)s))"
    )


def claimable_params(now: datetime) -> dict[str, Any]:
    """The parameters of ``claimable_sql`` at ``now``: ``now``, the attempt bound and the
    two bounds of ``takeovers_held`` (grace since the clock's ``up_since``, gap since its
    ``seen_at``)."""
    return {
        "now": now,
        "max_attempts": max_attempts(),
        "held_up": now - timedelta(seconds=TAKEOVER_GRACE_S),
        "held_seen": now - timedelta(seconds=outage_gap_s(_lease_setting())),
    }


@functools.cache
def _claim_sql() -> str:
    table = Match._meta.db_table
    return (
        f"UPDATE {table} AS m SET status = '{Match.Status.RUNNING.value}',"
        " lease_token = %(token)s, lease_expires_at = %(expires)s, attempts = m.attempts + 1,"
        " started_at = coalesce(m.started_at, %(now)s), available_at = NULL, worker = %(worker)s"
        f" WHERE m.id = %(id)s AND {claimable_sql('m')} RETURNING m.attempts"
    )


def match_claim(
    match_id: int, *, lease_seconds: int, worker: str = "", attempts_before: int | None = None
) -> Claim | None:
    """Claim ``match_id`` for ``lease_seconds`` on ``worker`` (a Celery node name, for the queue
    view and hand-backs); None if it is finished, aborted, leased by a live worker, out of
    attempts, held back, or does not exist (the caller then does nothing).
    ``attempts_before``: the row's ``attempts`` as read under a row lock this transaction
    holds (the dispatcher's claim), so the claim's count is that plus one without a read.
    On PostgreSQL one prebuilt statement (``UPDATE ... RETURNING attempts``), whatever
    ``attempts_before``; elsewhere the ORM's UPDATE (and a read without ``attempts_before``)."""
    now = timezone.now()
    token = secrets.token_hex(16)
    if connection.vendor == "postgresql":
        params = claimable_params(now)
        params.update(
            token=token,
            expires=now + timedelta(seconds=lease_seconds),
            worker=worker[:200],
            id=match_id,
        )
        with connection.cursor() as cursor:
            cursor.execute(_claim_sql(), params)
            row = cursor.fetchone()
        if row is None:
            return None
        return Claim(
            match_id=match_id, token=token, attempts=row[0], lease=lease_seconds, worker=worker
        )
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
    if attempts_before is not None:
        attempts = attempts_before + 1
    else:
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


def match_leases_tick(
    held: list[Claim], renew: list[Claim]
) -> tuple[dict[int, tuple[str, str]], int]:
    """One look at a worker process's matches: renew the leases of ``renew`` (each by its
    ``lease`` from now, while still ours), beat the lease clock when renewing, and read
    ``(status, lease_token)`` of every match of ``held`` (as ``match_leases_held``). Returns
    the rows and the number of queries: on PostgreSQL one statement (data-modifying CTEs;
    two when the beat finds a gap, ``lease_clock_beat``); elsewhere ``match_renew_leases``,
    ``lease_clock_beat`` and ``match_leases_held`` in turn. On PostgreSQL the beat leaves
    the clock's one row alone (no write, no row lock) when another worker beat it within the
    last ``1 / BEAT_SHARE`` of the outage gap: with many worker processes the row is no hot
    spot their ticks queue on, and the clock lags the last beat by that much at most."""
    ids = [claim.match_id for claim in held]
    if connection.vendor != "postgresql":
        queries = 0
        if renew:
            queries += match_renew_leases(renew) + 1
            lease_clock_beat()
        return match_leases_held(ids), queries + 1
    now = timezone.now()
    params: list[Any] = []
    sql = ""
    if renew:
        values = ", ".join(["(%s, %s, %s::timestamptz)"] * len(renew))
        for claim in renew:
            params += [claim.match_id, claim.token, now + timedelta(seconds=claim.lease)]
        gap_s = outage_gap_s(_lease_setting())
        gap, fresh = now - timedelta(seconds=gap_s), now - timedelta(seconds=gap_s / BEAT_SHARE)
        params += [now, gap, fresh, fresh]
        sql = (
            f"WITH renewed AS (UPDATE {Match._meta.db_table} AS m"
            " SET lease_expires_at = v.expires"
            f" FROM (VALUES {values}) AS v (id, token, expires)"
            " WHERE m.id = v.id AND m.lease_token = v.token AND m.status = 'running'"
            " RETURNING m.id),"
            f" beat AS (UPDATE {LeaseClock._meta.db_table} SET seen_at = %s"
            " WHERE id = 1 AND seen_at >= %s AND seen_at < %s RETURNING id) "
        )
    # Beaten: by this statement, or by another worker within the last share of the gap.
    beaten = (
        "(SELECT count(*) FROM beat) + (SELECT count(*) FROM"
        f" {LeaseClock._meta.db_table} WHERE id = 1 AND seen_at >= %s)"
        if renew
        else "1"
    )
    sql += (
        f"SELECT id, status, lease_token, {beaten} FROM {Match._meta.db_table} WHERE id = ANY(%s)"
    )
    params.append(ids)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    queries = 1
    if renew and (not rows or rows[0][3] == 0):
        lease_clock_beat(now)  # a gap (an outage ended?) or no clock row yet: the full beat
        queries += 1
    return {pk: (status, token) for pk, status, token, _ in rows}, queries


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
