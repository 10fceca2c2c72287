"""A real worker killed with SIGKILL in the middle of a match: the match is played again by a
new worker and recorded exactly once, no engine of the dead worker survives, ratings count each
game once. Real broker, real worker processes, real sandbox (``BAO_SANDBOX_MODE`` of the
settings)."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from arena.matches.models import Game, Match
from arena.matches.services import match_create
from arena.matches.tasks import requeue_expired_leases, run_match

from .conftest import make_version

pytestmark = [pytest.mark.slow, pytest.mark.e2e]

LEASE_S = "10"


def _wait(predicate, timeout: float, what: str, step: float = 0.2):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def test_a_match_whose_worker_is_killed_is_replayed_and_recorded_exactly_once(
    live_worker, arena_user
) -> None:
    from ratings.models import Rating, RatingPoint

    old = make_version(arena_user, "search", "search", number=1)
    new = make_version(arena_user, "search", "search", number=2)
    first = live_worker(BAO_MATCH_LEASE_SECONDS=LEASE_S)
    match = match_create(
        engine_a=old, engine_b=new, variant="bao-la-kete", time_control="2+0.1", seed=7
    )

    # The first worker claims it and plays; wait until engines are thinking.
    _wait(
        lambda: Match.objects.filter(pk=match.pk, status="running").exists(), 60, "the first claim"
    )
    time.sleep(2)
    doomed = first.tree()
    engines = [p for p in doomed if p.pid not in (first.pid,)]
    assert len(engines) >= 3, f"expected the pool child and two engines, got {doomed}"
    assert Game.objects.filter(match=match).count() == 0

    first.kill()
    # --die-with-parent / pid namespaces: every process of the dead worker goes with it.
    _wait(lambda: not any(p.alive() for p in doomed), 15, "the dead worker's engines to exit")
    claimed = Match.objects.get(pk=match.pk)
    assert (claimed.status, claimed.attempts) == ("running", 1)

    second = live_worker(BAO_MATCH_LEASE_SECONDS=LEASE_S)
    _wait(
        lambda: (
            Match.objects.get(pk=match.pk).lease_expires_at
            < timezone.now() - timedelta(seconds=0.5)
        ),
        30,
        "the dead worker's lease to expire",
    )
    assert requeue_expired_leases() == {"requeued": [match.pk], "aborted": []}
    assert requeue_expired_leases() == {"requeued": [], "aborted": []}  # already queued again

    try:
        done = _wait(
            lambda: Match.objects.filter(pk=match.pk, status__in=("finished", "aborted")).first(),
            180,
            "the replayed match",
        )
    except AssertionError:
        state = Match.objects.filter(pk=match.pk).values().first()
        raise AssertionError(
            f"match not done: {state}\n--- second worker:\n{second.log_text()[-6000:]}"
        ) from None
    assert done.status == "finished", (
        f"{done.error}\n--- second worker:\n{second.log_text()[-6000:]}"
    )
    assert done.attempts == 2 and done.lease_token == ""
    games = list(Game.objects.filter(match=match).order_by("index"))
    assert [g.index for g in games] == list(range(1, len(games) + 1)) and len(games) in (2, 3)
    assert done.score_a + done.score_b == len(games)
    # Ratings: the worker's refit (after commit, debounced) counts each game once, for each
    # side, and leaves one history point per side.
    _wait(lambda: RatingPoint.objects.filter(match=match).count() == 2, 30, "the refit")
    for version in (old, new):
        assert Rating.objects.get(engine_version=version, variant="bao-la-kete").games == len(games)

    # The dead worker's message delivered again (broker redelivery): nothing changes.
    assert run_match.run(match.pk) == "skipped"
    assert Game.objects.filter(match=match).count() == len(games)
    assert RatingPoint.objects.filter(match=match).count() == 2
    # The live worker has no engine left running once the match is over.
    # Main process, pool child and beat pool remain; no engine.
    _wait(
        lambda: len(second.tree()) <= 1 + len(second.children()),
        15,
        "the second worker's engines to exit",
    )
