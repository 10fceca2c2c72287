"""A hung database with real workers (issue 30): a worker that plays on through an outage
longer than its lease keeps its match, logs the outage once, and nothing is taken over.

The worker reaches PostgreSQL through a relay in this process that stops forwarding (packets
dropped, nothing closed); the recovery scan runs in this process, which reaches the database
directly, and a second worker stands by to take any match the scan offers. PostgreSQL runs
only (CI's server); elsewhere the test skips.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from arena.celery_processes import database_url
from arena.matches.models import Game, Match
from arena.matches.services import match_create
from arena.matches.tasks import requeue_expired_leases

from ..e2e import figure, postgres_target, wait_for
from ..faults import TcpProxy, via_proxy
from .conftest import make_version

pytestmark = [pytest.mark.slow, pytest.mark.e2e]

THINKER = str(Path(__file__).parent / "engines" / "thinker.py")
LEASE_S = 5


@pytest.fixture
def relay() -> Any:
    relay = TcpProxy(postgres_target())
    yield relay
    relay.close()


def test_a_worker_playing_through_an_outage_longer_than_its_lease_keeps_its_match(
    live_worker, arena_user, relay, settings
) -> None:
    settings.BAO_MATCH_LEASE_SECONDS = LEASE_S  # every process of a deployment agrees on it
    thinker = make_version(arena_user, "thinker", THINKER)
    other = make_version(arena_user, "thinker2", THINKER)  # 0.15 s a move on both sides
    playing = live_worker(
        DATABASE_URL=via_proxy(database_url(), relay), BAO_MATCH_LEASE_SECONDS=str(LEASE_S)
    )
    match = match_create(engine_a=thinker, engine_b=other, variant="kingulu", time_control="60+1")
    wait_for(lambda: Match.objects.get(pk=match.pk).status == "running", 30, "the claim")
    time.sleep(2 * LEASE_S / 3 + 1)  # renewed at least once: the lease clock is beating
    relay.stall()
    stalled = time.monotonic()
    live_worker(BAO_MATCH_LEASE_SECONDS=str(LEASE_S))  # a second worker, ready to take over
    time.sleep(max(0.0, stalled + LEASE_S + 4 - time.monotonic()))  # every lease has expired
    before = Match.objects.get(pk=match.pk)
    assert before.status == "running", "the match ended before the outage: make it longer"
    assert before.lease_expires_at is not None and before.lease_expires_at < timezone.now()
    requeue_expired_leases()  # offers the match: the standby claims nothing within the grace
    time.sleep(3)
    assert Match.objects.get(pk=match.pk).lease_token == before.lease_token
    back = time.monotonic()
    relay.flow()

    def renewed() -> bool:
        now = Match.objects.get(pk=match.pk)
        return now.status != "running" or (now.lease_expires_at or now.created_at) > (
            before.lease_expires_at
        )

    wait_for(renewed, 10, "the playing worker's renewal")
    figure("database back -> lease renewed by the playing worker", time.monotonic() - back)
    requeue_expired_leases()
    done = wait_for(
        lambda: Match.objects.filter(pk=match.pk, status__in=("finished", "aborted")).first(),
        120,
        "the match",
    )
    assert (done.status, done.attempts, done.worker) == ("finished", 1, playing.node)
    assert Game.objects.filter(match=match).count() in (2, 3)
    log = playing.log_text()
    assert log.count("database unavailable for ") == 1, log[-4000:]
    assert "Traceback" not in log and "lease lost" not in log, log[-4000:]
