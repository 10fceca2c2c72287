"""Recovery with real worker processes (issue 11): database outages before a claim and as a
match ends, ``kill -9`` of a worker and of its pool child, a hung referee, a cancelled
tournament's running match, and an upload made while the broker is down.

Outages are made through a TCP proxy in front of the test database (PostgreSQL runs only) and
on a private ``redis-server``; the machine's shared servers are never touched. Each test prints
its measured times (``[figure]`` lines, ``-s`` to see them); bounds are generous.
"""

from __future__ import annotations

import os
import signal
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from arena.celery_processes import (
    BeatProcess,
    WorkerProcess,
    database_url,
    process_tree,
    worker_environment,
)
from arena.matches.models import Game, Match
from arena.matches.periodic import ensure_periodic_tasks
from arena.matches.services import match_create
from arena.matches.tasks import requeue_expired_leases

from ..e2e import figure, postgres_target, wait_for
from ..faults import PrivateRedis, TcpProxy, broker_switched, via_proxy
from .conftest import make_version

pytestmark = [pytest.mark.slow, pytest.mark.e2e]

THINKER = str(Path(__file__).parent / "engines" / "thinker.py")
HANG_LAUNCHER = Path(__file__).parent / "hang_worker.py"


def _engines_of(worker: WorkerProcess) -> int:
    """Processes of the worker beyond its main process, pool children and beat pool
    (engines)."""
    return len(worker.tree()) - 1 - len(worker.children())


def _state(match: Match) -> dict[str, Any]:
    return (
        Match.objects.filter(pk=match.pk)
        .values("status", "attempts", "worker", "error", "lease_expires_at")
        .first()
        or {}
    )


@pytest.fixture
def proxy() -> Any:
    proxy = TcpProxy(postgres_target())
    yield proxy
    proxy.close()


def test_a_database_outage_while_matches_are_queued_loses_nothing(
    live_worker, arena_user, proxy
) -> None:
    from tournaments.services import tournament_create, tournament_start

    for name, script in (
        ("greedy", "greedy"),
        ("random", "random"),
        ("greedy2", "greedy"),
        ("random2", "random"),
    ):
        make_version(arena_user, name, script)
    worker = live_worker(DATABASE_URL=via_proxy(database_url(), proxy))
    proxy.cut()
    tournament = tournament_create(
        name="outage",
        variant="kete",
        time_control="2+0.05",
        engines=["greedy", "random", "greedy2", "random2"],
    )
    assert tournament_start(tournament.pk)
    matches = Match.objects.filter(tournament=tournament)
    # The worker takes a message, cannot claim, and keeps it while it retries.
    assert worker.wait_for_log("the database is unavailable", 20), worker.log_text()[-3000:]
    time.sleep(12)
    assert set(matches.values_list("status", "attempts")) == {("pending", 0)}
    back = time.monotonic()
    proxy.restore()
    first = wait_for(lambda: matches.exclude(status="pending").exists(), 60, "a first claim")
    figure("database back -> first claim", time.monotonic() - back)
    assert first
    wait_for(
        lambda: not matches.exclude(status__in=("finished", "aborted")).exists(),
        120,
        "the tournament's matches",
    )
    figure("database back -> all 6 matches recorded", time.monotonic() - back)
    assert set(matches.values_list("status", "attempts")) == {("finished", 1)}
    for match in matches:
        games = Game.objects.filter(match=match)
        assert games.count() in (2, 3) and games.values("index").distinct().count() == games.count()


def test_a_match_that_ends_during_a_database_outage_keeps_its_games(
    live_worker, arena_user, greedy, proxy
) -> None:
    thinker = make_version(arena_user, "thinker", THINKER)
    worker = live_worker(DATABASE_URL=via_proxy(database_url(), proxy))
    match = match_create(
        engine_a=thinker, engine_b=greedy, variant="kingulu", time_control="30+0.5"
    )
    wait_for(lambda: _state(match)["status"] == "running", 30, "the claim")
    time.sleep(1)
    proxy.cut()
    cut = time.monotonic()
    # The referee plays on; the record cannot be written, and is retried.
    assert worker.wait_for_log("recording the result failed", 60), worker.log_text()[-3000:]
    figure("outage -> match over, record waiting", time.monotonic() - cut)
    time.sleep(5)
    back = time.monotonic()
    proxy.restore()
    wait_for(lambda: _state(match)["status"] == "finished", 60, "the recorded result")
    figure("database back -> result recorded", time.monotonic() - back)
    state = _state(match)
    assert (state["status"], state["attempts"], state["error"]) == ("finished", 1, "")
    assert Game.objects.filter(match=match).count() == 2  # thinker loses both (measured)


def _start_beat(worker: WorkerProcess, tmp_path: Path) -> BeatProcess:
    ensure_periodic_tasks()  # the flush between transactional tests removed the migration's row
    beat = BeatProcess.start(
        env=worker_environment(CELERY_TASK_DEFAULT_QUEUE=worker.queue),
        log_path=tmp_path / "beat.log",
    )
    beat.wait_ready(timeout=60)
    return beat


def test_a_killed_workers_match_is_finished_by_another_within_120_s(
    live_worker, arena_user, greedy, tmp_path
) -> None:
    thinker = make_version(arena_user, "thinker", THINKER)
    workers = [live_worker(), live_worker()]
    beat = _start_beat(workers[0], tmp_path)
    try:
        match = match_create(
            engine_a=thinker, engine_b=greedy, variant="kete", time_control="30+0.5"
        )
        holder_node = wait_for(lambda: _state(match)["worker"], 30, "the claim")
        holder = next(w for w in workers if w.node == holder_node)
        other = next(w for w in workers if w is not holder)
        wait_for(lambda: _engines_of(holder) >= 2, 20, "the engines")
        time.sleep(2)
        doomed = holder.tree()
        holder.kill()
        killed = time.monotonic()
        wait_for(lambda: not any(p.alive() for p in doomed), 15, "the dead worker's processes")
        wait_for(lambda: _state(match)["worker"] == other.node, 90, "the take-over")
        figure("kill -9 worker -> match claimed again", time.monotonic() - killed)
        wait_for(lambda: _state(match)["status"] == "finished", 120, "the replayed match")
        took = time.monotonic() - killed
        figure("kill -9 worker -> match finished elsewhere (30+0.5)", took)
        assert took < 120
        assert _state(match)["attempts"] == 2
        assert Game.objects.filter(match=match).count() == 2
    finally:
        beat.stop()


def test_a_killed_pool_childs_redelivered_message_waits_for_the_lease_and_plays(
    live_worker, arena_user, greedy
) -> None:
    thinker = make_version(arena_user, "thinker", THINKER)
    worker = live_worker(BAO_MATCH_LEASE_SECONDS="10")
    match = match_create(engine_a=thinker, engine_b=greedy, variant="kete", time_control="30+0.5")
    wait_for(lambda: _state(match)["status"] == "running", 30, "the claim")
    wait_for(lambda: _engines_of(worker) >= 2, 20, "the engines")
    time.sleep(2)
    (child,) = worker.pool_children()
    doomed = process_tree(child)  # the pool child and the engines it started
    assert len(doomed) >= 3
    os.kill(child, signal.SIGKILL)
    killed = time.monotonic()
    wait_for(lambda: not any(p.alive() for p in doomed), 15, "the dead child's engines")
    # No requeue job runs here: the broker's redelivery itself waits for the lease to expire.
    wait_for(lambda: _state(match)["attempts"] == 2, 60, "the second claim")
    figure("kill -9 pool child -> claimed again (lease 10 s)", time.monotonic() - killed)
    wait_for(lambda: _state(match)["status"] == "finished", 90, "the replayed match")
    figure("kill -9 pool child -> match finished", time.monotonic() - killed)
    assert "skipped" not in worker.log_text().split("SIGKILL")[-1]


def test_a_hung_referee_loses_its_lease_and_its_engines(live_worker, arena_user, greedy) -> None:
    import sys

    thinker = make_version(arena_user, "thinker", THINKER)
    hung = live_worker(launcher=[sys.executable, str(HANG_LAUNCHER)], BAO_MATCH_LEASE_SECONDS="6")
    match = match_create(engine_a=thinker, engine_b=greedy, variant="kete", time_control="30+0.5")
    wait_for(lambda: _state(match)["status"] == "running", 30, "the claim")
    assert hung.wait_for_log("hang_worker: the referee hangs now", 30), hung.log_text()[-3000:]
    hung_at = time.monotonic()
    assert _engines_of(hung) >= 2
    healthy = live_worker(BAO_MATCH_LEASE_SECONDS="6")
    # The keeper stops renewing a silent loop; the requeue job hands the match to the other.
    wait_for(lambda: requeue_expired_leases()["requeued"] == [match.pk], 30, "an expired lease")
    figure("referee hung -> lease expired and requeued", time.monotonic() - hung_at)
    wait_for(lambda: _engines_of(hung) == 0, 10, "the hung worker's engines killed")
    figure("referee hung -> its engines killed", time.monotonic() - hung_at)
    assert hung.wait_for_log("lease lost; stopping it", 5)
    wait_for(lambda: _state(match)["status"] == "finished", 90, "the match on the other worker")
    state = _state(match)
    assert (state["worker"], state["attempts"]) == (healthy.node, 2)


def test_a_cancelled_tournaments_running_match_stops_in_about_two_seconds(
    live_worker, arena_user, greedy
) -> None:
    from tournaments.services import tournament_cancel, tournament_create, tournament_start

    make_version(arena_user, "thinker", THINKER)
    worker = live_worker()
    tournament = tournament_create(
        name="to cancel", variant="kete", time_control="30+0.5", engines=["thinker", "greedy"]
    )
    assert tournament_start(tournament.pk)
    match = Match.objects.get(tournament=tournament)
    wait_for(lambda: _state(match)["status"] == "running", 30, "the claim")
    wait_for(lambda: _engines_of(worker) >= 2, 20, "the engines")
    time.sleep(1)
    asked = time.monotonic()
    assert tournament_cancel(tournament.pk, reason="stopped by the organiser") == 1
    wait_for(lambda: _engines_of(worker) == 0, 10, "no engine left", step=0.05)
    took = time.monotonic() - asked
    figure("tournament cancelled -> running match's engines gone", took)
    assert took < 5
    state = _state(match)
    assert (state["status"], state["error"]) == (
        "aborted",
        "tournament cancelled: stopped by the organiser",
    )
    time.sleep(1.5)  # the worker records nothing for it
    assert Game.objects.filter(match=match).count() == 0
    assert worker.wait_for_log("lease lost; stopping it", 5)


ENGINE_SCRIPT = b"""#!/usr/bin/env python3
import sys
from engines.sdk import run

sys.exit(run(lambda position, legal_moves, clock: legal_moves[0], name="late", author="tests"))
"""


def test_an_upload_made_while_the_broker_is_down_is_validated_after_it(
    live_worker, alice_client, tmp_path, settings
) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    from engines.models import EngineVersion

    broker = PrivateRedis(tmp_path / "redis")
    broker.start()
    try:
        with broker_switched(broker.url):
            live_worker(CELERY_BROKER_URL=broker.url)
            broker.stop()
            upload = SimpleUploadedFile("late.py", ENGINE_SCRIPT)
            posted = time.monotonic()
            response = alice_client.post(
                "/api/engines/", {"name": "late", "file": upload}, format="multipart"
            )
            figure("upload answered with the broker down", time.monotonic() - posted)
            assert response.status_code == 201, response.json()
            version = EngineVersion.objects.get(engine__name="late")
            assert (version.status, version.validation_queued_at) == ("pending", None)
            broker.start()
            back = time.monotonic()
            # The requeue job (beat) sends it once the upload is older than the grace.
            EngineVersion.objects.filter(pk=version.pk).update(
                created_at=timezone.now() - timedelta(minutes=1)
            )
            wait_for(
                lambda: (
                    requeue_expired_leases()
                    and EngineVersion.objects.get(pk=version.pk).validation_queued_at
                ),
                30,
                "the validation sent",
            )
            wait_for(
                lambda: EngineVersion.objects.get(pk=version.pk).status == "active",
                60,
                "the validation",
            )
            figure("broker back -> upload validated", time.monotonic() - back)
    finally:
        broker.stop()


def test_a_warm_shutdown_hands_the_running_match_back_at_once(
    live_worker, arena_user, greedy
) -> None:
    thinker = make_version(arena_user, "thinker", THINKER)
    leaving = live_worker()
    match = match_create(engine_a=thinker, engine_b=greedy, variant="kete", time_control="30+0.5")
    wait_for(lambda: _state(match)["status"] == "running", 30, "the claim")
    wait_for(lambda: _engines_of(leaving) >= 2, 20, "the engines")
    keep = {leaving.pid, *leaving.children()}
    engines = {p for p in leaving.tree() if p.pid not in keep}
    asked = time.monotonic()
    os.kill(leaving.pid, signal.SIGTERM)  # as `docker compose stop` does: the main process only
    leaving.popen.wait(timeout=30)
    figure("SIGTERM -> worker exited, match handed back", time.monotonic() - asked)
    assert not any(p.alive() for p in engines)
    state = _state(match)
    assert (state["status"], state["attempts"]) == ("pending", 0)
    assert state["error"] == f"handed back by {leaving.node} (shutting down)"
    taker = live_worker()
    wait_for(lambda: _state(match)["status"] == "finished", 90, "the match on the next worker")
    assert (_state(match)["worker"], _state(match)["attempts"]) == (taker.node, 1)
