"""Live games: the worker publishes each move as the referee makes it, off the move path, by
appending events (docs/live.md).

The referee calls its ``on_event`` callback after a move is applied and recorded, before it
asks the next engine, and not while a clock runs; still, anything slow there delays the game.
So ``LivePublisher.on_event`` only stamps the event with the wall clock and puts it on a queue
(never blocks), and the worker process's link thread (``arena.matches.keeper.WorkerLink``,
which also keeps the leases of the process's matches, on the one connection of both) drains
the queue and appends ``LiveEvent`` rows: one INSERT per batch of events that piled up, so a
publish costs O(new moves) (issue 33: rewriting the whole move list on the ``LiveGame`` row
made a 56-ply game cost about 28x its stored bytes). A game's start and end also write its
``LiveGame`` row (one upsert, one UPDATE: per game, not per move). During a database outage
the events are dropped and counted (one log line per outage); the game is never disturbed.

Each match's events are numbered ``seq`` 1, 2, ... (``LiveEvent``): a ``game`` event when a
game starts, then per move a ``move`` and a ``clock`` event, an ``end`` (``scope: game``)
when it ends, and once the match is recorded an ``end`` with ``scope: match`` naming the
stored replays. ``GET /api/live/{id}/events`` (``livestream``) sends them as Server-Sent
Events; ``GET /api/live/{id}/`` (polling, the fallback) reads the same rows.

The writes (``live_events_append``, ``live_game_start``, ``live_game_moves``,
``live_game_end``) are services like any other; the reads live in ``selectors``.

A live row is only needed while its match is played and a little after: a viewer still
watching learns the end of the game and the id of the stored replay (``Game``), which holds
everything the live row did. ``live_games_delete_ended`` (the beat job
``delete_ended_live_games``, every minute) deletes the rows and events of matches that ended
(finished or aborted) more than ``settings.BAO_LIVE_KEEP_SECONDS`` ago, so the tables hold
about the games being played rather than every game ever played.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.db import connection
from django.db.models import Max
from django.utils import timezone

from arena.engine_text import storable
from arena.matches.keeper import worker_link
from arena.matches.models import ENDED_STATUSES, Game, LiveEvent, LiveGame, Match
from arena.referee import TimeControl, TimeControlError
from arena.referee.events import GameEnd, GameStart, MatchEnd, MovePlayed, RefereeEvent
from arena.referee.match import engine_names

log = logging.getLogger(__name__)

#: Seconds ``LivePublisher.stop`` waits for the writer to finish the last events.
STOP_TIMEOUT_S = 10.0
#: The most of a game's ``detail`` an ``end`` event and the live row keep (characters).
DETAIL_MAX = 2000


@dataclass(frozen=True, slots=True)
class NewLiveEvent:
    """An event to append: ``kind`` a ``LiveEvent.Kind`` value, ``index`` the game (1-based),
    ``payload`` its JSON object (the shapes of ``LiveEvent``)."""

    kind: str
    index: int
    payload: dict[str, Any] = field(default_factory=dict)


def live_last_seq(match_id: int) -> int:
    """The ``seq`` of the match's last event, 0 when it has none."""
    last = LiveEvent.objects.filter(match_id=match_id).aggregate(last=Max("seq"))["last"]
    return int(last or 0)


def live_events_append(
    match_id: int, events: Sequence[NewLiveEvent], *, after_seq: int | None = None
) -> int:
    """Append ``events`` to the match's stream in one INSERT, numbered ``after_seq + 1`` on;
    returns the last ``seq`` written (``after_seq`` when ``events`` is empty).

    A single writer per match (the worker playing it) keeps its own count and passes
    ``after_seq``, so a batch costs exactly one query. Without it the last seq is read first
    (one more query); two writers of one match must then serialize themselves, as the unique
    ``(match, seq)`` refuses the second of two appends numbered alike (``IntegrityError``).
    """
    if after_seq is None:
        after_seq = live_last_seq(match_id)
    if not events:
        return after_seq
    LiveEvent.objects.bulk_create(
        LiveEvent(
            match_id=match_id,
            seq=after_seq + n,
            index=event.index,
            kind=event.kind,
            payload=storable(event.payload),  # PostgreSQL refuses NUL in jsonb
        )
        for n, event in enumerate(events, start=1)
    )
    return after_seq + len(events)


def _side_to_move(position: str) -> str | None:
    """The side to move of a position text (its second field, ``S`` or ``N``; README 5)."""
    fields = position.split()
    return fields[1] if len(fields) > 1 and fields[1] in ("S", "N") else None


def base_clock_ms(time_control: str) -> int | None:
    """Each side's clock at the start of a game (ms): the base time, or the fixed time per
    move of a ``movetime`` control; None for text that is no time control."""
    try:
        tc = TimeControl.parse(time_control)
    except TimeControlError:
        return None
    return tc.movetime_ms if tc.movetime_ms is not None else tc.base_ms


def live_game_open(
    match_id: int, index: int, south_id: int, north_id: int, start_position: str, first_seq: int
) -> LiveGame:
    """Open (or reset, for a retried match) the live row of game ``index`` of a match whose
    ``game`` event is ``first_seq`` (the row only; ``live_game_start`` appends the event)."""
    live, _ = LiveGame.objects.update_or_create(
        match_id=match_id,
        index=index,
        defaults={
            "south_id": south_id,
            "north_id": north_id,
            "start_position": start_position,
            "first_seq": first_seq,
            "status": LiveGame.Status.RUNNING,
            "result": "",
            "termination": "",
            "detail": "",
        },
    )
    return live


def game_event(live: LiveGame, south: str, north: str) -> NewLiveEvent:
    """The ``game`` event of a live row just opened (``south``/``north``: engine names)."""
    return NewLiveEvent(
        LiveEvent.Kind.GAME,
        live.index,
        {
            "live": live.pk,
            "south": {"version": live.south_id, "name": south},
            "north": {"version": live.north_id, "name": north},
            "start_position": live.start_position,
        },
    )


def clock_event(
    index: int, clocks: dict[str, int | None], side: str | None, at_ms: int
) -> NewLiveEvent:
    """A ``clock`` event: ``clocks`` the ms left of ``S`` and ``N``, ``side`` the side whose
    clock runs from ``at_ms`` (ms since the epoch) or None once the game is over."""
    return NewLiveEvent(
        LiveEvent.Kind.CLOCK, index, {"S": clocks["S"], "N": clocks["N"], "side": side, "at": at_ms}
    )


def live_game_start(
    match_id: int, index: int, south_id: int, north_id: int, start_position: str
) -> LiveGame:
    """Open (or reset, for a retried match) the live row of game ``index`` of a match and
    append its ``game`` event (and its starting ``clock``), the engines named by their
    versions (``greedy v1``); for callers other than the worker's publisher (fixtures,
    tools): a few queries."""
    first = live_last_seq(match_id) + 1
    live_game_open(match_id, index, south_id, north_id, start_position, first)
    live = LiveGame.objects.select_related("match", "south__engine", "north__engine").get(
        match_id=match_id, index=index
    )
    match = live.match
    base = base_clock_ms(match.time_control)
    live_events_append(
        match_id,
        [
            game_event(live, str(live.south), str(live.north)),
            clock_event(
                index,
                {"S": base, "N": base},
                _side_to_move(start_position),
                int(time.time() * 1000),
            ),
        ],
        after_seq=first - 1,
    )
    return live


def live_game_moves(live_id: int, moves: list[dict[str, Any]]) -> None:
    """Store the moves of a live game so far (``Game.moves`` shape): appends those past the
    ones it has, each as a ``move`` and a ``clock`` event (for fixtures and tools; the
    worker's publisher appends as it goes)."""
    from arena.matches.selectors import live_moves

    live = LiveGame.objects.select_related("match").get(pk=live_id)
    have = live_moves(live)
    base = base_clock_ms(live.match.time_control)
    clocks: dict[str, int | None] = {"S": base, "N": base}
    for move in have:
        clocks[str(move["side"])] = int(move["clock_ms"])
    events: list[NewLiveEvent] = []
    now = int(time.time() * 1000)
    for move in moves[len(have) :]:
        record = {k: v for k, v in move.items() if k != "ignored"}
        events.append(NewLiveEvent(LiveEvent.Kind.MOVE, live.index, record))
        clocks[str(move["side"])] = int(move["clock_ms"])
        side = _side_to_move(str(move.get("position", "")))
        events.append(clock_event(live.index, dict(clocks), side, now))
    live_events_append(live.match_id, events)


def live_game_mark_ended(live_id: int, result: str, termination: str, detail: str) -> None:
    """Mark a live row ended: ``aborted`` for the result ``*``, else ``finished`` (the row
    only; ``live_game_end`` appends the event too)."""
    status = LiveGame.Status.ABORTED if result == "*" else LiveGame.Status.FINISHED
    LiveGame.objects.filter(pk=live_id).update(
        status=status, result=result, termination=termination, detail=detail[:DETAIL_MAX]
    )


def end_event(index: int, result: str, termination: str, detail: str, plies: int) -> NewLiveEvent:
    """The ``end`` event of game ``index`` (``scope: game``)."""
    return NewLiveEvent(
        LiveEvent.Kind.END,
        index,
        {
            "scope": "game",
            "result": result,
            "termination": termination,
            "detail": detail[:DETAIL_MAX],
            "plies": plies,
        },
    )


def live_game_end(live_id: int, result: str, termination: str, detail: str) -> None:
    """Mark a live game ended (``live_game_mark_ended``) and append its ``end`` event."""
    from arena.matches.selectors import live_moves

    live_game_mark_ended(live_id, result, termination, detail)
    live = LiveGame.objects.get(pk=live_id)
    plies = len(live_moves(live))
    live_events_append(live.match_id, [end_event(live.index, result, termination, detail, plies)])


def match_end_event(
    match_id: int, index: int, score: tuple[float, float] | None
) -> NewLiveEvent | None:
    """The closing ``end`` event (``scope: match``) of a match that ended (``ENDED_STATUSES``):
    its ``status``, ``score`` (points of engine A, of engine B, or null) and ``games``: the
    stored replay of each game index (``{"1": game id, ...}``; empty for an aborted match).
    None while the match has not ended (still running, or back in the queue for a retry)."""
    status = Match.objects.filter(pk=match_id).values_list("status", flat=True).first()
    if status not in ENDED_STATUSES:
        return None
    games = dict(Game.objects.filter(match_id=match_id).values_list("index", "pk"))
    return NewLiveEvent(
        LiveEvent.Kind.END,
        index,
        {
            "scope": "match",
            "status": status,
            "score": list(score) if score is not None else None,
            "games": {str(i): pk for i, pk in sorted(games.items())},
        },
    )


def live_games_delete_ended(keep_seconds: float) -> int:
    """Delete the live rows and events of matches that ended (``ENDED_STATUSES``) more than
    ``keep_seconds`` ago (by ``Match.finished_at``); returns how many live rows went.
    Idempotent."""
    cutoff = timezone.now() - timedelta(seconds=keep_seconds)
    ended = {"match__status__in": ENDED_STATUSES, "match__finished_at__lt": cutoff}
    LiveEvent.objects.filter(**ended).delete()
    deleted, _ = LiveGame.objects.filter(**ended).delete()
    return deleted


class _Close:
    """The mark ``LivePublisher.stop`` queues last: the match left the referee."""


class LivePublisher:
    """Publishes the referee's events of one match (``on_event``) as ``LiveEvent`` rows.

    ``start()`` before the match, ``stop()`` after it is recorded (waits up to
    ``STOP_TIMEOUT_S`` for the queued events to be written; the last is the match's closing
    ``end`` once it left ``running``). The writes run on the worker process's link thread
    and connection (``arena.matches.keeper.WorkerLink``, shared with the lease keeping of
    every match of the process): a batch of moves is one INSERT. Engines are told apart by
    the names the referee gives them (``engine_names``). Called inside a database transaction
    (a test's), the publisher stays off: the link's connection could not see the uncommitted
    match.
    """

    def __init__(self, match: Match) -> None:
        name_a, name_b = engine_names(str(match.engine_a), str(match.engine_b))
        self.match_id = match.pk
        self._versions = {name_a: match.engine_a_id, name_b: match.engine_b_id}
        self._base_ms = base_clock_ms(match.time_control)
        self._seq: int | None = None  # the last seq written, read once per match
        self._live_id: int | None = None
        self._index = 0
        self._plies = 0
        self._clocks: dict[str, int | None] = {}
        self._score: tuple[float, float] | None = None
        self.enabled = False

    def on_event(self, event: RefereeEvent) -> None:
        """The referee's callback: stamp and queue the event (constant time, never blocks)."""
        if self.enabled:
            worker_link().publish(self, (int(time.time() * 1000), event))

    def start(self) -> None:
        if connection.in_atomic_block:
            log.debug("match %s: inside a transaction, live games are not published", self.match_id)
            return
        self.enabled = True

    def stop(self) -> None:
        if not self.enabled:
            return
        self.enabled = False
        worker_link().publish(self, (int(time.time() * 1000), _Close()))
        worker_link().flush(self, STOP_TIMEOUT_S)

    def write(self, batch: list[tuple[int, RefereeEvent | _Close]]) -> None:
        """Write the events that piled up (on the link's thread): one INSERT of their
        ``LiveEvent`` rows, after the live row writes of a game that starts or ends. Nothing
        (no query) while no game of the match has started and none starts in the batch."""
        if not self._index and not any(isinstance(event, GameStart) for _, event in batch):
            for _, event in batch:
                if isinstance(event, MatchEnd):
                    self._score = event.score
            return
        if self._seq is None:
            self._seq = live_last_seq(self.match_id)
        try:
            events: list[NewLiveEvent] = []
            for at_ms, event in batch:
                events.extend(self._events_of(at_ms, event, self._seq + len(events)))
            self._seq = live_events_append(self.match_id, events, after_seq=self._seq)
        except Exception:
            self._seq = None  # an INSERT that may have landed: count again next time
            raise

    def _events_of(self, at_ms: int, event: RefereeEvent | _Close, seq: int) -> list[NewLiveEvent]:
        if isinstance(event, GameStart):
            live = live_game_open(
                self.match_id,
                event.index,
                self._versions[event.south],
                self._versions[event.north],
                event.start_position,
                seq + 1,
            )
            self._live_id, self._index, self._plies = live.pk, event.index, 0
            self._clocks = {"S": self._base_ms, "N": self._base_ms}
            side = _side_to_move(event.start_position)
            return [
                game_event(live, event.south, event.north),
                clock_event(event.index, dict(self._clocks), side, at_ms),
            ]
        if isinstance(event, MovePlayed) and self._live_id is not None:
            record = event.record
            self._plies += 1
            self._clocks[record.side] = record.clock_ms
            side = _side_to_move(record.position)
            # The ``Game.moves`` shape, without the lines the referee ignored.
            return [
                NewLiveEvent(LiveEvent.Kind.MOVE, event.index, record.to_dict(ignored=False)),
                clock_event(event.index, dict(self._clocks), side, at_ms),
            ]
        if isinstance(event, GameEnd) and self._live_id is not None:
            termination = str(event.termination)
            live_game_mark_ended(self._live_id, event.result, termination, event.detail)
            self._live_id = None
            return [
                clock_event(event.index, dict(self._clocks), None, at_ms),
                end_event(event.index, event.result, termination, event.detail, event.plies),
            ]
        if isinstance(event, MatchEnd):
            self._score = event.score
        if isinstance(event, _Close) and self._index:
            closing = match_end_event(self.match_id, self._index, self._score)
            return [closing] if closing is not None else []
        return []
