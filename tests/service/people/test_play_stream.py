"""A person's game's event stream (``GET /api/play/{id}/events``, Server-Sent Events in the
live games' format) and its appends: one ``move`` event per applied move, written in the
move's own transaction."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.db import connection
from django.test import AsyncClient, Client
from django.test.utils import CaptureQueriesContext

from arena import terminations as T
from arena.referee import GameRecord, MoveRecord
from arena.rules import get_variant
from people.models import PersonGame, PersonGameEvent
from people.services import (
    person_game_abort,
    person_game_finish,
    person_game_publish,
    person_move,
    person_resign,
)
from tests.service.matches.test_live_stream import _parse, _read, _statements, read

from .test_play_api import engine_plays, running_game, start

KETE = "bao-la-kete"


def person_plays(game_id: int, user: Any, token: str) -> None:
    """The person's move through the service, then the worker applies it (publish)."""
    person_move(game_id=game_id, user=user, move=token)
    engine_plays(game_id, token)


def legal(game_id: int) -> str:
    game = PersonGame.objects.get(pk=game_id)
    v = get_variant(game.variant)
    return str(v.legal_moves(v.parse_position(game.position))[0])


def finish(game_id: int) -> None:
    game = PersonGame.objects.get(pk=game_id)
    record = GameRecord(
        index=1,
        south="person",
        north="tembo v1",
        start_position=game.start_position,
        final_position=game.position,
        result="1-0",
        termination=T.RESIGNATION,
        winner="person",
        plies=game.plies,
        moves=[MoveRecord(**m) for m in game.moves],
        detail="tembo v1 resigned",
    )
    person_game_finish(game_id, record)


def played_game(alice: Any, client: Any, sent: list[int]) -> int:
    """A finished game: the person (south) played one move, the engine one, then it ended."""
    game_id = running_game(client, sent)
    person_plays(game_id, alice, legal(game_id))
    engine_plays(game_id, legal(game_id))
    finish(game_id)
    return game_id


@pytest.mark.django_db(transaction=True)
def test_the_stream_sends_the_game_in_the_live_format_and_closes_at_its_end(
    alice, alice_client, opponent, sent
) -> None:
    game_id = played_game(alice, alice_client, sent)
    response, events = read(f"/api/play/{game_id}/events")  # anonymous: public to watch
    assert response.status_code == 200 and response["Content-Type"] == "text/event-stream"
    assert events[0] == {"retry": "2000"}
    assert [e["event"] for e in events[1:]] == [
        "game", "clock", "move", "clock", "move", "clock", "clock", "end",
    ]  # fmt: skip
    assert [int(e["id"]) for e in events[1:]] == list(range(1, 9))
    assert all(e["data"]["game"] == game_id and e["data"]["index"] == 1 for e in events[1:])
    begin = events[1]["data"]
    assert begin["south"] == {"version": None, "name": "alice"}
    assert begin["north"]["name"] == "tembo v1"
    game = PersonGame.objects.get(pk=game_id)
    first, second = events[3]["data"], events[5]["data"]
    assert (first["ply"], first["side"], second["ply"], second["side"]) == (1, "S", 2, "N")
    assert [first["move"], second["move"]] == [m["move"] for m in game.moves]
    assert first["trace"]["move"] == first["move"]  # traced by the rules engine
    clock = events[4]["data"]
    assert (clock["S"], clock["N"], clock["side"]) == (299_000, 300_000, "N")
    assert clock["elapsed_ms"] >= 0
    assert events[7]["data"]["side"] is None  # the last clock: none runs
    end = events[8]["data"]
    assert (end["scope"], end["result"], end["termination"], end["plies"]) == (
        "game", "1-0", "resignation", 2,
    )  # fmt: skip


@pytest.mark.django_db(transaction=True)
def test_a_client_resumes_after_its_last_event_id(alice, alice_client, opponent, sent) -> None:
    game_id = played_game(alice, alice_client, sent)
    _, events = read(f"/api/play/{game_id}/events", **{"Last-Event-ID": "4"})
    assert [int(e["id"]) for e in events[1:]] == [5, 6, 7, 8]
    move = events[1]["data"]  # the engine's move: still traced from the moves before it
    assert move["ply"] == 2 and move["trace"]["move"] == move["move"]
    _, same = read(f"/api/play/{game_id}/events?last_event_id=4")
    assert [e.get("id") for e in same] == [e.get("id") for e in events]
    bad = async_to_sync(AsyncClient().get)(
        f"/api/play/{game_id}/events", headers={"Last-Event-ID": "-1"}
    )
    assert bad.status_code == 400 and json.loads(bad.content)["error"]["code"] == "invalid"


@pytest.mark.django_db(transaction=True)
def test_an_unknown_game_is_404_and_a_wsgi_server_refuses_to_hold_a_stream(
    alice_client, opponent, sent
) -> None:
    missing, _ = read("/api/play/999999/events")
    assert missing.status_code == 404
    assert json.loads(missing.content)["error"]["code"] == "not_found"
    game_id = running_game(alice_client, sent)
    wsgi = Client().get(f"/api/play/{game_id}/events")
    assert wsgi.status_code == 503
    assert wsgi.json()["error"] == {
        "code": "live_stream_unavailable",
        "message": f"This server does not hold event streams; poll /api/play/{game_id}/ instead.",
        "details": {"poll": f"/api/play/{game_id}/"},
    }


@pytest.mark.django_db(transaction=True)
def test_a_viewer_gets_each_move_as_it_is_applied_until_the_end(
    alice, alice_client, opponent, sent
) -> None:
    r = start(alice_client)
    game_id = r.json()["id"]
    from people.services import person_game_claim

    async def scenario() -> bytes:
        # Opened before the game began: it waits for the claim's events.
        reader = asyncio.ensure_future(_read(f"/api/play/{game_id}/events", timeout=8))
        await asyncio.sleep(0.4)
        await sync_to_async(person_game_claim)(game_id, "test-worker")
        await asyncio.sleep(0.4)
        token = await sync_to_async(legal)(game_id)
        await sync_to_async(person_plays)(game_id, alice, token)
        await asyncio.sleep(0.4)
        await sync_to_async(person_game_abort)(game_id, "the worker playing it stopped")
        _, body = await reader
        return body

    events = _parse(async_to_sync(scenario)())
    assert [e["event"] for e in events if "event" in e] == ["game", "clock", "move", "clock", "end"]
    assert events[-1]["data"] == {
        "scope": "game", "result": "*", "termination": "aborted",
        "detail": "the worker playing it stopped", "plies": 1, "seq": 5, "index": 1,
        "game": game_id,
    }  # fmt: skip


@pytest.mark.django_db
def test_each_applied_move_appends_one_move_event_in_three_statements(
    alice, alice_client, opponent, sent
) -> None:
    game_id = running_game(alice_client, sent)
    assert list(PersonGameEvent.objects.filter(game_id=game_id).values_list("kind", "seq")) == [
        ("game", 1), ("clock", 2),
    ]  # fmt: skip
    for n in range(1, 7):
        token = legal(game_id)
        if n % 2:
            person_move(game_id=game_id, user=alice, move=token)
        with CaptureQueriesContext(connection) as queries:
            engine_plays(game_id, token)
        # engine_plays reads the row first (the test's own SELECT), then the publish:
        # its UPDATE, one SELECT (the clocks and last seq), one INSERT of both events.
        assert _statements(queries) == ["SELECT", "UPDATE", "SELECT", "INSERT"]
    moves = PersonGameEvent.objects.filter(game_id=game_id, kind="move").order_by("seq")
    assert [e.payload["ply"] for e in moves] == [1, 2, 3, 4, 5, 6]
    seqs = list(PersonGameEvent.objects.filter(game_id=game_id).values_list("seq", flat=True))
    assert seqs == list(range(1, 15))  # game, clock, then a move and a clock per ply
    # A publish for a game that is gone appends nothing (and raises nothing).
    record = MoveRecord(ply=1, side="S", move="a1", time_ms=1, clock_ms=1, position="x")
    person_game_publish(987654, [], record)
    assert not PersonGameEvent.objects.filter(game_id=987654).exists()


@pytest.mark.django_db
def test_the_end_is_appended_once_whoever_ends_the_game(alice, alice_client, opponent, sent):
    pending = start(alice_client).json()["id"]
    person_resign(game_id=pending, user=alice)
    ends = PersonGameEvent.objects.filter(game_id=pending).values_list("seq", "kind", "payload")
    assert [(s, k, p["termination"]) for s, k, p in ends] == [(1, "end", "resignation")]
    person_game_abort(pending, "too late")  # already over: no second end
    sent.clear()
    game_id = running_game(alice_client, sent)
    finish(game_id)
    finish(game_id)  # idempotent, as the row's UPDATE
    kinds = PersonGameEvent.objects.filter(game_id=game_id).values_list("kind", flat=True)
    assert list(kinds) == ["game", "clock", "clock", "end"]


def test_the_final_clocks_count_the_time_the_side_to_move_spent(alice_client, opponent, sent):
    # Finding of a newcomer trial: a resignation showed the loser's clock as at its last move.
    import datetime as dt

    from django.utils import timezone

    game_id = running_game(alice_client, sent)
    game = PersonGame.objects.get(pk=game_id)
    mover = game.position.split()[1]
    before = {"S": game.clock_south_ms, "N": game.clock_north_ms}
    PersonGame.objects.filter(pk=game_id).update(
        turn_started_at=timezone.now() - dt.timedelta(seconds=7)
    )
    finish(game_id)
    game.refresh_from_db()
    after = {"S": game.clock_south_ms, "N": game.clock_north_ms}
    other = "N" if mover == "S" else "S"
    assert after[other] == before[other]
    assert before[mover] - 7500 < after[mover] <= before[mover] - 7000
    last_clock = PersonGameEvent.objects.filter(game_id=game_id, kind="clock").last()
    assert last_clock is not None
    assert (last_clock.payload["S"], last_clock.payload["N"]) == (after["S"], after["N"])
