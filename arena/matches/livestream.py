"""Server-Sent Events of live games: ``GET /api/live/{id}/events`` (docs/live.md).

A stream starts at its game's ``game`` event (or after the ``Last-Event-ID`` a client sends
back) and follows the match's later games until the match's ``end``. One ``LiveHub`` per event
loop (so per ASGI server process) serves every stream: every ``POLL_S`` it runs one query for
the new events of every match some stream watches (``selectors.live_events_after``), encodes
each event once (a move's sowing trace is computed once, not once per viewer) and puts the
frame on the queue of each stream of its match. So 500 viewers of one game cost ten queries a
second, not 5,000. The hub reads through a ``StreamSource``: ``MATCHES`` for live games, and
``people.livestream.PERSON_GAMES`` for people's games (``GET /api/play/{id}/events``), one hub
per source and event loop.

Framing (``sse_frame``): ``id:`` the event's seq, ``event:`` its kind, ``data:`` one line of
JSON. An engine's info lines and detail are untrusted: JSON escapes every control character
(``ensure_ascii`` also escapes every non-ASCII one), so no newline of theirs can end an event
or start a forged one. A comment (``: keep-alive``) every ``HEARTBEAT_S`` keeps an idle
stream open through proxies.

A client (a signed-in user, else an address) holds at most ``BAO_LIVE_STREAMS_PER_CLIENT``
streams at once in one server process (``admit_stream``): one more is 429
``too_many_streams``, and the pages fall back to polling.

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
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.db import close_old_connections
from django.http import HttpRequest, HttpResponseBase, StreamingHttpResponse
from rest_framework.throttling import BaseThrottle

from arena.api.handlers import json_error
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


def last_event_id(request: HttpRequest) -> int | str | None:
    """The seq a resuming client had: its ``Last-Event-ID`` header, or ``?last_event_id=``
    (for clients that cannot set the header); an error message for junk."""
    text = request.headers.get("Last-Event-ID") or request.GET.get("last_event_id")
    if text is None or text.strip() == "":
        return None
    text = text.strip()
    # ASCII digits only: str.isdigit() also takes superscripts and other scripts' digits,
    # some of which int() refuses (a 500 before this check).
    if not (text.isascii() and text.isdigit()) or len(text) > 12:
        return "Last-Event-ID must be the id of an event (an integer >= 0)."
    return int(text)


def stream_request(request: HttpRequest, poll: str) -> HttpResponseBase | int | None:
    """What an event stream view answers ``request`` with before it streams: an error
    response (405 ``method_not_allowed``; 503 ``live_stream_unavailable`` from a WSGI worker,
    which a stream would hold, ``details.poll`` the URL to poll instead; 400 ``invalid`` for a
    junk ``Last-Event-ID``), else the ``Last-Event-ID`` the client sent (None: none)."""
    if request.method not in ("GET", "HEAD"):
        return json_error(405, "method_not_allowed", f'Method "{request.method}" not allowed.')
    if not isinstance(request, ASGIRequest):
        return json_error(
            503,
            "live_stream_unavailable",
            f"This server does not hold event streams; poll {poll} instead.",
            {"poll": poll},
        )
    last = last_event_id(request)
    if isinstance(last, str):
        return json_error(400, "invalid", last, {"Last-Event-ID": [last]})
    return last


@dataclass(eq=False)
class StreamLease:
    """One open stream counted against its client's cap (``admit_stream``); ``release`` (once,
    idempotent) gives it back."""

    counts: dict[str, int]
    key: str
    held: bool = True

    def release(self) -> None:
        if not self.held:
            return
        self.held = False
        left = self.counts.get(self.key, 0) - 1
        if left > 0:
            self.counts[self.key] = left
        else:
            self.counts.pop(self.key, None)


#: The streams each client holds open, per event loop (ASGI server process): key -> count.
_open_streams: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, int]] = (
    weakref.WeakKeyDictionary()
)


async def stream_client(request: HttpRequest) -> str:
    """Whose a stream is, for the per-client cap: ``user:<id>`` for a signed-in user (the
    session cookie an ``EventSource`` sends), else ``ip:<address>`` (the address the API's
    throttles use: ``REMOTE_ADDR``, or ``X-Forwarded-For`` behind ``BAO_NUM_PROXIES``)."""
    auser = getattr(request, "auser", None)
    if auser is not None:
        user = await auser()
        if user.is_authenticated:
            return f"user:{user.pk}"
    return f"ip:{BaseThrottle().get_ident(request) or '0.0.0.0'}"  # type: ignore[arg-type]


async def admit_stream(request: HttpRequest) -> StreamLease | HttpResponseBase:
    """A lease on one more event stream for ``request``'s client (``stream_client``), or a 429
    ``too_many_streams`` answer when it holds ``BAO_LIVE_STREAMS_PER_CLIENT`` open already in
    this server process (``details.limit``, ``details.open``; 0 = no cap). Give the lease to
    ``sse_response``, which releases it when the stream ends or is dropped."""
    limit = int(settings.BAO_LIVE_STREAMS_PER_CLIENT)
    key = await stream_client(request)
    counts = _open_streams.setdefault(asyncio.get_running_loop(), {})
    held = counts.get(key, 0)
    if limit and held >= limit:
        response = json_error(
            429,
            "too_many_streams",
            f"You have {held} event streams open here, the most one client may; close one or "
            "poll instead.",
            {"limit": limit, "open": held},
        )
        response["Retry-After"] = "10"
        return response
    counts[key] = held + 1
    return StreamLease(counts, key)


async def _leased(frames: AsyncIterator[bytes], lease: StreamLease) -> AsyncIterator[bytes]:
    try:
        async for frame in frames:
            yield frame
    finally:
        lease.release()


def sse_response(
    frames: AsyncIterator[bytes], lease: StreamLease | None = None
) -> StreamingHttpResponse:
    """The ``text/event-stream`` response sending ``frames`` (a hub's ``stream``); ``lease``
    (``admit_stream``'s) is released when the stream ends, the client goes, or the response
    is dropped unsent."""
    if lease is not None:
        frames = _leased(frames, lease)
        # A response dropped before its first frame never runs the generator's finally.
        weakref.finalize(frames, lease.release)
    response = StreamingHttpResponse(frames, content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # a buffering proxy in front would hold the events
    return response


HEARTBEAT = b": keep-alive\n\n"
PREAMBLE = f"retry: {RETRY_MS}\n\n".encode("ascii")


class StreamEvent(Protocol):
    """What a source's events have (``LiveEvent``, ``people.models.PersonGameEvent``)."""

    @property
    def seq(self) -> int: ...
    @property
    def index(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def payload(self) -> Any: ...


@dataclass
class Encoder:
    """Turns a stream's events, in seq order, into frames: keeps each game's position before
    the next move (for its trace) and its id (``ref``: the data key naming it, ``live`` for a
    live game's row)."""

    variant: str
    before: dict[int, str] = field(default_factory=dict)
    lives: dict[int, int] = field(default_factory=dict)
    ref: str = "live"
    #: The ``scope`` of the ``end`` that closes the stream: a live game's stream follows its
    #: match, a person's game's ends with it (``"game"``).
    closing_scope: str = "match"

    def closes(self, event: StreamEvent) -> bool:
        """Whether ``event`` is the stream's last."""
        return event.kind == LiveEvent.Kind.END and event.payload.get("scope") == self.closing_scope

    def encode(self, event: StreamEvent, now_ms: int | None = None) -> bytes:
        data: dict[str, Any] = dict(event.payload)
        if event.kind == LiveEvent.Kind.GAME:
            self.before[event.index] = str(data.get("start_position", ""))
            self.lives[event.index] = int(data.get(self.ref) or 0)
        elif event.kind == LiveEvent.Kind.MOVE:
            before = self.before.get(event.index, "")
            trace = move_traces(self.variant, before, [data])[0] if before else None
            data["trace"] = trace
            self.before[event.index] = str(data.get("position", ""))
        elif event.kind == LiveEvent.Kind.CLOCK:
            now = now_ms if now_ms is not None else int(time.time() * 1000)
            at = data.get("at")
            data["elapsed_ms"] = max(0, now - int(at)) if isinstance(at, int) else 0
        data.update(seq=event.seq, index=event.index)
        data[self.ref] = self.lives.get(event.index)
        return sse_frame(event.kind, event.seq, data)


def closing_frame(match_id: int, seq: int, encoder: Encoder) -> bytes | None:
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
    encoder: Encoder


def read_start(
    events: Sequence[StreamEvent],
    first: int,
    last_event_id: int | None,
    encoder: Encoder,
    closing: Callable[[int, Encoder], bytes | None],
) -> StreamStart:
    """A stream's start from ``events`` (in seq order, from seq ``first``): the frames after
    ``last_event_id``, up to the closing ``end``; else ``closing(last seq, encoder)`` (the
    source's ``closing_frame``) when it is over without one (sync)."""
    frames: list[bytes] = []
    closed = False
    last = first - 1
    for event in events:
        frame = encoder.encode(event)
        last = event.seq
        if last_event_id is None or event.seq > last_event_id:
            frames.append(frame)
        if encoder.closes(event):
            closed = True
            break
    if not closed:
        end = closing(max(last, 0), encoder)
        if end is not None:
            frames.append(end)
            closed = True
    return StreamStart(frames, last, closed, encoder)


def read_more(events: Sequence[StreamEvent], start: StreamStart, upto: int) -> StreamStart:
    """The frames of ``events`` (those after ``start.last_seq``, in order) up to seq ``upto``,
    encoded with ``start``'s encoder."""
    frames: list[bytes] = []
    last, closed = start.last_seq, False
    for event in events:
        if event.seq > upto:
            break
        frames.append(start.encoder.encode(event))
        last = event.seq
        if start.encoder.closes(event):
            closed = True
            break
    return StreamStart(frames, last, closed, start.encoder)


def stream_start(live: LiveGame, last_event_id: int | None) -> StreamStart:
    """Read the events a stream of ``live`` starts with (sync: run off the event loop)."""
    first = selectors.live_stream_first_seq(live, last_event_id)
    return read_start(
        selectors.live_events_from(live.match_id, first),
        first,
        last_event_id,
        Encoder(live.match.variant),
        lambda seq, encoder: closing_frame(live.match_id, seq, encoder),
    )


def stream_more(match_id: int, start: StreamStart, upto: int) -> StreamStart:
    """The frames of the events after ``start.last_seq`` up to seq ``upto``, encoded with
    ``start``'s encoder (sync)."""
    return read_more(selectors.live_events_from(match_id, start.last_seq + 1), start, upto)


#: What a stream's queue holds: the (seq, frame) of one poll's events of its match and whether
#: the last closes the stream (no frames: a keep-alive), or None: dropped, too far behind.
_Item = tuple[list[tuple[int, bytes]], bool] | None


@dataclass(eq=False)
class _Stream:
    queue: asyncio.Queue[_Item]
    after: int  # the last seq this stream has, its own start included


@dataclass(eq=False)
class _Watched:
    encoder: Encoder | None = None
    cursor: int | None = None  # None until the first stream's start has been read
    streams: set[_Stream] = field(default_factory=set)
    last_event: float = field(default_factory=time.monotonic)


class StreamSource(Protocol):
    """Where a hub's streams come from: the events of one kind of game, each stream keyed by
    an id (a match's for live games, ``MATCHES``; a person's game's, ``people.livestream``).
    Every method is sync (the hub runs it off the event loop)."""

    def events_after(self, cursors: dict[int, int], limit: int) -> Sequence[StreamEvent]:
        """The events past each cursor (key -> the last seq seen), ordered by key and seq."""
        ...

    def key_of(self, event: Any) -> int:
        """The key of the stream ``event`` (one of ``events_after``'s) belongs to."""
        ...

    def more(self, key: int, start: StreamStart, upto: int) -> StreamStart:
        """The frames after ``start.last_seq`` up to ``upto`` (as ``stream_more``)."""
        ...

    def ended(self, keys: list[int]) -> set[int]:
        """Which of ``keys`` are over (their streams may miss their closing ``end``)."""
        ...

    def closing_frame(self, key: int, seq: int, encoder: Encoder) -> bytes | None:
        """The closing ``end`` of a stream that is over without one (as ``closing_frame``)."""
        ...


class _Matches:
    """The live games' source: events of matches (``LiveEvent``)."""

    def events_after(self, cursors: dict[int, int], limit: int) -> Sequence[StreamEvent]:
        return selectors.live_events_after(cursors, limit)

    def key_of(self, event: Any) -> int:
        return int(event.match_id)

    def more(self, key: int, start: StreamStart, upto: int) -> StreamStart:
        return stream_more(key, start, upto)

    def ended(self, keys: list[int]) -> set[int]:
        return selectors.live_matches_ended(keys)

    def closing_frame(self, key: int, seq: int, encoder: Encoder) -> bytes | None:
        return closing_frame(key, seq, encoder)


#: The source of ``GET /api/live/{id}/events``.
MATCHES: StreamSource = _Matches()


class LiveHub:
    """The shared poller of one event loop and one source (module docstring);
    ``live_hub(source)`` gives it."""

    def __init__(self, poll_s: float = POLL_S, source: StreamSource = MATCHES) -> None:
        self.poll_s = poll_s
        self.source = source
        self.polls = 0
        self._watched: dict[int, _Watched] = {}
        self._task: asyncio.Task[None] | None = None
        self._last_status = time.monotonic()

    def watching(self) -> int:
        """How many streams the hub feeds."""
        return sum(len(w.streams) for w in self._watched.values())

    async def stream(
        self, key: int, begin: Callable[[], StreamStart], last_event_id: int | None
    ) -> AsyncIterator[bytes]:
        """The frames of stream ``key`` of the source (a match id for live games), from
        ``begin()``'s (sync: its events so far after ``last_event_id``) until its closing
        ``end``."""
        watched = self._watched.setdefault(key, _Watched())
        me = _Stream(asyncio.Queue(), after=last_event_id or 0)
        watched.streams.add(me)  # before reading its start: no event can fall in between
        try:
            start = await sync_to_async(begin)()
            frames = list(start.frames)
            if watched.cursor is None:
                watched.cursor, watched.encoder = start.last_seq, start.encoder
            elif start.last_seq < watched.cursor and not start.closed:
                # Another stream's start set the cursor past ours while we read: the events
                # in between reached nobody's queue, so read them too.
                more = await sync_to_async(self.source.more)(key, start, watched.cursor)
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
            if not watched.streams and self._watched.get(key) is watched:
                del self._watched[key]

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
        events = await sync_to_async(self.source.events_after)(cursors, POLL_LIMIT)
        self.polls += 1
        now = time.monotonic()
        now_ms = int(time.time() * 1000)
        batches: dict[int, tuple[_Watched, list[tuple[int, bytes]]]] = {}
        closed: set[int] = set()
        for event in events:
            key = self.source.key_of(event)
            watched = self._watched.get(key)
            if watched is None or watched.encoder is None or watched.cursor is None:
                continue
            if event.seq <= watched.cursor or key in closed:
                continue
            frame = watched.encoder.encode(event, now_ms)
            watched.cursor = event.seq
            watched.last_event = now
            batches.setdefault(key, (watched, []))[1].append((event.seq, frame))
            if watched.encoder.closes(event):
                closed.add(key)
        for key, (watched, frames) in batches.items():
            self._send(watched, frames, key in closed)
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
        """Close the streams of keys that ended without their closing ``end``."""
        quiet = [
            m
            for m, w in self._watched.items()
            if w.cursor is not None and now - w.last_event >= STATUS_S
        ]
        if not quiet:
            return
        ended = await sync_to_async(self.source.ended)(quiet)
        for key in ended:
            watched = self._watched.get(key)
            if watched is None or watched.cursor is None or watched.encoder is None:
                continue
            frame = await sync_to_async(self.source.closing_frame)(
                key, watched.cursor, watched.encoder
            )
            if frame is not None:
                self._send(watched, [(watched.cursor, frame)], True)


_hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[int, LiveHub]] = (
    weakref.WeakKeyDictionary()
)


def live_hub(source: StreamSource = MATCHES) -> LiveHub:
    """The hub of ``source`` (default the live games') in the running event loop (one per
    ASGI server process and source)."""
    loop = asyncio.get_running_loop()
    hubs = _hubs.setdefault(loop, {})
    hub = hubs.get(id(source))
    if hub is None:
        hub = hubs[id(source)] = LiveHub(source=source)
    return hub
