"""Playing a person's game on a people slot (the body of ``people.tasks.play_person_game``).

The slot claims the game (``person_game_claim``), checks out the engine's package, starts it
in its sandbox (``arena.referee.EngineSlot``, the match workers' sandbox and limits) and plays
``arena.referee.person.play_person_game``: the engine under the referee's checks, the person's
moves read from the row the API writes (``RowPerson``, a read every ``POLL_S``). Each move is
written back as it is played (``person_game_publish``; the person's clock starts then), and at
the end the result (``person_game_finish``). Every engine process is gone when it returns
(``close_all`` in a ``finally``), whatever happened: the slot is free for the next game.
"""

from __future__ import annotations

import logging
import socket
import time
from dataclasses import replace
from typing import Any

from django.conf import settings
from django.db import close_old_connections

from arena.matches.runner import default_referee_config
from arena.referee import EngineSlot, RefereeConfig, StartError, TimeControl
from arena.referee.events import MovePlayed, RefereeEvent
from arena.referee.person import PersonAction, play_person_game
from arena.referee.players import close_all
from engines.storage import checkout
from people.models import PersonGame
from people.services import (
    person_game_abort,
    person_game_claim,
    person_game_finish,
    person_game_publish,
)

log = logging.getLogger(__name__)

#: How often the worker reads the row for the person's move (s): with the write of the move
#: itself, the most a person's move waits before the engine is asked (docs/play.md; the
#: relay is measured by ``benchmarks/bench_people.py``).
POLL_S = 0.02


class RowPerson:
    """The person's side of game ``game_id``: what the API left on its row (``PersonSource``)."""

    def __init__(self, game_id: int, poll_s: float = POLL_S) -> None:
        self.game_id = game_id
        self.poll_s = poll_s

    def _read(self) -> tuple[int | None, str, Any, bool] | None:
        row = (
            PersonGame.objects.filter(pk=self.game_id)
            .values_list("pending_ply", "pending_move", "pending_at", "resign_requested")
            .first()
        )
        return row

    def next_action(self, ply: int, timeout_s: float) -> PersonAction | None:
        deadline = time.monotonic() + timeout_s
        while True:
            row = self._read()
            if row is None:  # the row was deleted (the user's account): resign for them
                return PersonAction(resign=True)
            pending_ply, move, pending_at, resigned = row
            if resigned:
                return PersonAction(resign=True)
            if pending_ply == ply and move:
                accepted = int(pending_at.timestamp() * 1e9) if pending_at is not None else 0
                return PersonAction(token=move, accepted_ns=accepted)
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            time.sleep(min(self.poll_s, left))

    def resigned(self) -> bool:
        row = self._read()
        return row is None or bool(row[3])


class _Publisher:
    """Writes each move to the row as the referee plays it (the person's board reads it)."""

    def __init__(self, game_id: int) -> None:
        self.game_id = game_id
        self.moves: list[dict[str, Any]] = []

    def on_event(self, event: RefereeEvent) -> None:
        if isinstance(event, MovePlayed):
            self.moves.append(event.record.to_dict(ignored=False))
            person_game_publish(self.game_id, list(self.moves), event.record)


#: The option through which people's games cap an engine's think time per move (ms; sent
#: only to an engine that declares it: docs/play.md, "The engine's pace").
MOVE_TIME_OPTION = "MaxMoveTime"


def people_config(config: RefereeConfig) -> RefereeConfig:
    """``config`` with ``MaxMoveTime`` set to ``BAO_PEOPLE_ENGINE_MOVE_MS`` among its engine
    options (unchanged when the setting is 0 or the option is set already)."""
    move_ms = settings.BAO_PEOPLE_ENGINE_MOVE_MS
    if move_ms <= 0 or MOVE_TIME_OPTION in config.engine_options:
        return config
    return replace(config, engine_options={**config.engine_options, MOVE_TIME_OPTION: str(move_ms)})


def worker_name() -> str:
    return f"people@{socket.gethostname()}"


def play(game_id: int, *, config: RefereeConfig | None = None) -> str:
    """Claim and play person game ``game_id``; returns ``skipped`` (not pending), ``finished``
    or ``aborted``. ``config``: the referee's settings (tests: ``sandbox=off``); default the
    match workers' (``default_referee_config``)."""
    game = person_game_claim(game_id, worker_name())
    if game is None:
        return "skipped"
    config = people_config(config or default_referee_config())
    version = game.engine
    person_name = f"person:{game.player_id}"
    slot: EngineSlot | None = None
    try:
        with checkout(version) as package:
            slot = EngineSlot(package, f"{version.engine.name} v{version.number}", config)
            publisher = _Publisher(game.pk)
            record = play_person_game(
                game.variant,
                slot,
                engine_side=game.engine_side,
                person=RowPerson(game.pk),
                person_name=person_name,
                time_control=TimeControl.parse(game.time_control),
                config=config,
                start=game.start_position,
                seed=game.seed,
                on_event=publisher.on_event,
            )
    except StartError as exc:
        person_game_abort(game.pk, str(exc))
        return "aborted"
    except Exception as exc:  # the package could not be fetched, a database error: ours
        log.exception("person game %s failed", game.pk)
        close_old_connections()
        person_game_abort(game.pk, f"{type(exc).__name__}: {exc}")
        return "aborted"
    finally:
        if slot is not None:
            close_all([slot])
    person_game_finish(game.pk, record)
    return "aborted" if record.result == "*" else "finished"
