"""The dispatcher's order (class, fair share, age), its claim, per-user queue caps, hand-backs
and cancels (database only; the real-worker cases are in ``test_dispatch_e2e``)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from arena.matches import dispatch, errors, services
from arena.matches.leases import match_claim
from arena.matches.models import Match

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_broker(monkeypatch) -> list[int]:  # type: ignore[no-untyped-def]
    from arena.matches import tasks

    sent: list[int] = []
    monkeypatch.setattr(tasks.run_match, "apply_async", lambda args, **kw: sent.append(args[0]))
    return sent


def _match(a, b, *, user=None, priority=Match.Priority.INTERACTIVE, age_s=0.0):  # type: ignore[no-untyped-def]
    match = Match.objects.create(
        engine_a=a,
        engine_b=b,
        variant="bao-la-kete",
        time_control="2+0.1",
        seed=1,
        submitter=user,
        priority=priority,
    )
    Match.objects.filter(pk=match.pk).update(created_at=timezone.now() - timedelta(seconds=age_s))
    return match


def _ran(match: Match, seconds: float, *, running: bool = False) -> None:
    now = timezone.now()
    Match.objects.filter(pk=match.pk).update(
        status="running" if running else "finished",
        started_at=now - timedelta(seconds=seconds),
        finished_at=None if running else now,
        lease_expires_at=now + timedelta(seconds=30) if running else None,
        lease_token="live" if running else "",
    )


def test_a_higher_class_goes_first_whatever_its_age(greedy, randomer, alice) -> None:
    ladder = _match(greedy, randomer, user=alice, priority=Match.Priority.RATED_PLAY, age_s=600)
    test = _match(greedy, randomer, user=alice, priority=Match.Priority.VERSION_TEST, age_s=300)
    challenge = _match(greedy, randomer, user=alice, age_s=1)
    picks = [dispatch.match_claim_next(worker="w1") for _ in range(4)]
    assert [c.match_id if c else None for c in picks] == [challenge.pk, test.pk, ladder.pk, None]
    assert Match.objects.get(pk=challenge.pk).worker == "w1"


def test_the_user_with_less_recent_worker_time_goes_first(greedy, randomer, alice, bob) -> None:
    # Alice's gauntlet holds a slot and used an hour's worth of time; Bob's challenge came later.
    _ran(_match(greedy, randomer, user=alice), 1200, running=True)
    _ran(_match(greedy, randomer, user=alice), 1000)
    gauntlet = [_match(greedy, randomer, user=alice, age_s=100 - i) for i in range(5)]
    challenge = _match(greedy, randomer, user=bob, age_s=1)
    assert dispatch.next_match_id() == challenge.pk
    assert dispatch.match_claim_next().match_id == challenge.pk  # type: ignore[union-attr]
    assert dispatch.match_claim_next().match_id == gauntlet[0].pk  # type: ignore[union-attr]


def test_worker_time_outside_the_window_does_not_count(
    greedy, randomer, alice, bob, settings
) -> None:
    settings.BAO_FAIR_SHARE_WINDOW_SECONDS = 600
    old = _match(greedy, randomer, user=alice)
    Match.objects.filter(pk=old.pk).update(
        status="finished",
        started_at=timezone.now() - timedelta(hours=3),
        finished_at=timezone.now() - timedelta(hours=2),
    )
    recent = _match(greedy, randomer, user=bob)
    _ran(recent, 30)
    now = timezone.now()
    used = dispatch.usage_seconds({alice.pk, bob.pk}, now)
    assert used[alice.pk] == 0 and 29 < used[bob.pk] < 31
    first_bob = _match(greedy, randomer, user=bob, age_s=50)
    first_alice = _match(greedy, randomer, user=alice, age_s=10)
    assert dispatch.next_match_id() == first_alice.pk and first_bob.pk


def test_equal_shares_go_by_age_and_a_users_matches_by_age(greedy, randomer, alice, bob) -> None:
    a1 = _match(greedy, randomer, user=alice, age_s=30)
    b1 = _match(greedy, randomer, user=bob, age_s=40)
    a2 = _match(greedy, randomer, user=alice, age_s=50)  # Alice's oldest
    assert dispatch.next_match_id() == a2.pk
    order = [e.match_id for e in dispatch.queue_order()]
    # Turns: each user's first match, then each user's second; less used and older first.
    assert order == [a2.pk, b1.pk, a1.pk]


def test_a_match_held_back_for_a_retry_is_not_claimed_before_its_time(greedy, randomer) -> None:
    held = _match(greedy, randomer)
    Match.objects.filter(pk=held.pk).update(available_at=timezone.now() + timedelta(seconds=30))
    assert dispatch.match_claim_next() is None
    Match.objects.filter(pk=held.pk).update(available_at=timezone.now())
    assert dispatch.match_claim_next().match_id == held.pk  # type: ignore[union-attr]


def test_a_lost_race_chooses_again(greedy, randomer, monkeypatch) -> None:
    first, second = _match(greedy, randomer, age_s=2), _match(greedy, randomer, age_s=1)
    real = dispatch.match_claim

    def someone_else_was_faster(match_id, **kw):  # type: ignore[no-untyped-def]
        if match_id == first.pk and Match.objects.get(pk=first.pk).status == "pending":
            assert real(match_id, lease_seconds=30, worker="other") is not None
        return real(match_id, **kw)

    monkeypatch.setattr(dispatch, "match_claim", someone_else_was_faster)
    claim = dispatch.match_claim_next(worker="me")
    assert claim is not None and claim.match_id == second.pk
    assert Match.objects.get(pk=first.pk).worker == "other"


def test_a_challenge_over_the_users_queue_cap_is_refused_with_queue_full(
    alice, alices_engine, bobs_engine, settings
) -> None:
    settings.BAO_QUEUE_MAX_PER_USER = 2
    for _ in range(2):
        services.match_challenge(
            user=alice,
            engine="alice-greedy",
            opponent="bob-random",
            variant="kete",
            time_control="2+0.1",
        )
    with pytest.raises(errors.QueueFull) as info:
        services.match_challenge(
            user=alice,
            engine="alice-greedy",
            opponent="bob-random",
            variant="kete",
            time_control="2+0.1",
        )
    assert (info.value.status_code, info.value.default_code, info.value.details) == (
        409,
        "queue_full",
        {"queued": 2, "adding": 1, "limit": 2},
    )
    assert Match.objects.filter(submitter=alice).count() == 2
    # A match being played no longer waits: it frees a place.
    first = Match.objects.filter(submitter=alice).order_by("pk").first()
    Match.objects.filter(pk=first.pk).update(status="running")  # type: ignore[union-attr]
    services.match_challenge(
        user=alice,
        engine="alice-greedy",
        opponent="bob-random",
        variant="kete",
        time_control="2+0.1",
    )


def test_staff_are_exempt_from_the_queue_cap(alice, alices_engine, bobs_engine, settings) -> None:
    settings.BAO_QUEUE_MAX_PER_USER = 1
    alice.is_staff = True
    alice.save()
    for _ in range(3):
        services.match_challenge(
            user=alice,
            engine="alice-greedy",
            opponent="bob-random",
            variant="kete",
            time_control="2+0.1",
        )
    assert Match.objects.filter(submitter=alice).count() == 3


def test_the_default_cap_admits_a_64_engine_round_robin() -> None:
    from django.conf import settings

    assert settings.BAO_QUEUE_MAX_PER_USER == 64 * 63 // 2 == 2016


def test_a_worker_shutting_down_hands_back_its_matches_without_counting_an_attempt(
    greedy, randomer, no_broker
) -> None:
    mine, theirs = _match(greedy, randomer), _match(greedy, randomer)
    assert match_claim(mine.pk, lease_seconds=30, worker="celery@a") is not None
    assert match_claim(theirs.pk, lease_seconds=30, worker="celery@b") is not None
    assert services.matches_hand_back("celery@a") == [mine.pk]
    mine.refresh_from_db()
    assert (mine.status, mine.attempts, mine.lease_token) == ("pending", 0, "")
    assert mine.error == "handed back by celery@a (shutting down)"
    assert no_broker[-1] == mine.pk
    assert Match.objects.get(pk=theirs.pk).status == "running"


def test_a_cancelled_match_is_aborted_with_no_games(greedy, randomer) -> None:
    running = _match(greedy, randomer)
    claim = match_claim(running.pk, lease_seconds=30)
    assert claim is not None
    assert services.match_cancel(running.pk, reason="by alice") is True
    running.refresh_from_db()
    assert (running.status, running.lease_token, running.error) == (
        "aborted",
        "",
        "cancelled: by alice",
    )
    assert running.games.count() == 0
    assert services.match_cancel(running.pk, reason="again") is False


# --------------------------------------------------------------------------- wake-ups


def _batch(a, b, count: int, capture, **kw):  # type: ignore[no-untyped-def]
    specs = [services.MatchSpec(engine_a=a, engine_b=b, variant="kete", time_control="2+0.1", **kw)
             for _ in range(count)]  # fmt: skip
    with capture(execute=True):
        created, refused = services.matches_create(specs)
    assert refused == []
    return created


def _one_slot(sent: list, monkeypatch, played: list) -> list[str]:  # type: ignore[type-arg, no-untyped-def]
    """Deliver the waiting messages in order to one slot that plays a match by finishing it;
    returns the outcomes. ``played``: (match id, messages sent before it was played)."""
    from arena.matches import runner

    def play(claim, config=None):  # type: ignore[no-untyped-def]
        played.append((claim.match_id, len(sent)))
        Match.objects.filter(pk=claim.match_id).update(
            status="finished", finished_at=timezone.now()
        )
        return runner.RECORDED

    monkeypatch.setattr(runner, "play_claimed", play)
    outcomes = []
    while sent:
        outcomes.append(str(runner.execute_next(sent.pop(0), worker="w1")))
    return outcomes


def test_a_batch_gets_a_wake_up_per_slot_and_the_chain_plays_every_match(
    greedy, randomer, no_broker, monkeypatch, settings, django_capture_on_commit_callbacks
) -> None:
    settings.BAO_WORKER_SLOTS = 2
    matches = _batch(greedy, randomer, 5, django_capture_on_commit_callbacks)
    assert no_broker == [None, None]  # two wake-ups, no match named
    assert not Match.objects.filter(pk__in=[m.pk for m in matches], queued_at=None).exists()
    played: list[tuple[int, int]] = []
    outcomes = _one_slot(no_broker, monkeypatch, played)
    # Each claim woke the next slot while more was claimable (before playing its own match),
    # so two messages never grew into more: five matches, one wake-up left over.
    assert outcomes == ["recorded"] * 5 + ["skipped"]
    assert [match_id for match_id, _ in played] == [m.pk for m in matches]
    assert [waiting for _, waiting in played] == [2, 2, 2, 2, 1]
    assert not Match.objects.filter(status="pending").exists()


def test_a_challenge_queued_behind_a_batch_goes_first_on_the_chains_next_wake_up(
    greedy,
    randomer,
    alice,
    bob,
    no_broker,
    monkeypatch,
    settings,
    django_capture_on_commit_callbacks,
) -> None:
    settings.BAO_WORKER_SLOTS = 1
    gauntlet = _batch(greedy, randomer, 3, django_capture_on_commit_callbacks, submitter=alice)
    Match.objects.filter(pk=gauntlet[0].pk).update(started_at=timezone.now())  # alice used time
    Match.objects.filter(pk=gauntlet[0].pk).update(
        status="finished",
        started_at=timezone.now() - timedelta(seconds=60),
        finished_at=timezone.now(),
    )
    with django_capture_on_commit_callbacks(execute=True):
        challenge = services.match_create(
            engine_a=greedy, engine_b=randomer, variant="kete", time_control="2+0.1", challenger=bob
        )
    assert no_broker == [None, challenge.pk]
    played: list[tuple[int, int]] = []
    assert _one_slot(no_broker, monkeypatch, played) == ["recorded"] * 3 + ["skipped"]
    assert [match_id for match_id, _ in played] == [challenge.pk, gauntlet[1].pk, gauntlet[2].pk]


def test_the_last_claim_of_a_drained_queue_wakes_nobody(greedy, randomer, no_broker) -> None:
    match = _match(greedy, randomer)
    assert services.match_wake_next() is True  # a pending match: wake a slot for it
    assert dispatch.match_claim_next() is not None
    assert services.match_wake_next() is False
    assert no_broker == [None] and match.pk


def test_a_wake_up_the_broker_refused_is_sent_again_once_the_match_is_played(
    greedy, randomer, monkeypatch
) -> None:
    from arena.matches import runner, tasks

    first, second = _match(greedy, randomer), _match(greedy, randomer)
    sent: list[object] = []
    refusals = iter([True])

    def send(args, **kw):  # type: ignore[no-untyped-def]
        if next(refusals, False):
            raise ConnectionError("broker down")
        sent.append(args[0])

    monkeypatch.setattr(tasks.run_match, "apply_async", send)

    def play(claim, config=None):  # type: ignore[no-untyped-def]
        assert sent == []  # the wake-up before playing was refused
        return runner.RECORDED

    monkeypatch.setattr(runner, "play_claimed", play)
    assert runner.execute_next(None) == runner.RECORDED
    assert sent == [None]  # the chain goes on: the second match has its wake-up
    assert Match.objects.get(pk=second.pk).status == "pending" and first.pk


# --------------------------------------------------------------------------- fair share of slots


def test_a_user_at_their_share_gets_no_slot_while_another_user_waits(
    greedy, randomer, alice, bob, settings
) -> None:
    # Two slots, both alice's (started just now: little worker time); bob used ten minutes
    # of the window, so the worker-time order alone would give alice the next slot too.
    settings.BAO_WORKER_SLOTS = 2
    for _ in range(2):
        _ran(_match(greedy, randomer, user=alice), 5, running=True)
    _ran(_match(greedy, randomer, user=bob), 600)
    alices_next = _match(greedy, randomer, user=alice, age_s=60)
    bobs = _match(greedy, randomer, user=bob, age_s=1)
    assert dispatch.fair_share(2, 2) == 1
    assert dispatch.next_match_id() == bobs.pk
    order = dispatch.queue_order()
    assert [(e.match_id, e.waiting_reason) for e in order] == [
        (bobs.pk, "next"),
        (alices_next.pk, "over_share"),
    ]
    assert dispatch.match_claim_next().match_id == bobs.pk  # type: ignore[union-attr]
    # Nobody else waits now: alice's match takes a free slot rather than leave it idle.
    assert dispatch.match_claim_next().match_id == alices_next.pk  # type: ignore[union-attr]


def test_the_share_is_the_slots_over_the_users_with_work_rounded_up() -> None:
    assert [dispatch.fair_share(s, u) for s, u in ((8, 3), (1000, 7), (2, 5), (4, 0))] == [
        3,
        143,
        1,
        4,
    ]


def test_the_queue_view_says_a_lower_class_waits_for_a_higher_one(
    greedy, randomer, alice, bob
) -> None:
    ladder = _match(greedy, randomer, priority=Match.Priority.RATED_PLAY, age_s=100)
    first = _match(greedy, randomer, user=alice, age_s=5)
    second = _match(greedy, randomer, user=bob, age_s=1)
    assert [(e.match_id, e.waiting_reason) for e in dispatch.queue_order()] == [
        (first.pk, "next"),
        (second.pk, "fair_share"),
        (ladder.pk, "higher_class"),
    ]


def test_a_slot_never_gives_up_while_a_claimable_match_waits(greedy, randomer, monkeypatch) -> None:
    wanted = _match(greedy, randomer)
    real = dispatch.match_claim
    losses = iter(range(20))  # more lost races than any bound a slot had

    def lose_twenty_times(match_id, **kw):  # type: ignore[no-untyped-def]
        return None if next(losses, None) is not None else real(match_id, **kw)

    monkeypatch.setattr(dispatch, "match_claim", lose_twenty_times)
    claim = dispatch.match_claim_next(worker="me")
    assert claim is not None and claim.match_id == wanted.pk


def test_window_usage_is_summed_in_the_database_for_running_and_ended_matches(
    greedy, randomer, alice, django_assert_max_num_queries
) -> None:
    for seconds in (100, 200):
        _ran(_match(greedy, randomer, user=alice), seconds)
    _ran(_match(greedy, randomer, user=alice), 50, running=True)
    with django_assert_max_num_queries(2):
        used = dispatch.usage_seconds({alice.pk, None}, timezone.now())
    assert 349 < used[alice.pk] < 352 and used[None] == 0


@pytest.mark.django_db(transaction=True)
def test_a_claim_takes_the_next_row_while_another_slot_holds_the_first(greedy, randomer) -> None:
    import threading

    from django.db import connection, transaction

    if connection.vendor != "postgresql":
        pytest.skip("row locks (SKIP LOCKED) are PostgreSQL's; SQLite serialises writers")
    first, second = _match(greedy, randomer, age_s=2), _match(greedy, randomer, age_s=1)
    locked, release = threading.Event(), threading.Event()

    def another_slot_claiming() -> None:
        with transaction.atomic():
            list(Match.objects.select_for_update().filter(pk=first.pk))
            locked.set()
            release.wait(10)
        connection.close()

    holder = threading.Thread(target=another_slot_claiming)
    holder.start()
    assert locked.wait(10)
    try:
        claim = dispatch.match_claim_next(worker="me")  # does not wait for the held row
    finally:
        release.set()
        holder.join()
    assert claim is not None and claim.match_id == second.pk
    assert Match.objects.get(pk=first.pk).status == "pending"
