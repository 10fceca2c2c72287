"""The live games' event stream (``GET /api/live/{id}/events``, Server-Sent Events) and the
cost of the append path: one INSERT per batch of moves."""

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
from arena.matches import livestream
from arena.matches.live import LivePublisher, live_game_end, live_game_moves, live_game_start
from arena.matches.models import LiveEvent, LiveGame, Match
from arena.referee.events import GameEnd, GameStart, MatchEnd, MovePlayed
from arena.referee.records import MoveRecord

START = "4,4,4,4,4,4/4,4,4,4,4,4 S 0:0 0"
MOVE_1 = {
    "ply": 1,
    "side": "S",
    "move": "c1",
    "time_ms": 3,
    "clock_ms": 2097,
    "position": "1,0,6,6,0,1/6,6,2,7,0,6 N 7:0 1",
    "info": [],
}


def _statements(queries: CaptureQueriesContext) -> list[str]:
    """The first word of each statement run, without transaction control (``bulk_create``
    wraps its one INSERT in a transaction)."""
    words = [q["sql"].split()[0].upper() for q in queries.captured_queries]
    return [w for w in words if w not in ("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE")]


def _match(a: Any, b: Any, **kw: Any) -> Match:
    fields = {"variant": "bao-kingulu", "time_control": "2+0.1", "seed": 7} | kw
    return Match.objects.create(engine_a=a, engine_b=b, **fields)


def _parse(raw: bytes) -> list[dict[str, Any]]:
    """The events of an SSE body: each ``{"id", "event", "data"}`` (``data`` decoded JSON),
    and ``{"comment": text}`` for a comment line."""
    events: list[dict[str, Any]] = []
    for block in raw.decode().split("\n\n"):
        if not block:
            continue
        event: dict[str, Any] = {}
        for line in block.split("\n"):
            name, _, value = line.partition(": ")
            if name == "":
                event["comment"] = value
            elif name == "data":
                event["data"] = json.loads(value)
            else:
                event[name] = value
        events.append(event)
    return events


async def _read(url: str, timeout: float = 10.0, **headers: str) -> tuple[Any, bytes]:
    response = await AsyncClient().get(url, headers=headers)
    if not response.streaming:
        return response, response.content
    body = b""

    async def drain() -> None:
        nonlocal body
        async for chunk in response.streaming_content:
            body += chunk

    await asyncio.wait_for(drain(), timeout)
    return response, body


def read(url: str, **headers: str) -> tuple[Any, list[dict[str, Any]]]:
    response, body = async_to_sync(_read)(url, **headers)
    return response, _parse(body) if response.streaming else []


def _played_match(greedy: Any, randomer: Any) -> tuple[Match, LiveGame, LiveGame]:
    """A finished match of two games, its events all written: game 1 of two moves (the
    second's info lines hostile), game 2 of one."""
    match = _match(greedy, randomer, status="running")
    one = live_game_start(match.pk, 1, greedy.pk, randomer.pk, START)
    hostile = {
        **MOVE_1,
        "ply": 2,
        "side": "N",
        "move": "b3",
        "info": ["depth 1\n\nevent: end\ndata: {}\n\r\nid: 999", "nul \x00 bell \x07 \u2028"],
    }
    live_game_moves(one.pk, [MOVE_1, hostile])
    live_game_end(one.pk, "1-0", "score", "score")
    two = live_game_start(match.pk, 2, randomer.pk, greedy.pk, START)
    live_game_moves(two.pk, [MOVE_1])
    live_game_end(two.pk, "0-1", "score", "line one\nline two")
    Match.objects.filter(pk=match.pk).update(status="finished")
    return match, one, two


@pytest.mark.django_db(transaction=True)
def test_the_stream_sends_a_match_game_by_game_and_closes_at_its_end(greedy, randomer) -> None:
    _, one, two = _played_match(greedy, randomer)
    response, events = read(f"/api/live/{one.pk}/events")
    assert response.status_code == 200 and response["Content-Type"] == "text/event-stream"
    assert response["Cache-Control"] == "no-cache"
    assert events[0] == {"retry": "2000"}
    kinds = [(e["event"], e["data"]["index"]) for e in events[1:]]
    assert kinds == [
        ("game", 1),
        ("clock", 1),
        ("move", 1),
        ("clock", 1),
        ("move", 1),
        ("clock", 1),
        ("end", 1),
        ("game", 2),
        ("clock", 2),
        ("move", 2),
        ("clock", 2),
        ("end", 2),
        ("end", 2),
    ]
    ids = [int(e["id"]) for e in events[1:-1]]
    assert ids == list(range(1, 13))  # one seq per event, without gaps
    game_2 = events[8]["data"]
    assert (game_2["live"], game_2["south"]["version"]) == (two.pk, randomer.pk)
    first_move = events[3]["data"]
    assert first_move["move"] == "c1" and first_move["live"] == one.pk
    assert first_move["trace"]["laps"][0] == "c1(4)->f2"  # traced by the rules engine
    clock = events[4]["data"]
    assert (clock["S"], clock["N"], clock["side"]) == (2097, 2000, "N")
    assert clock["elapsed_ms"] >= 0
    end_1 = events[7]["data"]
    assert (end_1["scope"], end_1["result"], end_1["plies"]) == ("game", "1-0", 2)
    closing = events[-1]["data"]
    assert (closing["scope"], closing["status"]) == ("match", "finished")


@pytest.mark.django_db(transaction=True)
def test_an_engines_newlines_and_control_characters_stay_inside_one_data_line(
    greedy, randomer
) -> None:
    _, one, _ = _played_match(greedy, randomer)
    _response, body = async_to_sync(_read)(f"/api/live/{one.pk}/events")
    blocks = body.decode().split("\n\n")
    (hostile,) = [b for b in blocks if '"ply":2' in b]
    lines = hostile.split("\n")
    assert [line.split(":")[0] for line in lines] == ["id", "event", "data"]
    assert "\r" not in body.decode() and "\x00" not in body.decode()
    data = json.loads(lines[2][len("data: ") :])
    assert data["info"][0] == "depth 1\n\nevent: end\ndata: {}\n\r\nid: 999"
    assert data["info"][1] == "nul \ufffd bell \x07 \u2028"  # NUL: unstorable in jsonb
    assert body.isascii()


@pytest.mark.django_db(transaction=True)
def test_a_client_resumes_after_its_last_event_id(greedy, randomer) -> None:
    _, one, two = _played_match(greedy, randomer)
    _, events = read(f"/api/live/{one.pk}/events", **{"Last-Event-ID": "9"})
    assert [int(e["id"]) for e in events[1:]] == [10, 11, 12, 12]
    move = events[1]["data"]  # the first move of game 2: traced, with its live row
    assert move["live"] == two.pk and move["trace"]["move"] == "c1"
    _, same = read(f"/api/live/{one.pk}/events?last_event_id=9")
    assert [e.get("id") for e in same] == [e.get("id") for e in events]
    # The stream of game 2 starts at its own game event.
    _, of_two = read(f"/api/live/{two.pk}/events")
    assert [e["event"] for e in of_two[1:3]] == ["game", "clock"] and of_two[1]["id"] == "8"
    junk = [{"headers": {"Last-Event-ID": text}} for text in ("x1", "\u00b2", "1\u00b2")]
    junk.append({"data": {"last_event_id": "\u0661"}})  # superscript two, Arabic-Indic one
    for request in junk:
        bad = async_to_sync(AsyncClient().get)(f"/api/live/{one.pk}/events", **request)
        assert bad.status_code == 400, request
        assert json.loads(bad.content)["error"]["code"] == "invalid"


@pytest.mark.django_db(transaction=True)
def test_an_unknown_game_is_404_and_a_wsgi_server_refuses_to_hold_a_stream(
    greedy, randomer
) -> None:
    missing, _ = read("/api/live/999999/events")
    assert missing.status_code == 404
    assert json.loads(missing.content)["error"]["code"] == "not_found"
    match = _match(greedy, randomer, status="running")
    live = live_game_start(match.pk, 1, greedy.pk, randomer.pk, START)
    wsgi = Client().get(f"/api/live/{live.pk}/events")
    assert wsgi.status_code == 503
    assert wsgi.json()["error"]["code"] == "live_stream_unavailable"


@pytest.mark.django_db(transaction=True)
def test_a_viewer_gets_moves_as_they_are_appended_and_the_end_of_a_match_that_died(
    greedy, randomer, monkeypatch
) -> None:
    monkeypatch.setattr(livestream, "STATUS_S", 0.2)
    monkeypatch.setattr(livestream, "HEARTBEAT_S", 0.3)
    match = _match(greedy, randomer, status="running")
    live = live_game_start(match.pk, 1, greedy.pk, randomer.pk, START)

    async def scenario() -> bytes:
        reader = asyncio.ensure_future(_read(f"/api/live/{live.pk}/events", timeout=8))
        await asyncio.sleep(0.5)
        await sync_to_async(live_game_moves)(live.pk, [MOVE_1])
        await asyncio.sleep(0.5)
        # The worker died: recovery aborted the match, no closing event was written.
        await sync_to_async(Match.objects.filter(pk=match.pk).update)(status="aborted")
        _, body = await reader
        return body

    events = _parse(async_to_sync(scenario)())
    assert [e.get("event") for e in events if "event" in e] == [
        "game",
        "clock",
        "move",
        "clock",
        "end",
    ]
    assert {"comment": "keep-alive"} in events
    assert events[-1]["data"] == {
        "scope": "match",
        "status": "aborted",
        "score": None,
        "games": {},
        "seq": 4,
        "index": 1,
        "live": live.pk,
    }


@pytest.mark.django_db(transaction=True)
def test_a_batch_of_moves_costs_one_insert(greedy, randomer) -> None:
    match = _match(greedy, randomer, status="running")
    publisher = LivePublisher(match)
    start = GameStart(index=1, south="greedy v1", north="random v1", start_position=START)
    publisher.write([(1, start)])  # the game's start: its live row, then its events

    def move(ply: int) -> tuple[int, MovePlayed]:
        record = MoveRecord(
            ply=ply, side="S", move="c1", time_ms=3, clock_ms=2000 - ply, position=START
        )
        return (1000 + ply, MovePlayed(index=1, record=record))

    for size in (1, 40):
        with CaptureQueriesContext(connection) as queries:
            publisher.write([move(n) for n in range(1, size + 1)])
        assert _statements(queries) == ["INSERT"]
    assert LiveEvent.objects.filter(match=match, kind="move").count() == 41
    assert LiveGame.objects.get(match=match).first_seq == 1
    end = GameEnd(
        index=1, result="1-0", winner="greedy v1", termination=T.SCORE, plies=41, detail=""
    )
    with CaptureQueriesContext(connection) as queries:
        publisher.write(
            [(2000, end), (2001, MatchEnd(score=(1.0, 0.0), winner=None, aborted=False))]
        )
    assert _statements(queries) == ["UPDATE", "INSERT"]
    seqs = list(LiveEvent.objects.filter(match=match).values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))


@pytest.mark.django_db
def test_the_events_go_with_the_live_rows_of_a_match_that_ended(greedy, randomer) -> None:
    import datetime as dt

    from django.utils import timezone

    from arena.matches.live import live_games_delete_ended

    long_ago = timezone.now() - dt.timedelta(seconds=400)
    ended = _match(greedy, randomer, status="finished", finished_at=long_ago)
    running = _match(greedy, randomer, status="running")
    for match in (ended, running):
        live = live_game_start(match.pk, 1, greedy.pk, randomer.pk, START)
        live_game_moves(live.pk, [MOVE_1])
    assert LiveEvent.objects.filter(match=ended).count() == 4  # game, clock, move, clock
    assert live_games_delete_ended(300) == 1
    assert not LiveEvent.objects.filter(match=ended).exists()
    assert LiveEvent.objects.filter(match=running).count() == 4


@pytest.mark.django_db
def test_the_new_events_of_many_matches_are_read_past_each_ones_cursor(greedy, randomer) -> None:
    from arena.matches.selectors import live_events_after

    lives = []
    for _ in range(3):
        match = _match(greedy, randomer, status="running")
        lives.append(live_game_start(match.pk, 1, greedy.pk, randomer.pk, START))
    cursors = {lives[0].match_id: 0, lives[1].match_id: 1, lives[2].match_id: 2}
    cursors |= {10_000 + n: 0 for n in range(450)}  # watched matches with no events
    got = [(e.match_id, e.seq) for e in live_events_after(cursors)]
    assert got == [(lives[0].match_id, 1), (lives[0].match_id, 2), (lives[1].match_id, 2)]
    assert len(live_events_after(cursors, limit=1)) == 1


@pytest.mark.django_db(transaction=True)
def test_a_client_past_its_cap_of_streams_is_429_until_one_closes(
    greedy, randomer, settings
) -> None:
    import gc

    from django.contrib.auth.models import User

    settings.BAO_LIVE_STREAMS_PER_CLIENT = 2
    viewer = User.objects.create_user("viewer")
    _, done, _ = _played_match(greedy, randomer)
    running = live_game_start(_match(greedy, randomer, status="running").pk, 1, greedy.pk,
                              randomer.pk, START)  # fmt: skip

    async def scenario() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        # Streams read to their end give their place back: three in turn, all served.
        seen["ended"] = [(await _read(f"/api/live/{done.pk}/events"))[0].status_code
                         for _ in range(3)]  # fmt: skip
        url = f"/api/live/{running.pk}/events"
        held = [await AsyncClient().get(url) for _ in range(2)]  # open, never read
        seen["held"] = [r.status_code for r in held]
        over = await AsyncClient().get(url)
        seen["over"] = (over.status_code, over["Retry-After"], json.loads(over.content))
        # The play streams count against the same cap; a signed-in user has a cap of their own.
        seen["play"] = (await AsyncClient().get("/api/play/1/events")).status_code
        signed_in = AsyncClient()
        await signed_in.aforce_login(viewer)
        mine = [await signed_in.get(url) for _ in range(3)]  # held open, as the first two
        seen["user"] = [r.status_code for r in mine]
        del held[0]  # a stream dropped unread (its client went) frees its place
        gc.collect()
        again = await AsyncClient().get(url)
        seen["again"] = again.status_code
        return seen

    seen = async_to_sync(scenario)()
    assert seen["ended"] == [200, 200, 200]
    assert seen["held"] == [200, 200]
    status, retry_after, body = seen["over"]
    assert (status, retry_after, body["error"]["code"]) == (429, "10", "too_many_streams")
    assert body["error"]["details"] == {"limit": 2, "open": 2}
    assert seen["play"] == 404  # unknown game: refused before a place is counted
    assert seen["user"] == [200, 200, 429]
    assert seen["again"] == 200
