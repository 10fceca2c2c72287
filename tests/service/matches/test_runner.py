"""Playing matches with the referee: exact replays, exactly-once recording, redelivery,
infrastructure faults retried then aborted."""

from __future__ import annotations

import json
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from django.db import connection
from django.utils import timezone

from arena.matches import runner
from arena.matches.models import Game, Match
from arena.rules import get_variant

GOLDEN = json.loads((Path(__file__).parent / "data" / "greedy-random-kete-seed7.json").read_text())


def _match(a, b, **kw) -> Match:  # type: ignore[no-untyped-def]
    fields = {"variant": "bao-la-kete", "time_control": "2+0.1", "seed": 7} | kw
    return Match.objects.create(engine_a=a, engine_b=b, **fields)


@pytest.mark.django_db
def test_a_real_match_is_recorded_with_the_exact_moves_of_the_bundled_engines(
    greedy, randomer, fast_referee
) -> None:
    match = _match(greedy, randomer)
    assert runner.execute_match(match.pk, config=fast_referee) == runner.RECORDED
    match.refresh_from_db()
    assert (match.status, match.score_a, match.score_b, match.winner_id) == (
        "finished",
        2.0,
        1.0,
        greedy.pk,
    )
    assert (match.lease_token, match.lease_expires_at, match.attempts) == ("", None, 1)
    games = list(match.games.order_by("index"))
    assert [g.index for g in games] == [1, 2, 3]
    variant = get_variant("bao-la-kete")
    for game, want in zip(games, GOLDEN["games"], strict=True):
        assert [m["move"] for m in game.moves] == want["moves"].split()
        assert (game.result, game.termination, game.plies, game.final_position) == (
            want["result"],
            want["termination"],
            want["plies"],
            want["final_position"],
        )
        assert game.rated is True
        # The stored replay is consistent: replaying the moves gives every stored position.
        position = variant.parse_position(game.start_position)
        assert position == variant.initial_position()
        for move in game.moves:
            position = variant.apply(position, move["move"])
            assert position.to_text() == move["position"]
            assert move["time_ms"] >= 0 and move["clock_ms"] > 0
        assert position.to_text() == game.final_position
    # Game 1: A South; game 2: B South; game 3: South drawn from seed 7 (A). South won each.
    assert [(g.south_id, g.north_id, g.winner_id) for g in games] == [
        (greedy.pk, randomer.pk, greedy.pk),
        (randomer.pk, greedy.pk, randomer.pk),
        (greedy.pk, randomer.pk, greedy.pk),
    ]
    assert games[0].finished_at < games[1].finished_at < games[2].finished_at


@pytest.mark.django_db
def test_a_one_game_decider_is_played_and_recorded_as_one_game(
    greedy, randomer, fast_referee
) -> None:
    match = _match(randomer, greedy, best_of=1)  # a knockout decider: A South, one game
    assert runner.execute_match(match.pk, config=fast_referee) == runner.RECORDED
    match.refresh_from_db()
    (game,) = match.games.all()
    assert (game.index, game.south_id, game.north_id) == (1, randomer.pk, greedy.pk)
    assert match.score_a is not None and match.score_a + match.score_b == 1.0


@pytest.mark.django_db
def test_the_same_task_delivered_twice_writes_one_result(greedy, randomer, fast_referee) -> None:
    match = _match(greedy, randomer)
    assert runner.execute_match(match.pk, config=fast_referee) == runner.RECORDED
    assert runner.execute_match(match.pk, config=fast_referee) == runner.SKIPPED
    assert Game.objects.filter(match=match).count() == 3
    assert Match.objects.get(pk=match.pk).attempts == 1


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_deliveries_write_one_result(greedy, randomer, fast_referee) -> None:
    match = _match(greedy, randomer)
    outcomes: list[str] = []
    barrier = threading.Barrier(2)

    def deliver() -> None:
        try:
            barrier.wait()
            outcomes.append(runner.execute_match(match.pk, config=fast_referee))
        finally:
            connection.close()

    threads = [threading.Thread(target=deliver) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(outcomes) == [runner.RECORDED, runner.SKIPPED]
    assert Game.objects.filter(match=match).count() == 3
    assert Match.objects.get(pk=match.pk).attempts == 1


@pytest.mark.django_db
def test_a_worker_that_lost_its_lease_records_nothing(
    greedy, randomer, fast_referee, monkeypatch
) -> None:
    match = _match(greedy, randomer)
    real_play = runner._play

    def play_then_lose_the_lease(m, config, *args):  # type: ignore[no-untyped-def]
        record = real_play(m, config, *args)
        # Meanwhile the lease expired and another worker claimed the match.
        Match.objects.filter(pk=m.pk).update(lease_token="someone-else")
        return record

    monkeypatch.setattr(runner, "_play", play_then_lose_the_lease)
    assert runner.execute_match(match.pk, config=fast_referee) == runner.LOST_LEASE
    assert Game.objects.filter(match=match).count() == 0
    assert Match.objects.get(pk=match.pk).status == "running"


def _sandbox_error() -> Exception:
    from engines.sandbox import SandboxError

    return SandboxError("bwrap: setting up uid map: Permission denied")


def _package_error() -> Exception:
    from engines.package import EnginePackageError

    return EnginePackageError("not_found", "the stored engine greedy/v1/upload/greedy is missing")


def _soft_limit() -> Exception:
    from celery.exceptions import SoftTimeLimitExceeded

    return SoftTimeLimitExceeded("SoftTimeLimitExceeded()")


@pytest.mark.django_db
@pytest.mark.parametrize("make_error", [_package_error, _soft_limit])
def test_other_infrastructure_faults_are_retried_too(
    greedy, randomer, fast_referee, monkeypatch, make_error
) -> None:
    error = make_error()
    monkeypatch.setattr(runner, "match_enqueue", lambda mid, countdown=None: True)
    monkeypatch.setattr(runner, "_play", lambda m, config, *args: (_ for _ in ()).throw(error))
    match = _match(greedy, randomer)
    assert runner.execute_match(match.pk, config=fast_referee) == runner.RETRY
    match.refresh_from_db()
    assert (match.status, match.attempts, match.error) == (
        "pending",
        1,
        f"{type(error).__name__}: {error}",
    )


@pytest.mark.django_db
def test_an_infrastructure_fault_is_retried_then_the_match_is_aborted(
    greedy, randomer, fast_referee, monkeypatch, settings
) -> None:
    from engines.sandbox import SandboxError

    settings.BAO_MATCH_MAX_ATTEMPTS = 2
    sent: list[tuple[int, float | None]] = []
    monkeypatch.setattr(
        runner, "match_enqueue", lambda mid, countdown=None: sent.append((mid, countdown)) or True
    )

    def broken(m, config, *args):  # type: ignore[no-untyped-def]
        raise SandboxError("bwrap: setting up uid map: Permission denied")

    monkeypatch.setattr(runner, "_play", broken)
    match = _match(greedy, randomer)
    assert runner.execute_match(match.pk, config=fast_referee) == runner.RETRY
    match.refresh_from_db()
    assert (match.status, match.attempts) == ("pending", 1)
    assert match.error == "SandboxError: bwrap: setting up uid map: Permission denied"
    assert sent == [(match.pk, runner.RETRY_DELAY_S)]
    # Held back for the retry delay: no slot claims it before.
    assert 8 < (match.available_at - timezone.now()).total_seconds() <= runner.RETRY_DELAY_S
    assert runner.execute_match(match.pk, config=fast_referee) == runner.SKIPPED
    Match.objects.filter(pk=match.pk).update(available_at=timezone.now())
    assert runner.execute_match(match.pk, config=fast_referee) == runner.ABORTED
    match.refresh_from_db()
    assert (match.status, match.attempts, match.lease_token) == ("aborted", 2, "")
    assert match.error == (
        "after 2 attempts: SandboxError: bwrap: setting up uid map: Permission denied"
    )
    assert match.games.count() == 0
    assert runner.execute_match(match.pk, config=fast_referee) == runner.SKIPPED


@pytest.mark.django_db
def test_a_referee_abort_on_the_last_attempt_keeps_its_games_unrated(
    greedy, randomer, fast_referee, monkeypatch, settings
) -> None:
    settings.BAO_MATCH_MAX_ATTEMPTS = 1
    real_play = runner._play

    def second_game_aborted(m, config, *args):  # type: ignore[no-untyped-def]
        record = real_play(m, config, *args)
        first, second = record.games[:2]  # the referee stops at an aborted game
        second = replace(
            second, result="*", winner=None, termination="aborted", detail="sandbox died"
        )
        return replace(record, games=[first, second], aborted=True)

    monkeypatch.setattr(runner, "_play", second_game_aborted)
    match = _match(greedy, randomer)
    assert runner.execute_match(match.pk, config=fast_referee) == runner.ABORTED
    match.refresh_from_db()
    assert (match.status, match.score_a, match.winner_id) == ("aborted", None, None)
    assert match.error == "game 2 aborted: sandbox died"
    assert [(g.index, g.termination, g.rated) for g in match.games.order_by("index")] == [
        (1, "bao_hamna", False),
        (2, "aborted", False),
    ]


@pytest.mark.django_db
@pytest.mark.slow
def test_a_match_plays_in_the_real_sandbox(greedy, randomer, settings) -> None:
    from engines.sandbox import probe

    settings.BAO_SANDBOX_MODE = "auto"
    # Where bubblewrap works, insist on it (a silent fallback would not test the full sandbox).
    settings.BAO_SANDBOX_REQUIRE_FULL = probe().bwrap_reason == ""
    match = _match(greedy, randomer)
    assert runner.execute_match(match.pk) == runner.RECORDED
    games = list(Match.objects.get(pk=match.pk).games.order_by("index"))
    # The sandbox changes nothing in the play: the same moves as without it.
    assert [[m["move"] for m in g.moves] for g in games] == [
        g["moves"].split() for g in GOLDEN["games"]
    ]


@pytest.mark.django_db
def test_an_engine_crash_is_a_lost_game_not_a_retry(arena_user, greedy, fast_referee) -> None:
    from .conftest import make_version

    referee_engines = Path(__file__).resolve().parents[2] / "referee" / "engines"
    crasher_script = referee_engines / "crash_on_move.py"
    crasher = make_version(arena_user, "crasher", str(crasher_script))
    match = _match(crasher, greedy)
    assert runner.execute_match(match.pk, config=fast_referee) == runner.RECORDED
    match.refresh_from_db()
    assert (match.status, match.attempts, match.score_a, match.score_b, match.winner_id) == (
        "finished",
        1,
        0.0,
        2.0,
        greedy.pk,
    )
    games = list(match.games.order_by("index"))
    # It dies on its 3rd "go" of a game: asked for ply 5 as South (4 plies played), for ply 6 as
    # North (5 plies played).
    assert [(g.index, g.termination, g.winner_id, g.rated, g.plies) for g in games] == [
        (1, "crash", greedy.pk, True, 4),
        (2, "crash", greedy.pk, True, 5),
    ]


@pytest.mark.django_db(transaction=True)
def test_the_keeper_renews_the_lease_while_the_referee_loop_checks_in(greedy, randomer) -> None:
    from datetime import timedelta

    from arena.matches.keeper import LeaseKeeper
    from arena.matches.leases import match_claim
    from arena.referee import MatchControl

    match = _match(greedy, randomer)
    claim = match_claim(match.pk, lease_seconds=30)
    assert claim is not None
    Match.objects.filter(pk=match.pk).update(lease_expires_at=timezone.now() + timedelta(seconds=1))
    control = MatchControl()
    keeper = LeaseKeeper(claim, control, poll_s=0.05, renew_s=0.05)
    keeper.start()
    try:
        deadline = timezone.now() + timedelta(seconds=10)
        while Match.objects.get(pk=match.pk).lease_expires_at < timezone.now() + timedelta(
            seconds=20
        ):
            control.check()  # the referee loop is alive
            assert timezone.now() < deadline, "the keeper never renewed the lease"
    finally:
        keeper.stop()
    assert keeper.lost is False and not control.stopped


@pytest.mark.django_db(transaction=True)
def test_the_keeper_does_not_renew_for_a_silent_referee_loop(greedy, randomer) -> None:
    import time

    from arena.matches.keeper import LeaseKeeper
    from arena.matches.leases import match_claim
    from arena.referee import MatchControl

    match = _match(greedy, randomer)
    claim = match_claim(match.pk, lease_seconds=30)
    assert claim is not None
    control = MatchControl()
    keeper = LeaseKeeper(claim, control, poll_s=0.05, renew_s=0.05, stall_s=0.2)
    control.check()
    keeper.start()
    try:
        time.sleep(0.5)  # renewed while the last check is fresh, then the loop goes silent
        expires = Match.objects.get(pk=match.pk).lease_expires_at
        renewals = keeper.renewals
        time.sleep(1.0)  # stuck in our own code: never checks in again
    finally:
        keeper.stop()
    assert 1 <= renewals <= 5
    assert Match.objects.get(pk=match.pk).lease_expires_at == expires
    assert keeper.renewals == renewals
    assert keeper.lost is False and not control.stopped


@pytest.mark.django_db(transaction=True)
def test_the_keeper_stops_the_match_once_its_lease_is_gone(greedy, randomer) -> None:
    import time

    from arena.matches.keeper import LEASE_LOST, LeaseKeeper
    from arena.matches.leases import match_claim
    from arena.referee import MatchControl

    class Engine:
        killed = 0

        def kill(self) -> None:
            Engine.killed += 1

    match = _match(greedy, randomer)
    claim = match_claim(match.pk, lease_seconds=30)
    assert claim is not None
    control = MatchControl()
    control.attach(Engine())
    keeper = LeaseKeeper(claim, control, poll_s=0.05)
    keeper.start()
    try:
        Match.objects.filter(pk=match.pk).update(lease_token="other")  # taken over
        deadline = time.monotonic() + 5
        while not control.stopped and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        keeper.stop()
    assert (keeper.lost, control.reason, Engine.killed) == (True, LEASE_LOST, 1)
