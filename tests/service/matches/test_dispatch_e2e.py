"""The dispatcher with a real worker (issue 12): one user's long gauntlet delays another user's
challenge by at most the match already running; a tournament created while lower-class matches
wait starts on the next free slot; a worker's slots follow the host's cores. Prints its measured
times (``[figure]`` lines)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from arena.capacity import MAX_SLOTS_PER_CORE, host_cores
from arena.matches.models import Match
from arena.matches.services import match_challenge, match_create

from ..e2e import figure, wait_for
from .conftest import make_version

pytestmark = [pytest.mark.slow, pytest.mark.e2e]

THINKER = str(Path(__file__).parent / "engines" / "thinker.py")
HOLDER = str(Path(__file__).parent / "engines" / "holder.py")


def _started(match: Match) -> bool:
    return Match.objects.filter(pk=match.pk).exclude(started_at=None).exists()


def test_a_long_gauntlet_delays_another_users_challenge_by_one_match_at_most(
    live_worker, alice, bob, arena_user
) -> None:
    from tournaments.services import tournament_create, tournament_start

    make_version(alice, "alice-thinker", THINKER)
    for name, script in (
        ("greedy", "greedy"),
        ("random", "random"),
        ("greedy2", "greedy"),
        ("random2", "random"),
    ):
        make_version(arena_user, name, script)
    make_version(bob, "bob-greedy", "greedy")
    live_worker(concurrency=1)
    gauntlet = tournament_create(
        name="alice's gauntlet",
        variant="kingulu",
        time_control="30+0.5",
        format="gauntlet",
        engines=["alice-thinker", "greedy", "random", "greedy2", "random2"],
        rated=False,
        created_by=alice,
    )
    assert tournament_start(gauntlet.pk)
    alices = Match.objects.filter(tournament=gauntlet)
    assert set(alices.values_list("submitter_id", flat=True)) == {alice.pk}
    wait_for(lambda: alices.filter(status="running").exists(), 30, "the gauntlet's first match")
    challenge = match_challenge(
        user=bob,
        engine="bob-greedy",
        opponent="random",
        variant="kete",
        time_control="2+0.05",
        rated=False,
    )
    wait_for(lambda: _started(challenge), 60, "bob's challenge to start")
    challenge.refresh_from_db()
    waited = (challenge.started_at - challenge.created_at).total_seconds()
    figure("bob's challenge waited (one gauntlet match was running)", waited)
    # Only the match already running when bob asked went before him: no gauntlet match started
    # while he waited (one may have started and ended before he asked, if it ended early), and
    # the one running when he asked had finished when his started (one slot).
    waiting = alices.filter(
        started_at__gt=challenge.created_at, started_at__lt=challenge.started_at
    )
    assert not waiting.exists(), list(waiting.values_list("pk", "started_at"))
    running = alices.filter(started_at__lte=challenge.created_at).order_by("-started_at").first()
    assert running is not None
    assert running.finished_at is not None and running.finished_at <= challenge.started_at
    wait_for(lambda: Match.objects.get(pk=challenge.pk).status == "finished", 60, "the challenge")


def test_a_tournament_created_while_rated_play_waits_starts_on_the_next_free_slot(
    live_worker, arena_user, greedy, randomer
) -> None:
    from tournaments.services import tournament_create, tournament_start

    thinker = make_version(arena_user, "thinker", THINKER)
    ladder = [
        match_create(
            engine_a=thinker,
            engine_b=greedy,
            variant="kingulu",
            time_control="30+0.5",
            priority=Match.Priority.RATED_PLAY,
        )
        for _ in range(3)
    ]
    live_worker(concurrency=1)
    wait_for(lambda: any(_started(m) for m in ladder), 30, "the first rated-play match")
    tournament = tournament_create(
        name="cup", variant="kete", time_control="2+0.05", engines=["greedy", "random"], rated=False
    )
    assert tournament_start(tournament.pk)
    (round_one,) = Match.objects.filter(tournament=tournament)
    wait_for(lambda: _started(round_one), 60, "the tournament's first round")
    round_one.refresh_from_db()
    figure(
        "tournament created -> first round started",
        (round_one.started_at - round_one.created_at).total_seconds(),
    )
    # Only the one already running started before the round (no preemption either). The
    # round itself may be over by now and the next rated-play match started after it.
    before = Match.objects.filter(
        pk__in=[m.pk for m in ladder], started_at__lt=round_one.started_at
    )
    assert before.count() == 1
    assert before.get().status in ("running", "finished")


def test_a_workers_slots_follow_the_cores_and_too_many_are_refused_unless_forced(
    live_worker,
) -> None:
    cores = host_cores()
    default = live_worker(concurrency=None)
    assert f"concurrency: {cores} (prefork)" in default.log_text()
    default.stop()
    too_many = str(MAX_SLOTS_PER_CORE * cores + 1)
    refused = live_worker(concurrency=None, wait=False, BAO_WORKER_SLOTS=too_many)
    assert refused.popen.wait(timeout=60) != 0
    assert f"{too_many} match slots on {cores} cores" in refused.log_text()
    assert "BAO_WORKER_SLOTS_FORCE" in refused.log_text()
    forced = live_worker(concurrency=None, BAO_WORKER_SLOTS=too_many, BAO_WORKER_SLOTS_FORCE="1")
    assert f"concurrency: {too_many} (prefork)" in forced.log_text()
    started = time.monotonic()
    forced.stop()
    figure("forced worker stopped", time.monotonic() - started)


def test_a_beat_job_runs_at_once_while_every_match_slot_is_busy(
    live_worker, arena_user, greedy
) -> None:
    from arena.matches.services import match_cancel
    from arena.matches.tasks import requeue_expired_leases

    # The holder never moves: the match holds the only slot until this test cancels it (its
    # clock of 480 s, the most a worker may hold a kete match at no increment, outlasts every
    # wait below), however long the beat job takes on a loaded host (8.8 s was seen).
    holder = make_version(arena_user, "holder", HOLDER)
    worker = live_worker(concurrency=1)
    match = match_create(engine_a=holder, engine_b=greedy, variant="kete", time_control="480+0")
    wait_for(lambda: Match.objects.get(pk=match.pk).status == "running", 30, "the match")
    sent = time.monotonic()
    # Routed to the beat queue (settings.BAO_BEAT_QUEUE: this test's queue + ".beat").
    requeue_expired_leases.apply_async(queue=f"{worker.queue}.beat")
    assert worker.wait_for_log("requeue_expired_leases", 20), worker.log_text()[-3000:]
    assert worker.wait_for_log("succeeded", 20)
    figure("beat job done while the only match slot plays", time.monotonic() - sent)
    assert Match.objects.get(pk=match.pk).status == "running"
    assert "beat pool started" in worker.log_text()
    # Release the slot: the worker sees the lease gone within a second and kills the engines.
    assert match_cancel(match.pk, reason="the test is over")
    assert worker.wait_for_log(f"match {match.pk}: lease lost", 20), worker.log_text()[-3000:]
