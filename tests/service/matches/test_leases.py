"""Claims and leases: the conditional UPDATE decides who plays a match."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from arena.matches.leases import Claim, match_claim, match_release, match_renew_lease
from arena.matches.models import Match

pytestmark = pytest.mark.django_db


@pytest.fixture
def match(greedy, randomer):  # type: ignore[no-untyped-def]
    return Match.objects.create(
        variant="bao-la-kete", time_control="2+0.1", engine_a=greedy, engine_b=randomer, seed=7
    )


def test_a_pending_match_is_claimed_once_with_a_lease(match) -> None:
    before = timezone.now()
    claim = match_claim(match.pk, lease_seconds=60)
    assert claim is not None
    assert claim.attempts == 1 and len(claim.token) == 32
    match.refresh_from_db()
    assert match.status == "running"
    assert match.lease_token == claim.token
    assert (
        before + timedelta(seconds=59)
        < match.lease_expires_at
        <= timezone.now() + timedelta(seconds=60)
    )
    assert match.started_at is not None
    assert match_claim(match.pk, lease_seconds=60) is None


def test_a_running_match_with_a_live_lease_is_not_claimed(match) -> None:
    first = match_claim(match.pk, lease_seconds=60)
    assert first is not None
    assert match_claim(match.pk, lease_seconds=60) is None
    match.refresh_from_db()
    assert match.attempts == 1 and match.lease_token == first.token


def test_an_expired_lease_is_reclaimed_with_a_new_token(match) -> None:
    first = match_claim(match.pk, lease_seconds=60)
    started = Match.objects.get(pk=match.pk).started_at
    Match.objects.filter(pk=match.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    second = match_claim(match.pk, lease_seconds=60)
    assert second is not None and first is not None
    assert second.token != first.token and second.attempts == 2
    match.refresh_from_db()
    assert match.lease_token == second.token
    assert match.started_at == started  # the first start is kept
    # The old holder has lost the lease: it can neither renew nor release.
    assert match_renew_lease(first) is False
    assert match_release(first, "x") is False
    assert match_renew_lease(second) is True


@pytest.mark.parametrize("status", ["finished", "aborted"])
def test_a_finished_or_aborted_match_is_never_claimed_again(match, status: str) -> None:
    Match.objects.filter(pk=match.pk).update(status=status, lease_expires_at=None)
    assert match_claim(match.pk, lease_seconds=60) is None
    match.refresh_from_db()
    assert match.status == status and match.attempts == 0


def test_a_match_out_of_attempts_is_not_claimed(match, settings) -> None:
    settings.BAO_MATCH_MAX_ATTEMPTS = 2
    Match.objects.filter(pk=match.pk).update(attempts=2)
    assert match_claim(match.pk, lease_seconds=60) is None


def test_an_unknown_match_is_not_claimed(db) -> None:
    assert match_claim(987654, lease_seconds=60) is None


def test_renewing_moves_the_expiry_forward(match) -> None:
    claim = match_claim(match.pk, lease_seconds=60)
    assert claim is not None
    Match.objects.filter(pk=match.pk).update(lease_expires_at=timezone.now() + timedelta(seconds=5))
    assert match_renew_lease(Claim(match.pk, claim.token, claim.attempts, 600)) is True
    match.refresh_from_db()
    assert match.lease_expires_at > timezone.now() + timedelta(seconds=590)


def test_releasing_returns_the_match_to_pending_with_the_error(match) -> None:
    claim = match_claim(match.pk, lease_seconds=60)
    assert claim is not None
    assert match_release(claim, "SandboxError: bwrap failed") is True
    match.refresh_from_db()
    assert (match.status, match.lease_token, match.lease_expires_at) == ("pending", "", None)
    assert match.error == "SandboxError: bwrap failed" and match.attempts == 1
    again = match_claim(match.pk, lease_seconds=60)
    assert again is not None and again.attempts == 2
