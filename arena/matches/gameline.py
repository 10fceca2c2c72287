"""One game as one JSON line: the format of ``GET /api/games/export/`` and ``bao-match --out``.

Pure (no Django): the service builds a ``GameLine`` from a stored game
(``arena.matches.gamerecord.game_line``), the local match runner from a referee
``GameRecord`` (``arena.bao_match.output``); both write ``GameLine.to_json()``. The fields are
those of the replay (``GET /api/games/{id}/``, without the per-move sowing ``trace``, which
``arena.matches.replay.move_traces`` recomputes from the text) plus the game's ``record``: its
text record (``GET /api/games/{id}/record.txt``), built here by ``record_text``.

Text record layout, in the manner of PGN: a block of tag pairs (``[Name "value"]``, one per
line, values with ``\\`` and ``"`` escaped), a blank line, the numbered move list in the
notation of ``docs/rules/README.md`` section 6 (``1. f2- e3+ 2. ...``, wrapped at 79 columns,
ending with the result), a blank line and the final position (BPN/KPN, rules 7) on a line of
its own after ``Final position:``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

LINE_WIDTH = 79


@dataclass(frozen=True, kw_only=True)
class EngineRef:
    """An engine as a game line names it: ``{"id", "engine", "version", "label"}`` as the API's
    engine-version references (``id`` and ``version`` None for an engine played locally)."""

    engine: str
    label: str
    id: int | None = None
    version: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "engine": self.engine, "version": self.version, "label": self.label}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EngineRef:
        """Raises ``KeyError``/``TypeError`` for a malformed reference."""
        return cls(
            engine=str(data["engine"]),
            label=str(data["label"]),
            id=data.get("id"),
            version=data.get("version"),
        )


@dataclass(frozen=True, kw_only=True)
class GameLine:
    """One finished game. ``id``: the service's game id (the runner's: the game's number in
    its schedule, from 1); ``match``: the match id (the runner's: the game pair's number, from
    1); ``index``: the game's number in its match (1 or 2 in a pair). ``event``: the
    tournament's name, ``"Bao Arena challenge"``, ``"Bao Arena match"`` or ``"bao-match"``;
    ``round`` its round or None. ``moves``: the stored moves (``MoveRecord.to_dict()``:
    ``ply``, ``side``, ``move``, ``time_ms``, ``clock_ms``, ``position``, ``info``).
    ``started_at``/``finished_at``: ISO 8601 UTC text or None; ``duration_ms`` in ms."""

    id: int | None
    match: int | None
    index: int
    event: str
    round: int | None
    variant: str
    time_control: str
    seed: int
    south: EngineRef
    north: EngineRef
    winner: EngineRef | None
    result: str
    termination: str
    rated: bool
    plies: int
    start_position: str
    final_position: str
    moves: Sequence[Mapping[str, Any]] = field(default_factory=list)
    scores: Sequence[int] | None = None
    seeds_in_hand: int = 0
    engine_errors: Mapping[str, str] = field(default_factory=dict)
    detail: str = ""
    time_loss: Mapping[str, Any] | None = None
    started_at: str | None = None
    duration_ms: int = 0
    finished_at: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The line's JSON object: the fields above, engines as ``EngineRef.to_dict()``, and
        ``record``, the text record (``record_text``)."""
        return {
            "id": self.id,
            "match": self.match,
            "index": self.index,
            "event": self.event,
            "round": self.round,
            "variant": self.variant,
            "time_control": self.time_control,
            "seed": self.seed,
            "south": self.south.to_dict(),
            "north": self.north.to_dict(),
            "winner": self.winner.to_dict() if self.winner is not None else None,
            "result": self.result,
            "termination": self.termination,
            "rated": self.rated,
            "plies": self.plies,
            "start_position": self.start_position,
            "final_position": self.final_position,
            "moves": [dict(m) for m in self.moves],
            "scores": list(self.scores) if self.scores is not None else None,
            "seeds_in_hand": self.seeds_in_hand,
            "engine_errors": dict(self.engine_errors),
            "detail": self.detail,
            "time_loss": dict(self.time_loss) if self.time_loss is not None else None,
            "started_at": self.started_at,
            "duration_ms": self.duration_ms,
            "finished_at": self.finished_at,
            "record": record_text(self),
        }

    def to_json(self) -> str:
        """``to_dict()`` as one line of compact JSON, without the newline."""
        return json.dumps(self.to_dict(), separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameLine:
        """The line back from its JSON object (``record`` is recomputed, not read). Raises
        ``KeyError``, ``TypeError`` or ``ValueError`` for a malformed object."""
        winner = data.get("winner")
        return cls(
            id=data["id"],
            match=data["match"],
            index=int(data["index"]),
            event=str(data["event"]),
            round=data.get("round"),
            variant=str(data["variant"]),
            time_control=str(data["time_control"]),
            seed=int(data["seed"]),
            south=EngineRef.from_dict(data["south"]),
            north=EngineRef.from_dict(data["north"]),
            winner=EngineRef.from_dict(winner) if winner is not None else None,
            result=str(data["result"]),
            termination=str(data["termination"]),
            rated=bool(data["rated"]),
            plies=int(data["plies"]),
            start_position=str(data["start_position"]),
            final_position=str(data["final_position"]),
            moves=list(data.get("moves") or []),
            scores=data.get("scores"),
            seeds_in_hand=int(data.get("seeds_in_hand") or 0),
            engine_errors=dict(data.get("engine_errors") or {}),
            detail=str(data.get("detail") or ""),
            time_loss=data.get("time_loss"),
            started_at=data.get("started_at"),
            duration_ms=int(data.get("duration_ms") or 0),
            finished_at=data.get("finished_at"),
        )


def _tag(name: str, value: object) -> str:
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name} "{text}"]'


def record_tags(line: GameLine) -> list[str]:
    """The tag pairs of the text record, in order (module docstring)."""
    when = line.started_at or line.finished_at or ""
    tags = [
        _tag("Event", line.event),
        _tag("Site", "Bao Arena"),
        _tag("Date", when[:10].replace("-", ".") if when else "????.??.??"),
        _tag("Round", line.round if line.round is not None else "-"),
        _tag("Match", line.match if line.match is not None else "-"),
        _tag("Game", line.index),
        _tag("Variant", line.variant),
        _tag("South", line.south.label),
        _tag("North", line.north.label),
        _tag("Result", line.result),
        _tag("Termination", line.termination),
        _tag("TimeControl", line.time_control),
        _tag("Seed", line.seed),
        _tag("Rated", "yes" if line.rated else "no"),
        _tag("Plies", line.plies),
        _tag("StartPosition", line.start_position),
    ]
    if line.scores is not None:
        tags.append(_tag("Scores", "-".join(str(s) for s in line.scores)))
    if line.seeds_in_hand:
        tags.append(_tag("SeedsInHand", line.seeds_in_hand))
    if line.detail:
        tags.append(_tag("Detail", line.detail))
    return tags


def move_number(move: Mapping[str, Any], previous_side: str | None) -> str:
    """The label printed before ``move`` (a stored move: ``ply``, ``side``): ``"3."`` before a
    South move, ``"3..."`` before a North move that does not follow a South move, else ``""``.
    Moves are numbered in pairs, South's first (ply 5 and 6 are move 3). The web replay uses
    the same labels."""
    number = (int(move["ply"]) + 1) // 2
    if move["side"] == "S":
        return f"{number}."
    return f"{number}..." if previous_side != "S" else ""


def move_tokens(moves: Sequence[Mapping[str, Any]]) -> list[str]:
    """``["1.", "f2-", "e3+", "2.", ...]``: a number before each South move, and ``"1..."`` style
    before a North move that does not follow a South move (a record starting with North)."""
    tokens: list[str] = []
    previous_side = None
    for move in moves:
        label = move_number(move, previous_side)
        if label:
            tokens.append(label)
        tokens.append(str(move["move"]))
        previous_side = move["side"]
    return tokens


def _wrap(tokens: list[str]) -> list[str]:
    lines: list[str] = []
    current = ""
    for token in tokens:
        candidate = f"{current} {token}" if current else token
        if len(candidate) > LINE_WIDTH and current:
            lines.append(current)
            current = token
        else:
            current = candidate
    if current:
        lines.append(current)
    return lines


def record_text(line: GameLine) -> str:
    """The text record of ``line`` (module docstring); ends with a newline."""
    movetext = _wrap([*move_tokens(line.moves), line.result])
    parts = [*record_tags(line), "", *movetext, "", f"Final position: {line.final_position}"]
    return "\n".join(parts) + "\n"
