"""Live games: the worker publishes every move of a real match as it is played (a queue
drained by the publisher's thread), and the API serves a game's moves so far with traces."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from arena import terminations as T
from arena.matches import runner
from arena.matches.live import LivePublisher, live_game_moves, live_game_start
from arena.matches.models import Game, LiveGame, Match
from arena.matches.selectors import live_moves
from arena.referee.events import GameEnd, GameStart, MovePlayed
from arena.referee.records import MoveRecord


def _match(a: Any, b: Any, **kw: Any) -> Match:
    fields = {"variant": "bao-kingulu", "time_control": "2+0.1", "seed": 7} | kw
    return Match.objects.create(engine_a=a, engine_b=b, **fields)


@pytest.mark.django_db(transaction=True)
def test_a_real_match_publishes_every_move_of_every_game(greedy, randomer, fast_referee) -> None:
    match = _match(greedy, randomer)
    assert runner.execute_match(match.pk, config=fast_referee) == runner.RECORDED
    games = {g.index: g for g in Game.objects.filter(match=match)}
    lives = {lv.index: lv for lv in LiveGame.objects.filter(match=match)}
    assert set(lives) == set(games) and games
    for index, game in games.items():
        live = lives[index]
        assert live_moves(live) == game.moves  # every move, with its clock, position and info
        assert (live.status, live.result, live.termination) == (
            "finished",
            game.result,
            game.termination,
        )
        assert (live.south_id, live.north_id, live.start_position) == (
            game.south_id,
            game.north_id,
            game.start_position,
        )
    api = Client().get(f"/api/live/{lives[1].pk}/").json()
    assert api["game"] == games[1].pk and api["status"] == "finished"


@pytest.mark.django_db(transaction=True)
def test_the_publisher_never_blocks_the_referee_and_writes_in_order(greedy, randomer) -> None:
    match = _match(greedy, randomer, status="running")
    publisher = LivePublisher(match)
    publisher.start()
    start = "4,4,4,4,4,4/4,4,4,4,4,4 S 0:0 0"
    publisher.on_event(
        GameStart(index=1, south="greedy v1", north="random v1", start_position=start)
    )
    move = MovePlayed(
        index=1,
        record=MoveRecord(
            ply=1,
            side="S",
            move="c1",
            time_ms=3,
            clock_ms=2097,
            position="1,0,6,6,0,1/6,6,2,7,0,6 N 7:0 1",
            info=["x"],
            ignored=["noise"],
        ),
    )
    for _ in range(200):  # a burst: queued at once, written in batches
        publisher.on_event(move)
    publisher.on_event(
        GameEnd(
            index=1,
            result="1-0",
            winner="greedy v1",
            termination=T.SCORE,
            plies=200,
            detail="score",
        )
    )
    publisher.stop()
    live = LiveGame.objects.get(match=match, index=1)
    moves = live_moves(live)
    assert len(moves) == 200 and moves[0]["info"] == ["x"]
    assert "event" not in moves[0] and live.status == "finished"
    assert "ignored" not in moves[0]


@pytest.mark.django_db
def test_inside_a_transaction_the_publisher_stays_off(greedy, randomer) -> None:
    publisher = LivePublisher(_match(greedy, randomer))
    publisher.start()
    publisher.on_event(GameStart(index=1, south="greedy v1", north="random v1", start_position=""))
    publisher.stop()
    assert publisher.enabled is False and not LiveGame.objects.exists()


@pytest.mark.django_db
def test_the_api_gives_a_running_games_moves_after_since_with_traces(greedy, randomer) -> None:
    match = _match(greedy, randomer, status="running")
    live = live_game_start(match.pk, 1, greedy.pk, randomer.pk, "4,4,4,4,4,4/4,4,4,4,4,4 S 0:0 0")
    live_game_moves(
        live.pk,
        [
            {
                "ply": 1,
                "side": "S",
                "move": "c1",
                "time_ms": 3,
                "clock_ms": 2097,
                "position": "1,0,6,6,0,1/6,6,2,7,0,6 N 7:0 1",
                "info": [],
            },
        ],
    )
    listed = Client().get("/api/live/").json()["results"]
    assert [(g["id"], g["plies"], g["status"]) for g in listed] == [(live.pk, 1, "running")]
    data = Client().get(f"/api/live/{live.pk}/").json()
    assert data["status"] == "running" and data["game"] is None and data["since"] == 0
    (move,) = data["moves"]
    assert move["trace"]["laps"] == [
        "c1(4)->f2",
        "f2(5)->a2",
        "a2(5)->e1",
        "e1(6)->b2",
        "b2(6)->e1",
    ]
    assert Client().get(f"/api/live/{live.pk}/?since=1").json()["moves"] == []
    bad = Client().get(f"/api/live/{live.pk}/?since=-1")
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid"
    missing = Client().get("/api/live/999999/")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


@pytest.mark.django_db
def test_a_replay_serves_each_moves_trace(greedy, randomer, fast_referee) -> None:
    match = _match(greedy, randomer, variant="bao-la-kete")
    assert runner.execute_match(match.pk, config=fast_referee) == runner.RECORDED
    game = Game.objects.filter(match=match).order_by("index").first()
    assert game is not None
    data = Client().get(f"/api/games/{game.pk}/").json()
    assert [m["trace"]["move"] for m in data["moves"]] == [m["move"] for m in game.moves]
    first = data["moves"][0]["trace"]
    assert first["side"] == "S" and first["steps"][0]["op"] == "reserve"  # namua: reserve seed
    assert first["steps"][-1]["op"] == "end"


@pytest.mark.django_db
def test_the_live_games_of_a_match_go_once_it_ended_longer_ago_than_the_keep_period(
    greedy, randomer, settings
) -> None:
    import datetime as dt

    from django.utils import timezone
    from django_celery_beat.models import PeriodicTask

    from arena.matches import tasks
    from arena.matches.periodic import LIVE_CLEANUP_ENTRY, LIVE_CLEANUP_TASK

    settings.BAO_LIVE_KEEP_SECONDS = 300
    now = timezone.now()
    ended_long_ago = now - dt.timedelta(seconds=400)
    finished = _match(greedy, randomer, status="finished", finished_at=ended_long_ago)
    aborted = _match(greedy, randomer, status="aborted", finished_at=ended_long_ago)
    just_finished = _match(
        greedy, randomer, status="finished", finished_at=now - dt.timedelta(seconds=10)
    )
    running = _match(greedy, randomer, status="running")
    for match, games in ((finished, 2), (aborted, 1), (just_finished, 2), (running, 1)):
        for index in range(1, games + 1):
            live_game_start(match.pk, index, greedy.pk, randomer.pk, "")

    assert tasks.delete_ended_live_games() == 3
    left = sorted(LiveGame.objects.values_list("match_id", "index"))
    assert left == [(just_finished.pk, 1), (just_finished.pk, 2), (running.pk, 1)]
    assert Match.objects.filter(pk__in=[finished.pk, aborted.pk]).count() == 2  # only live rows
    assert tasks.delete_ended_live_games() == 0
    settings.BAO_LIVE_KEEP_SECONDS = 0
    assert tasks.delete_ended_live_games() == 2
    assert list(LiveGame.objects.values_list("match_id", flat=True)) == [running.pk]
    # The data migration registered the job, every minute.
    job = PeriodicTask.objects.get(name=LIVE_CLEANUP_ENTRY)
    assert (job.task, job.enabled, job.interval.every, job.interval.period) == (
        LIVE_CLEANUP_TASK,
        True,
        1,
        "minutes",
    )
