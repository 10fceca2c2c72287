"""After a database outage longer than the lease, a worker still playing keeps its match: no
expired lease is taken over until the workers had time to renew (the lease clock); and the
workers run the recovery scan themselves when beat is late, one at a time (issue 30)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from arena.matches.leases import (
    TAKEOVER_GRACE_S,
    claimable,
    lease_clock_beat,
    match_claim,
    match_renew_lease,
)
from arena.matches.models import LeaseClock, Match
from arena.matches.recovery import matches_recover_if_beat_is_late

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(monkeypatch) -> list[dict]:  # type: ignore[type-arg]
    """Captures run_match messages instead of sending them to a broker."""
    from arena.matches import tasks

    calls: list[dict] = []  # type: ignore[type-arg]
    monkeypatch.setattr(tasks.run_match, "apply_async", lambda **kw: calls.append(kw))
    return calls


def _running(a, b, expires):  # type: ignore[no-untyped-def]
    match = Match.objects.create(
        engine_a=a, engine_b=b, variant="bao-la-kete", time_control="2+0.1", seed=1
    )
    claim = match_claim(match.pk, lease_seconds=30)
    assert claim is not None
    Match.objects.filter(pk=match.pk).update(lease_expires_at=expires)
    return claim


def _claimable_at(when, claim) -> bool:  # type: ignore[no-untyped-def]
    return Match.objects.filter(claimable(when), pk=claim.match_id).exists()


def test_after_an_outage_a_worker_that_renews_at_once_keeps_its_match(greedy, randomer) -> None:
    now = timezone.now()
    lease_clock_beat(now - timedelta(seconds=60))  # the last beat before a 60 s outage
    claim = _running(greedy, randomer, now - timedelta(seconds=30))  # expired in the outage
    assert _claimable_at(now, claim) is False  # a silent clock: nobody has beaten yet
    assert lease_clock_beat(now) is True  # the first beat after it sees the outage
    grace = now + timedelta(seconds=TAKEOVER_GRACE_S - 1)
    assert _claimable_at(grace, claim) is False
    assert match_renew_lease(claim) is True  # the worker's keeper, at its first query
    assert _claimable_at(now + timedelta(seconds=TAKEOVER_GRACE_S + 1), claim) is False


def test_a_dead_workers_match_is_taken_over_once_the_grace_has_passed(greedy, randomer) -> None:
    now = timezone.now()
    lease_clock_beat(now - timedelta(seconds=60))
    claim = _running(greedy, randomer, now - timedelta(seconds=30))
    assert lease_clock_beat(now) is True
    assert _claimable_at(now + timedelta(seconds=TAKEOVER_GRACE_S + 1), claim) is True


def test_an_idle_spell_is_not_an_outage(greedy, randomer) -> None:
    now = timezone.now()
    lease_clock_beat(now - timedelta(seconds=600))
    assert lease_clock_beat(now) is False  # nothing was running: nothing expired meanwhile
    claim = _running(greedy, randomer, now - timedelta(seconds=1))
    assert _claimable_at(now, claim) is True


def test_without_a_clock_expired_leases_are_claimable_as_before(greedy, randomer) -> None:
    claim = _running(greedy, randomer, timezone.now() - timedelta(seconds=1))
    assert not LeaseClock.objects.exists() and _claimable_at(timezone.now(), claim) is True


def test_workers_scan_only_when_beat_is_late_and_one_at_a_time(greedy, randomer, sent) -> None:
    claim = _running(greedy, randomer, timezone.now() - timedelta(seconds=1))
    report = matches_recover_if_beat_is_late()  # no scan ever: this worker scans
    assert report is not None and report.requeued == [claim.match_id]
    assert sent == [{"args": [claim.match_id], "countdown": None}]
    assert matches_recover_if_beat_is_late() is None  # just scanned: the next worker does not
    LeaseClock.objects.update(scanned_at=timezone.now() - timedelta(seconds=25))
    assert matches_recover_if_beat_is_late() is not None  # beat late again: one worker scans
    assert matches_recover_if_beat_is_late() is None
