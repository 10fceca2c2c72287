"""The OpenAPI description of ``GET /api/play/{id}/events`` (an async Django view, which
drf-spectacular does not see: a postprocessing hook adds it, as for the live games')."""

from __future__ import annotations

from typing import Any

from arena.matches.schema import events_operation

EVENTS_PATH = "/api/play/{game_id}/events"


def add_play_events(result: dict[str, Any], **_: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: add the person's game's event stream to
    ``result`` (a schema of the play API's views: one that has ``/api/play/{game_id}/``)."""
    if "/api/play/{game_id}/" not in result.get("paths", {}):
        return result
    result["paths"][EVENTS_PATH] = events_operation(
        result,
        operation_id="play_events",
        summary="A person's game's events as Server-Sent Events (public)",
        description=(
            "`text/event-stream`: the events `game`, `move`, `clock` and `end` of a "
            "person's game against an engine, until its `end`; each with `id:` (its seq) "
            "and one line of JSON `data:`. Public: anyone may watch a game. Resume with "
            "the `Last-Event-ID` header (or `last_event_id`). Shapes: docs/play.md. 503 "
            "`live_stream_unavailable` from a WSGI server; 429 `too_many_streams` past the "
            "client's cap."
        ),
        tag="play",
        what="game",
        param="game_id",
    )
    return result
