"""Live games: the worker publishes each move as the referee makes it, off the move path.

The referee calls its ``on_event`` callback after a move is applied and recorded, before it
asks the next engine, and not while a clock runs; still, anything slow there delays the game.
So ``LivePublisher.on_event`` only puts the event on a queue (never blocks), and the worker
process's link thread (``arena.matches.keeper.WorkerLink``, which also keeps the leases of the
process's matches, on the one connection of both) drains the queue and writes ``LiveGame``
rows: one write per batch of events that piled up. During a database outage the events are
dropped and counted (one log line per outage); the game is never disturbed.

The writes (``live_game_start``, ``live_game_moves``, ``live_game_end``) are services like
any other; the reads live in ``selectors``.

A live row is only needed while its match is played and a little after: a viewer still
polling learns the end of the game and the id of the stored replay (``Game``), which holds
everything the live row did. ``live_games_delete_ended`` (the beat job
``delete_ended_live_games``, every minute) deletes the rows of matches that ended (finished or
aborted) more than ``settings.BAO_LIVE_KEEP_SECONDS`` ago, so the table holds about the games
being played rather than every game ever played.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from django.db import connection
from django.utils import timezone

from arena.matches.keeper import worker_link
from arena.matches.models import ENDED_STATUSES, LiveGame, Match
from arena.referee.events import GameEnd, GameStart, MovePlayed, RefereeEvent
from arena.referee.match import engine_names

log = logging.getLogger(__name__)

#: Seconds ``LivePublisher.stop`` waits for the writer to finish the last events.
STOP_TIMEOUT_S = 10.0


def live_game_start(
    match_id: int, index: int, south_id: int, north_id: int, start_position: str
) -> LiveGame:
    """Open (or reset, for a retried match) the live row of game ``index`` of a match."""
    live, _ = LiveGame.objects.update_or_create(
        match_id=match_id,
        index=index,
        defaults={
            "south_id": south_id,
            "north_id": north_id,
            "start_position": start_position,
            "moves": [],
            "status": LiveGame.Status.RUNNING,
            "result": "",
            "termination": "",
            "detail": "",
        },
    )
    return live


def live_game_moves(live_id: int, moves: list[dict[str, Any]]) -> None:
    """Store the moves of a live game so far (``Game.moves`` shape)."""
    LiveGame.objects.filter(pk=live_id).update(moves=moves)


def live_game_end(live_id: int, result: str, termination: str, detail: str) -> None:
    """Mark a live game ended: ``aborted`` for the result ``*``, else ``finished``."""
    status = LiveGame.Status.ABORTED if result == "*" else LiveGame.Status.FINISHED
    LiveGame.objects.filter(pk=live_id).update(
        status=status, result=result, termination=termination, detail=detail[:2000]
    )


def live_games_delete_ended(keep_seconds: float) -> int:
    """Delete the live rows of matches that ended (``ENDED_STATUSES``) more than
    ``keep_seconds`` ago (by ``Match.finished_at``); returns how many rows went. Idempotent."""
    cutoff = timezone.now() - timedelta(seconds=keep_seconds)
    deleted, _ = LiveGame.objects.filter(
        match__status__in=ENDED_STATUSES, match__finished_at__lt=cutoff
    ).delete()
    return deleted


class LivePublisher:
    """Publishes the referee's events of one match (``on_event``) to ``LiveGame`` rows.

    ``start()`` before the match, ``stop()`` after it (waits up to ``STOP_TIMEOUT_S`` for the
    queued events to be written). The writes run on the worker process's link thread and
    connection (``arena.matches.keeper.WorkerLink``, shared with the lease keeping of every
    match of the process). Engines are told apart by the names the referee gives them
    (``engine_names``). Called inside a database transaction (a test's), the publisher stays
    off: the link's connection could not see the uncommitted match.
    """

    def __init__(self, match: Match) -> None:
        name_a, name_b = engine_names(str(match.engine_a), str(match.engine_b))
        self.match_id = match.pk
        self._versions = {name_a: match.engine_a_id, name_b: match.engine_b_id}
        self._live_id: int | None = None
        self._moves: list[dict[str, Any]] = []
        self.enabled = False

    def on_event(self, event: RefereeEvent) -> None:
        """The referee's callback: queue the event (constant time, never blocks)."""
        if self.enabled:
            worker_link().publish(self, event)

    def start(self) -> None:
        if connection.in_atomic_block:
            log.debug("match %s: inside a transaction, live games are not published", self.match_id)
            return
        self.enabled = True

    def stop(self) -> None:
        if not self.enabled:
            return
        self.enabled = False
        worker_link().flush(self, STOP_TIMEOUT_S)

    def write(self, batch: list[RefereeEvent]) -> None:
        """Write the events that piled up (on the link's thread; one write for each run of
        moves)."""
        self._write(batch)

    def _write(self, batch: list[RefereeEvent]) -> None:
        moved = False
        for event in batch:
            if isinstance(event, GameStart):
                if moved:
                    self._flush()
                    moved = False
                self._moves = []
                live = live_game_start(
                    self.match_id,
                    event.index,
                    self._versions[event.south],
                    self._versions[event.north],
                    event.start_position,
                )
                self._live_id = live.pk
            elif isinstance(event, MovePlayed) and self._live_id is not None:
                # The ``Game.moves`` shape, without the lines the referee ignored.
                self._moves.append(event.record.to_dict(ignored=False))
                moved = True
            elif isinstance(event, GameEnd) and self._live_id is not None:
                if moved:
                    self._flush()
                    moved = False
                live_game_end(self._live_id, event.result, str(event.termination), event.detail)
                self._live_id = None
        if moved:
            self._flush()

    def _flush(self) -> None:
        if self._live_id is not None:
            live_game_moves(self._live_id, list(self._moves))
