"""Server-Sent Events of a person's game: ``GET /api/play/{id}/events`` (docs/play.md,
"Watching a game").

The live games' stream (``arena.matches.livestream``, docs/live.md) with the person's game as
its source (``PERSON_GAMES``): its ``PersonGameEvent`` rows, polled by the same shared hub (one
per event loop for this source, one query every ``POLL_S`` for every game some stream
watches), framed the same way (``id:`` the seq, ``event:`` the kind, ``data:`` one line of
JSON). The events are those of a live game's (``game``, ``move`` with its ``trace``,
``clock`` with ``elapsed_ms``, ``end``), with ``index`` always 1 and ``game`` (the game's id)
in place of ``live``; the stream ends after the game's ``end``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.matches.livestream import (
    Encoder,
    StreamEvent,
    StreamStart,
    read_more,
    read_start,
    sse_frame,
)
from people import selectors
from people.models import PersonGame


def closing_frame(game_id: int, seq: int, encoder: Encoder) -> bytes | None:
    """The ``end`` of a game that is over without one among its events (one ended before
    events were kept), from its row; None while it is open."""
    game = PersonGame.objects.filter(pk=game_id).first()
    if game is not None and game.status not in (
        PersonGame.Status.FINISHED,
        PersonGame.Status.ABORTED,
    ):
        return None
    data: dict[str, Any] = {"scope": "game", "seq": seq, "index": 1, "game": game_id}
    if game is None:
        data |= {"result": "*", "termination": "aborted", "detail": "deleted", "plies": 0}
    else:
        data |= {
            "result": game.result,
            "termination": game.termination,
            "detail": game.detail,
            "plies": game.plies,
        }
    return sse_frame("end", seq, data)


def stream_start(game: PersonGame, last_event_id: int | None) -> StreamStart:
    """The events a stream of ``game`` starts with: all of them (for the traces), the frames
    of those after ``last_event_id`` (sync)."""
    return read_start(
        selectors.game_events_from(game.pk),
        1,
        last_event_id,
        Encoder(game.variant, ref="game", closing_scope="game"),
        lambda seq, encoder: closing_frame(game.pk, seq, encoder),
    )


class _PersonGames:
    """The source of people's games' streams (``arena.matches.livestream.StreamSource``)."""

    def events_after(self, cursors: dict[int, int], limit: int) -> Sequence[StreamEvent]:
        return selectors.game_events_after(cursors, limit)

    def key_of(self, event: Any) -> int:
        return int(event.game_id)

    def more(self, key: int, start: StreamStart, upto: int) -> StreamStart:
        return read_more(selectors.game_events_from(key, start.last_seq + 1), start, upto)

    def ended(self, keys: list[int]) -> set[int]:
        return selectors.games_ended(keys)

    def closing_frame(self, key: int, seq: int, encoder: Encoder) -> bytes | None:
        return closing_frame(key, seq, encoder)


PERSON_GAMES = _PersonGames()
