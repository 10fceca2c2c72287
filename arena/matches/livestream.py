"""Server-Sent Events of live games: ``GET /api/live/{id}/events`` (docs/live.md).

A stream starts at its game's ``game`` event (or after the ``Last-Event-ID`` a client sends
back) and follows the match's later games until the match's ``end``. One ``LiveHub`` per event
loop (so per ASGI server process) serves every stream: every ``POLL_S`` it runs one query for
the new events of every match some stream watches (``selectors.live_events_after``), encodes
each event once (a move's sowing trace is computed once, not once per viewer) and puts the
frame on the queue of each stream of its match. So 500 viewers of one game cost ten queries a
second, not 5,000.

Framing (``sse_frame``): ``id:`` the event's seq, ``event:`` its kind, ``data:`` one line of
JSON. An engine's info lines and detail are untrusted: JSON escapes every control character
(``ensure_ascii`` also escapes every non-ASCII one), so no newline of theirs can end an event
or start a forged one. A comment (``: keep-alive``) every ``HEARTBEAT_S`` keeps an idle
stream open through proxies.

A match that left ``running`` without its closing ``end`` (its worker died, recovery aborted
it) gets one from the hub, built from the database (``closing_frame``), so no viewer waits on
a game that is over without being told.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import weakref
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import sync_to_async
from django.db import close_old_connections

from arena.matches import selectors
from arena.matches.models import ENDED_STATUSES, Game, LiveEvent, LiveGame, Match
from arena.matches.replay import move_traces

log = logging.getLogger(__name__)

#: How often the hub looks for new events, in seconds.
POLL_S = 0.1
#: Seconds between keep-alive comments on an idle stream.
HEARTBEAT_S = 15.0
#: How long a client waits before it reconnects, ms (the stream's ``retry:``).
RETRY_MS = 2000
#: How often the hub checks that the matches it watches still run, in seconds.
STATUS_S = 5.0
#: Frames a stream may have waiting before it is dropped (its client reconnects and resumes).
QUEUE_MAX = 2000
#: The most events one poll reads.
POLL_LIMIT = 5000


def sse_frame(kind: str, seq: int, data: dict[str, Any]) -> bytes:
    """One event: ``id: seq``, ``event: kind``, ``data:`` ``data`` as one line of JSON (every
    control and non-ASCII character escaped), then the blank line that ends it."""
    body = json.dumps(data, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return f"id: {seq}\nevent: {kind}\ndata: {body}\n\n".encode("ascii")


HEARTBEAT = b": keep-alive\n\n"
PREAMBLE = f"retry: {RETRY_MS}\n\n".encode("ascii")


@dataclass
class _Encoder:
    """Turns a match's events, in seq order, into frames: keeps each game's position before
    the next move (for its trace) and its live row id."""

    variant: str
    before: dict[int, str] = field(default_factory=dict)
    lives: dict[int, int] = field(default_factory=dict)

    def encode(self, event: LiveEvent, now_ms: int | None = None) -> bytes:
        data: dict[str, Any] = dict(event.payload)
        if event.kind == LiveEvent.Kind.GAME:
            self.before[event.index] = str(data.get("start_position", ""))
            self.lives[event.index] = int(data.get("live") or 0)
        elif event.kind == LiveEvent.Kind.MOVE:
            before = self.before.get(event.index, "")
            trace = move_traces(self.variant, before, [data])[0] if before else None
            data["trace"] = trace
            self.before[event.index] = str(data.get("position", ""))
        elif event.kind == LiveEvent.Kind.CLOCK:
            now = now_ms if now_ms is not None else int(time.time() * 1000)
            at = data.get("at")
            data["elapsed_ms"] = max(0, now - int(at)) if isinstance(at, int) else 0
        data.update(seq=event.seq, index=event.index, live=self.lives.get(event.index))
        return sse_frame(event.kind, event.seq, data)


def _is_closing(event: LiveEvent) -> bool:
    return event.kind == LiveEvent.Kind.END and event.payload.get("scope") == "match"


def closing_frame(match_id: int, seq: int, encoder: _Encoder) -> bytes | None:
    """The ``end`` (``scope: match``) of a match that ended without one in its stream, from
    the database (``id:`` its last seq; ``index`` its last game that ``encoder`` saw start),
    or None while it has not ended."""
    status = Match.objects.filter(pk=match_id).values_list("status", flat=True).first()
    if status not in ENDED_STATUSES:
        return None
    games = dict(Game.objects.filter(match_id=match_id).values_list("index", "pk"))
    data = {
        "scope": "match",
        "status": status,
        "score": None,
        "games": {str(i): pk for i, pk in sorted(games.items())},
        "seq": seq,
        "index": max(encoder.lives, default=0),
        "live": encoder.lives.get(max(encoder.lives, default=0)),
    }
    return sse_frame(LiveEvent.Kind.END, seq, data)


@dataclass(frozen=True)
class StreamStart:
    """What a new stream begins with: the frames of its game so far (after the client's
    ``Last-Event-ID``), the seq of the last event read, whether the match is over (the
    frames then end with its closing ``end``), and the encoder state after them."""

    frames: list[bytes]
    last_seq: int
    closed: bool
    encoder: _Encoder


def stream_start(live: LiveGame, last_event_id: int | None) -> StreamStart:
    """Read the events a stream of ``live`` starts with (sync: run off the event loop)."""
    first = selectors.live_stream_first_seq(live, last_event_id)
    events = selectors.live_events_from(live.match_id, first)
    encoder = _Encoder(live.match.variant)
    frames: list[bytes] = []
    closed = False
    last = first - 1
    for event in events:
        frame = encoder.encode(event)
        last = event.seq
        if last_event_id is None or event.seq > last_event_id:
            frames.append(frame)
        if _is_closing(event):
            closed = True
            break
    if not closed:
        closing = closing_frame(live.match_id, max(last, 0), encoder)
        if closing is not None:
            frames.append(closing)
            closed = True
    return StreamStart(frames, last, closed, encoder)


def stream_more(match_id: int, start: StreamStart, upto: int) -> StreamStart:
    """The frames of the events after ``start.last_seq`` up to seq ``upto``, encoded with
    ``start``'s encoder (sync)."""
    frames: list[bytes] = []
    last, closed = start.last_seq, False
    for event in selectors.live_events_from(match_id, start.last_seq + 1):
        if event.seq > upto:
            break
        frames.append(start.encoder.encode(event))
        last = event.seq
        if _is_closing(event):
            closed = True
            break
    return StreamStart(frames, last, closed, start.encoder)


#: What a stream's queue holds: the (seq, frame) of one poll's events of its match and whether
#: the last closes the stream (no frames: a keep-alive), or None: dropped, too far behind.
_Item = tuple[list[tuple[int, bytes]], bool] | None


@dataclass(eq=False)
class _Stream:
    queue: asyncio.Queue[_Item]
    after: int  # the last seq this stream has, its own start included


@dataclass(eq=False)
class _Watched:
    encoder: _Encoder | None = None
    cursor: int | None = None  # None until the first stream's start has been read
    streams: set[_Stream] = field(default_factory=set)
    last_event: float = field(default_factory=time.monotonic)


class LiveHub:
    """The shared poller of one event loop (module docstring); ``live_hub()`` gives it."""

    def __init__(self, poll_s: float = POLL_S) -> None:
        self.poll_s = poll_s
        self.polls = 0
        self._watched: dict[int, _Watched] = {}
        self._task: asyncio.Task[None] | None = None
        self._last_status = time.monotonic()

    def watching(self) -> int:
        """How many streams the hub feeds."""
        return sum(len(w.streams) for w in self._watched.values())

    async def stream(self, live: LiveGame, last_event_id: int | None) -> AsyncIterator[bytes]:
        """The frames of a stream of ``live``, until its match's closing ``end``."""
        watched = self._watched.setdefault(live.match_id, _Watched())
        me = _Stream(asyncio.Queue(), after=last_event_id or 0)
        watched.streams.add(me)  # before reading its start: no event can fall in between
        try:
            start = await sync_to_async(stream_start)(live, last_event_id)
            frames = list(start.frames)
            if watched.cursor is None:
                watched.cursor, watched.encoder = start.last_seq, start.encoder
            elif start.last_seq < watched.cursor and not start.closed:
                # Another stream's start set the cursor past ours while we read: the events
                # in between reached nobody's queue, so read them too.
                more = await sync_to_async(stream_more)(live.match_id, start, watched.cursor)
                frames += more.frames
                start = more
            self._ensure_task()
            yield PREAMBLE
            for frame in frames:
                yield frame
            if start.closed:
                return
            me.after = max(me.after, start.last_seq)
            while True:
                item = await me.queue.get()
                if item is None:  # dropped, too far behind: the client resumes from its id
                    return
                polled, closing = item
                if not polled:
                    yield HEARTBEAT
                    continue
                # One write for the poll's events (a move and its clock), less those it had
                # from its start; a closing frame always goes.
                last = len(polled) - 1
                fresh = [
                    f
                    for n, (seq, f) in enumerate(polled)
                    if seq > me.after or (closing and n == last)
                ]
                me.after = max(me.after, polled[-1][0])
                if fresh:
                    yield b"".join(fresh)
                if closing:
                    return
        finally:
            watched.streams.discard(me)
            if not watched.streams and self._watched.get(live.match_id) is watched:
                del self._watched[live.match_id]

    def _ensure_task(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        beat = time.monotonic()
        while self._watched:
            if time.monotonic() - beat >= HEARTBEAT_S:
                beat = time.monotonic()
                for watched in self._watched.values():
                    self._send(watched, [], False)
            try:
                await self._poll()
            except Exception:  # a database outage or a bug: keep the streams, try again
                log.exception("live stream poll failed")
                await sync_to_async(close_old_connections)()
                await asyncio.sleep(1.0)
            await asyncio.sleep(self.poll_s)
        self._task = None

    async def _poll(self) -> None:
        cursors = {m: w.cursor for m, w in self._watched.items() if w.cursor is not None}
        if not cursors:
            return
        events = await sync_to_async(selectors.live_events_after)(cursors, POLL_LIMIT)
        self.polls += 1
        now = time.monotonic()
        now_ms = int(time.time() * 1000)
        batches: dict[int, tuple[_Watched, list[tuple[int, bytes]]]] = {}
        closed: set[int] = set()
        for event in events:
            watched = self._watched.get(event.match_id)
            if watched is None or watched.encoder is None or watched.cursor is None:
                continue
            if event.seq <= watched.cursor or event.match_id in closed:
                continue
            frame = watched.encoder.encode(event, now_ms)
            watched.cursor = event.seq
            watched.last_event = now
            batches.setdefault(event.match_id, (watched, []))[1].append((event.seq, frame))
            if _is_closing(event):
                closed.add(event.match_id)
        for match_id, (watched, frames) in batches.items():
            self._send(watched, frames, match_id in closed)
        if now - self._last_status >= STATUS_S:
            self._last_status = now
            await self._close_ended(now)

    def _send(self, watched: _Watched, frames: list[tuple[int, bytes]], closing: bool) -> None:
        for stream in list(watched.streams):
            if stream.queue.qsize() >= QUEUE_MAX:
                watched.streams.discard(stream)
                stream.queue.put_nowait(None)
                continue
            stream.queue.put_nowait((frames, closing))

    async def _close_ended(self, now: float) -> None:
        """Close the streams of matches that ended without their closing ``end``."""
        quiet = [
            m
            for m, w in self._watched.items()
            if w.cursor is not None and now - w.last_event >= STATUS_S
        ]
        if not quiet:
            return
        ended = await sync_to_async(selectors.live_matches_ended)(quiet)
        for match_id in ended:
            watched = self._watched.get(match_id)
            if watched is None or watched.cursor is None or watched.encoder is None:
                continue
            frame = await sync_to_async(closing_frame)(match_id, watched.cursor, watched.encoder)
            if frame is not None:
                self._send(watched, [(watched.cursor, frame)], True)


_hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LiveHub] = weakref.WeakKeyDictionary()


def live_hub() -> LiveHub:
    """The hub of the running event loop (one per ASGI server process)."""
    loop = asyncio.get_running_loop()
    hub = _hubs.get(loop)
    if hub is None:
        hub = _hubs[loop] = LiveHub()
    return hub
