"""The dispatcher's prebuilt statements on PostgreSQL (``dispatch._pick_sql``,
``dispatch._oldest_sql``, ``leases.match_claim``'s UPDATE ... RETURNING): the same pick as the
ORM's, in one query, and claims that count attempts (SQLite runs the ORM path: these are
skipped there, the dispatch tests cover it)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from arena.matches import dispatch
from arena.matches.leases import match_claim
from arena.matches.models import LeaseClock, Match, WorkerNode

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="the prebuilt statements are PostgreSQL's"
    ),
]


def _match(a, b, *, user=None, priority=Match.Priority.INTERACTIVE, age_s=0.0, **state):  # type: ignore[no-untyped-def]
    match = Match.objects.create(
        engine_a=a, engine_b=b, variant="bao-la-kete", time_control="2+0.1", seed=1,
        submitter=user, priority=priority,
    )  # fmt: skip
    Match.objects.filter(pk=match.pk).update(
        created_at=timezone.now() - timedelta(seconds=age_s), **state
    )
    return match


def _world(greedy, randomer, alice, bob) -> None:  # type: ignore[no-untyped-def]
    now = timezone.now()
    # Alice: two running (one with an expired lease: claimable, and running), an hour's time
    # ended; bob: ten minutes ended; the system: a rated match; a match held back, one out of
    # attempts, one finished: neither waits.
    _match(greedy, randomer, user=alice, status="running", started_at=now - timedelta(seconds=50),
           lease_expires_at=now + timedelta(seconds=30), lease_token="t1")  # fmt: skip
    _match(greedy, randomer, user=alice, age_s=90, status="running", attempts=1,
           started_at=now - timedelta(seconds=80), lease_expires_at=now - timedelta(seconds=1),
           lease_token="t2")  # fmt: skip
    ago = lambda s: now - timedelta(seconds=s)  # noqa: E731
    _match(greedy, randomer, user=alice, status="finished", started_at=ago(3000),
           finished_at=ago(1000))  # fmt: skip
    _match(greedy, randomer, user=bob, status="finished", started_at=ago(700),
           finished_at=ago(100))  # fmt: skip
    for age in (40, 20):
        _match(greedy, randomer, user=alice, age_s=age)
        _match(greedy, randomer, user=bob, age_s=age + 5, priority=Match.Priority.VERSION_TEST)
    _match(greedy, randomer, age_s=300, priority=Match.Priority.RATED_PLAY)
    _match(greedy, randomer, user=bob, available_at=now + timedelta(seconds=60))
    _match(greedy, randomer, user=bob, attempts=3)
    WorkerNode.objects.create(name="w1", slots=3, cores=2, started_at=now, last_seen=now)


def _view(pick: dispatch.Pick) -> tuple[object, ...]:
    return (
        [
            (c.priority, c.submitter_id, c.capped, round(c.used_s), c.oldest)
            for c in pick.candidates
        ],
        pick.share,
        pick.slots,
        pick.running,
    )


def test_the_prebuilt_pick_is_the_orms_in_one_query(
    greedy, randomer, alice, bob, django_assert_num_queries
) -> None:
    _world(greedy, randomer, alice, bob)
    now = timezone.now()
    with django_assert_num_queries(1):
        sql = dispatch.pick(now)
    orm = dispatch._pick_orm(now)
    assert _view(sql) == _view(orm)
    # Three slots, three users with work: a share of 1, which alice's two running exceed.
    assert (sql.share, sql.slots, sql.running) == (1, 3, {alice.pk: 2})
    assert [(c.priority, c.submitter_id, c.capped) for c in sql.candidates] == [
        (Match.Priority.VERSION_TEST, bob.pk, False),
        (Match.Priority.RATED_PLAY, None, False),
        (Match.Priority.INTERACTIVE, alice.pk, True),
    ]
    alices = next(c for c in sql.candidates if c.submitter_id == alice.pk)
    # 2000 s ended, 50 + 80 s running so far; bob: 600 s ended.
    assert 2129 < alices.used_s < 2135  # the running ones grew since they were made
    assert round(next(c for c in sql.candidates if c.submitter_id == bob.pk).used_s) == 600


def test_takeovers_held_after_an_outage_leave_the_expired_lease_out_of_the_pick(
    greedy, randomer, alice, bob
) -> None:
    _world(greedy, randomer, alice, bob)
    now = timezone.now()
    LeaseClock.objects.create(pk=1, seen_at=now, up_since=now - timedelta(seconds=2))
    sql, orm = dispatch.pick(now), dispatch._pick_orm(now)
    assert _view(sql) == _view(orm)
    alices = next(c for c in sql.candidates if c.submitter_id == alice.pk)
    assert alices.oldest > now - timedelta(seconds=41)  # not the expired lease's, 90 s old


def test_nothing_claimable_is_an_empty_pick(greedy, randomer, bob) -> None:
    _match(greedy, randomer, user=bob, attempts=3)
    assert _view(dispatch.pick()) == ([], 0, 0, {})


def test_the_claim_walks_the_order_and_counts_attempts_from_the_row(
    greedy, randomer, alice, bob
) -> None:
    _world(greedy, randomer, alice, bob)
    claims = [dispatch.match_claim_next(worker="w1") for _ in range(6)]
    assert all(c is not None for c in claims)
    taken = Match.objects.in_bulk([c.match_id for c in claims if c is not None])
    order = [(taken[c.match_id].submitter_id, taken[c.match_id].priority) for c in claims if c]
    # Bob (under his share of 1), the system (bob is at his now); then everyone is at their
    # share, so the class order: alice's three challenges, the expired lease first (oldest,
    # its second attempt), and bob's second version test last.
    assert order == [(bob.pk, 1), (None, 2), *[(alice.pk, 0)] * 3, (bob.pk, 1)]
    assert [c.attempts for c in claims if c] == [1, 1, 2, 1, 1, 1]
    assert dispatch.match_claim_next() is None
    assert {m.worker for m in taken.values()} == {"w1"}


def test_a_claim_is_one_statement_and_refuses_a_match_not_claimable(
    greedy, randomer, django_assert_num_queries
) -> None:
    match = _match(greedy, randomer)
    with django_assert_num_queries(1):
        claim = match_claim(match.pk, lease_seconds=30, worker="w")
    assert claim is not None and claim.attempts == 1
    row = Match.objects.get(pk=match.pk)
    assert (row.status, row.lease_token, row.worker, row.attempts) == (
        "running", claim.token, "w", 1,
    )  # fmt: skip
    assert row.lease_expires_at is not None and row.started_at is not None
    with django_assert_num_queries(1):
        assert match_claim(match.pk, lease_seconds=30) is None  # a live lease


def test_a_record_can_put_the_usage_rollup_off_to_its_commit(greedy, randomer, alice) -> None:
    from arena.matches.models import UsageMinute, UsageTotal
    from arena.matches.usage import usage_at_commit

    now = timezone.now()
    match = _match(greedy, randomer, user=alice, status="running",
                   started_at=now - timedelta(seconds=30))  # fmt: skip
    usage_at_commit()
    Match.objects.filter(pk=match.pk).update(status="finished", finished_at=now)
    assert not UsageTotal.objects.filter(account=alice.pk).exists()  # deferred
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # as the COMMIT would
    assert round(UsageTotal.objects.get(account=alice.pk).seconds) == 30
    assert UsageMinute.objects.filter(account=alice.pk).count() == 1


def test_a_tick_leaves_a_clock_beaten_just_now_alone(greedy, randomer) -> None:
    from arena.matches.leases import match_leases_tick

    match = _match(greedy, randomer)
    claim = match_claim(match.pk, lease_seconds=30)
    assert claim is not None
    beaten = timezone.now() - timedelta(seconds=1)  # within a quarter of the 20 s gap
    LeaseClock.objects.create(pk=1, seen_at=beaten, up_since=beaten - timedelta(hours=1))
    rows, queries = match_leases_tick([claim], [claim])
    assert (rows, queries) == ({match.pk: ("running", claim.token)}, 1)
    assert LeaseClock.objects.get(pk=1).seen_at == beaten
    LeaseClock.objects.filter(pk=1).update(seen_at=timezone.now() - timedelta(seconds=10))
    before = timezone.now()
    assert match_leases_tick([claim], [claim])[1] == 1
    assert LeaseClock.objects.get(pk=1).seen_at >= before  # a beat older than that: written
