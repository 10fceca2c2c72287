"""The OpenAPI description of ``GET /api/live/{id}/events`` (drf-spectacular documents DRF
views; the event stream is an async Django view, so a postprocessing hook adds it)."""

from __future__ import annotations

from typing import Any

EVENTS_PATH = "/api/live/{id}/events"


def add_live_events(result: dict[str, Any], **_: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: add the event stream's operation to ``result``
    (a schema of the matches API's views: one that has ``/api/live/{id}/``)."""
    if "/api/live/{id}/" not in result.get("paths", {}):
        return result
    error = {"$ref": "#/components/schemas/Error"} if "Error" in _schemas(result) else {}
    error_content = {"application/json": {"schema": error}} if error else {}
    result.setdefault("paths", {})[EVENTS_PATH] = {
        "get": {
            "operationId": "live_events",
            "summary": "A live game's events as Server-Sent Events",
            "description": (
                "`text/event-stream`: the events `game`, `move`, `clock` and `end` of the "
                "game and of the later games of its match, until the match's `end` "
                "(`scope: match`); each with `id:` (its seq) and one line of JSON `data:`. "
                "Resume with the `Last-Event-ID` header (or `last_event_id`). Shapes: "
                "docs/live.md. 503 `live_stream_unavailable` from a WSGI server."
            ),
            "tags": ["live"],
            "parameters": [
                {
                    "name": "id",
                    "in": "path",
                    "required": True,
                    "schema": {"type": "integer"},
                    "description": "The live game's id.",
                },
                {
                    "name": "last_event_id",
                    "in": "query",
                    "required": False,
                    "schema": {"type": "integer", "minimum": 0},
                    "description": "Send only the events after this one (as Last-Event-ID).",
                },
                {
                    "name": "Last-Event-ID",
                    "in": "header",
                    "required": False,
                    "schema": {"type": "integer", "minimum": 0},
                    "description": "The id of the last event the client has.",
                },
            ],
            "responses": {
                "200": {
                    "description": "The event stream.",
                    "content": {"text/event-stream": {"schema": {"type": "string"}}},
                },
                "400": {
                    "description": "A junk Last-Event-ID (`invalid`).",
                    "content": error_content,
                },
                "404": {"description": "No live game with this id.", "content": error_content},
                "503": {
                    "description": "Served by a WSGI server (`live_stream_unavailable`).",
                    "content": error_content,
                },
            },
        }
    }
    return result


def _schemas(result: dict[str, Any]) -> dict[str, Any]:
    components: dict[str, Any] = result.get("components", {})
    schemas: dict[str, Any] = components.get("schemas", {})
    return schemas
