"""Creating matches (validation codes, queueing on commit) and the requeue beat job."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from arena.matches import errors, recovery, services
from arena.matches.models import Match, WorkerNode
from arena.matches.periodic import REQUEUE_ENTRY, REQUEUE_TASK, ensure_periodic_tasks

from .conftest import make_version

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(monkeypatch) -> list[dict]:
    """Captures run_match messages instead of sending them to a broker."""
    from arena.matches import tasks

    calls: list[dict] = []
    monkeypatch.setattr(tasks.run_match, "apply_async", lambda **kw: calls.append(kw))
    return calls


def _create(a, b, **kw) -> Match:  # type: ignore[no-untyped-def]
    options = {"variant": "kete", "time_control": "2+0.1"} | kw
    return services.match_create(engine_a=a, engine_b=b, **options)


def test_it_creates_a_pending_match_and_queues_it_once_committed(
    greedy, randomer, sent, django_capture_on_commit_callbacks
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        match = _create(greedy, randomer, seed=42)
    match.refresh_from_db()
    assert (match.variant, match.time_control, match.seed, match.status) == (
        "bao-la-kete",
        "2+0.1",
        42,
        "pending",
    )
    # The message only wakes a slot (the match id is a hint); each match's own time limit is
    # enforced by its lease keeper, so the message carries none.
    assert sent == [{"args": [match.pk], "countdown": None}]
    assert match.queued_at is not None
    assert (match.priority, match.submitter_id) == (Match.Priority.INTERACTIVE, None)


def test_it_draws_a_seed_when_none_is_given(greedy, randomer, sent) -> None:
    match = _create(greedy, randomer)
    assert 0 <= match.seed < 2**31


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"variant": "chess"}, "unknown_variant"),
        ({"time_control": "fast"}, "invalid_time_control"),
        ({"time_control": "900+10"}, "time_control_too_long"),
    ],
)
def test_it_rejects_bad_parameters_with_stable_codes(greedy, randomer, kwargs, code) -> None:
    with pytest.raises(errors.ApiError) as info:
        _create(greedy, randomer, **kwargs)
    assert info.value.default_code == code
    assert Match.objects.count() == 0


def test_it_rejects_a_version_against_itself(greedy) -> None:
    with pytest.raises(errors.SameEngine):
        _create(greedy, greedy)


def test_it_accepts_two_versions_of_one_engine(arena_user, sent) -> None:
    v1 = make_version(arena_user, "search", "search", number=1)
    v2 = make_version(arena_user, "search", "search", number=2)
    assert _create(v1, v2).engine_b_id == v2.pk


@pytest.mark.parametrize("status", ["pending", "rejected"])
def test_it_rejects_an_engine_that_is_not_active(arena_user, greedy, status) -> None:
    other = make_version(arena_user, "other", "random", status=status)
    with pytest.raises(errors.EngineNotActive) as info:
        _create(greedy, other)
    assert info.value.status_code == 409 and info.value.details == {"engine": "other", "version": 1}
    assert str(info.value.detail) == f"other v1 is not active (status {status})."


def test_it_rejects_an_engine_its_owner_disabled_with_its_own_code(arena_user, greedy) -> None:
    other = make_version(arena_user, "other", "random", enabled=False)
    with pytest.raises(errors.EngineDisabled) as info:
        _create(greedy, other)
    assert (info.value.status_code, info.value.default_code, info.value.details) == (
        409,
        "engine_disabled",
        {"engine": "other"},
    )
    assert str(info.value.detail) == "engine other is disabled by its owner."


def test_it_rejects_a_variant_the_engine_did_not_announce(arena_user, greedy) -> None:
    kete_only = make_version(arena_user, "kete-only", "random", variants=("bao-la-kete",))
    assert _create(greedy, kete_only).variant == "bao-la-kete"
    with pytest.raises(errors.VariantNotSupported) as info:
        _create(greedy, kete_only, variant="bao-kingulu")
    assert info.value.details == {"engine": "kete-only", "variant": "bao-kingulu"}


# --------------------------------------------------------------------------- requeue job


def _aged(match: Match, **fields) -> None:  # type: ignore[no-untyped-def]
    Match.objects.filter(pk=match.pk).update(**fields)


def test_the_requeue_job_sends_a_match_whose_worker_died(greedy, randomer, sent) -> None:
    match = _create(greedy, randomer)
    now = timezone.now()
    _aged(
        match,
        status="running",
        attempts=1,
        lease_token="dead",
        queued_at=now - timedelta(minutes=5),
        lease_expires_at=now - timedelta(seconds=1),
    )
    report = recovery.matches_requeue_stale()
    assert (report.requeued, report.aborted) == ([match.pk], [])
    assert [c["args"] for c in sent] == [[match.pk]]
    # Queued again after the expiry: the next run of the job leaves it alone.
    assert recovery.matches_requeue_stale().requeued == []
    assert len(sent) == 1


def test_the_requeue_job_leaves_live_leases_and_fresh_matches_alone(greedy, randomer, sent) -> None:
    live = _create(greedy, randomer)
    _aged(
        live,
        status="running",
        attempts=1,
        lease_token="t",
        lease_expires_at=timezone.now() + timedelta(minutes=1),
    )
    fresh = _create(greedy, randomer)  # pending, not queued yet, created just now
    queued = _create(greedy, randomer)
    _aged(queued, queued_at=timezone.now() - timedelta(minutes=1))  # waiting in a busy queue
    finished = _create(greedy, randomer)
    _aged(finished, status="finished", lease_expires_at=timezone.now() - timedelta(hours=1))
    assert recovery.matches_requeue_stale() == recovery.RequeueReport([], [], [])
    assert sent == [] and fresh.pk


def test_the_requeue_job_sends_a_pending_match_that_was_never_queued(
    greedy, randomer, sent
) -> None:
    match = _create(greedy, randomer)
    _aged(match, created_at=timezone.now() - timedelta(seconds=recovery.UNQUEUED_GRACE_S + 5))
    assert recovery.matches_requeue_stale().requeued == [match.pk]
    assert Match.objects.get(pk=match.pk).queued_at is not None


def test_the_requeue_job_aborts_a_match_out_of_attempts(greedy, randomer, sent, settings) -> None:
    settings.BAO_MATCH_MAX_ATTEMPTS = 3
    match = _create(greedy, randomer)
    _aged(
        match,
        status="running",
        attempts=3,
        lease_token="dead",
        lease_expires_at=timezone.now() - timedelta(seconds=1),
    )
    assert recovery.matches_requeue_stale() == recovery.RequeueReport([], [match.pk], [])
    match.refresh_from_db()
    assert (match.status, match.lease_token) == ("aborted", "")
    assert match.error == "gave up after 3 attempts: the worker was lost each time"
    assert sent == []


def test_the_requeue_job_is_registered_once_with_celery_beat() -> None:
    from django_celery_beat.models import PeriodicTask

    # The data migration registered it; the command repairs it without duplicating.
    assert PeriodicTask.objects.filter(name=REQUEUE_ENTRY).count() == 1
    PeriodicTask.objects.filter(name=REQUEUE_ENTRY).update(enabled=False)
    ensure_periodic_tasks()
    ensure_periodic_tasks()
    task = PeriodicTask.objects.get(name=REQUEUE_ENTRY)
    # Every 10 s (BAO_REQUEUE_SCAN_SECONDS): a dead worker's match is noticed within
    # about half a minute (30 s lease + one scan).
    assert (task.task, task.enabled, task.interval.every, task.interval.period) == (
        REQUEUE_TASK,
        True,
        10,
        "seconds",
    )


def test_the_requeue_job_sends_again_when_its_own_message_was_lost(
    greedy, randomer, sent, settings
) -> None:
    settings.BAO_LOST_MESSAGE_SECONDS = 180
    match = _create(greedy, randomer)
    now = timezone.now()
    # Requeued after its lease expired, and still unclaimed 4 min later.
    _aged(
        match,
        status="running",
        attempts=1,
        lease_token="dead",
        lease_expires_at=now - timedelta(minutes=30),
        queued_at=now - timedelta(minutes=4),
    )
    assert recovery.matches_requeue_stale().requeued == [match.pk]
    _aged(match, queued_at=now - timedelta(minutes=2))
    assert recovery.matches_requeue_stale().requeued == []


def test_pending_matches_queued_minutes_ago_are_sent_again_a_few_per_scan(
    greedy, randomer, sent, settings
) -> None:
    # Their messages may be lost (a broker restarted without its data) or they may only wait
    # behind others: a few messages per scan wake idle slots without flooding the broker.
    settings.BAO_LOST_MESSAGE_SECONDS = 180
    old = timezone.now() - timedelta(minutes=4)
    matches = [_create(greedy, randomer) for _ in range(recovery.LOST_BATCH + 2)]
    for i, match in enumerate(matches):
        _aged(match, queued_at=old + timedelta(seconds=i))
    first = recovery.matches_requeue_stale().requeued
    assert first == [m.pk for m in matches[: recovery.LOST_BATCH]]
    assert recovery.matches_requeue_stale().requeued == [m.pk for m in matches[-2:]]
    assert recovery.matches_requeue_stale().requeued == []


def test_long_queued_matches_wake_only_idle_slots(greedy, randomer, sent, settings) -> None:
    # A backlog behind busy slots is a live chain, not a lost one: re-waking it would add a
    # message per scan that chains on until the queue drains. Idle slots get one each.
    settings.BAO_LOST_MESSAGE_SECONDS = 180
    now = timezone.now()
    WorkerNode.objects.create(name="celery@a", slots=2, cores=2, started_at=now, last_seen=now)
    playing = [_create(greedy, randomer) for _ in range(2)]
    waiting = [_create(greedy, randomer) for _ in range(5)]
    for i, match in enumerate(waiting):
        _aged(match, queued_at=now - timedelta(minutes=4) + timedelta(seconds=i))
    Match.objects.filter(pk__in=[m.pk for m in playing]).update(
        status=Match.Status.RUNNING, lease_expires_at=now + timedelta(seconds=30)
    )
    assert recovery.matches_requeue_stale().requeued == []
    Match.objects.filter(pk=playing[0].pk).update(status=Match.Status.FINISHED)
    assert recovery.matches_requeue_stale().requeued == [waiting[0].pk]
