"""Row locks on PostgreSQL: stopping (or deciding) a test never waits for a match row that a
recording transaction holds, since that recording waits next for the test's own lock."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection, connections, transaction

from arena.matches.models import Match
from versiontests import services
from versiontests.models import VersionTestPair

pytestmark = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="SQLite has no row locks to wait for"
)


def test_a_stop_skips_the_match_a_recording_holds_and_aborts_the_others(
    transactional_db: None, alice: Any, settings: Any
) -> None:
    from tests.service.api.conftest import active_version

    settings.BAO_VERSION_TEST_PAIRS = 2
    active_version(alice, "alice1")
    active_version(alice, "alice1", number=2)
    test = services.version_test_create(
        user=alice, engine="alice1", variant="kete", time_control="5+0.05", elo0=0, elo1=20
    )
    held, other = (p.match_id for p in test.pairs.order_by("index"))
    locked, release = threading.Event(), threading.Event()

    def recording() -> None:
        # What match_record_result does first: the match row, locked until its commit.
        try:
            with transaction.atomic():
                Match.objects.select_for_update().get(pk=held)
                locked.set()
                release.wait(timeout=30)
        finally:
            connections.close_all()

    worker = threading.Thread(target=recording)
    worker.start()
    try:
        assert locked.wait(timeout=10)
        stopper = threading.Thread(
            target=lambda: (
                services.version_test_stop(test.pk, user=alice),
                connections.close_all(),
            )
        )
        stopper.start()
        stopper.join(timeout=10)
        assert not stopper.is_alive(), "the stop waited for the match a recording holds"
    finally:
        release.set()
        worker.join(timeout=10)
    statuses = dict(Match.objects.values_list("pk", "status"))
    assert (statuses[held], statuses[other]) == ("pending", "aborted")
    assert set(VersionTestPair.objects.values_list("state", flat=True)) == {"void"}
