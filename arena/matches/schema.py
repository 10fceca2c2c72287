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
    result.setdefault("paths", {})[EVENTS_PATH] = events_operation(
        result,
        operation_id="live_events",
        summary="A live game's events as Server-Sent Events",
        description=(
            "`text/event-stream`: the events `game`, `move`, `clock` and `end` of the "
            "game and of the later games of its match, until the match's `end` "
            "(`scope: match`); each with `id:` (its seq) and one line of JSON `data:`. "
            "Resume with the `Last-Event-ID` header (or `last_event_id`). Shapes: "
            "docs/live.md. 503 `live_stream_unavailable` from a WSGI server; 429 "
            "`too_many_streams` past the client's cap."
        ),
        tag="live",
        what="live game",
    )
    return result


def events_operation(
    result: dict[str, Any],
    *,
    operation_id: str,
    summary: str,
    description: str,
    tag: str,
    what: str,
    param: str = "id",
) -> dict[str, Any]:
    """The OpenAPI path item of an event stream ``GET .../{id}/events`` of a ``what`` (its
    id path parameter ``param``, ``Last-Event-ID``, the 200/400/404/429/503 answers), for ``result``
    (the schema it goes in: its ``Error`` component, if any, is the errors' body)."""
    error = {"$ref": "#/components/schemas/Error"} if "Error" in _schemas(result) else {}
    error_content = {"application/json": {"schema": error}} if error else {}
    return {
        "get": {
            "operationId": operation_id,
            "summary": summary,
            "description": description,
            "tags": [tag],
            "parameters": [
                {
                    "name": param,
                    "in": "path",
                    "required": True,
                    "schema": {"type": "integer"},
                    "description": f"The {what}'s id.",
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
                "404": {"description": f"No {what} with this id.", "content": error_content},
                "429": {
                    "description": "The client holds BAO_LIVE_STREAMS_PER_CLIENT streams "
                    "open already (`too_many_streams`; `Retry-After`).",
                    "content": error_content,
                },
                "503": {
                    "description": "Served by a WSGI server (`live_stream_unavailable`).",
                    "content": error_content,
                },
            },
        }
    }


def _schemas(result: dict[str, Any]) -> dict[str, Any]:
    components: dict[str, Any] = result.get("components", {})
    schemas: dict[str, Any] = components.get("schemas", {})
    return schemas
