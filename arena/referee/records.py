"""The match record: what the referee hands back and stores (contracts, "The referee").

``MatchRecord.to_dict()`` is the stored/JSON form; its shape is the agreed contract.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class MoveRecord:
    """One ply: ``time_ms`` from ``go`` written to ``bestmove`` read, ``clock_ms`` the mover's
    clock after the move (increment added), ``position`` the text after the move, ``info`` the
    engine's ``info`` lines for this move (without the ``info `` prefix), ``ignored`` the lines
    of the mover the referee ignored since its previous move (before this move's ``readyok``,
    or between games; at most ``client.IGNORED_KEEP``): ``to_dict`` has the key only when
    there are some."""

    ply: int
    side: str
    move: str
    time_ms: int
    clock_ms: int
    position: str
    info: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "ply": self.ply,
            "side": self.side,
            "move": self.move,
            "time_ms": self.time_ms,
            "clock_ms": self.clock_ms,
            "position": self.position,
            "info": list(self.info),
        }
        if self.ignored:
            d["ignored"] = list(self.ignored)
        return d


@dataclass
class GameRecord:
    """One game. ``result`` is ``"1-0"``/``"0-1"``/``"1/2-1/2"``, or ``"*"`` when aborted;
    ``winner`` an engine name or None; ``termination`` a code of ``arena.terminations``;
    ``scores`` (Kingulu) ``[south, north]``; ``ignored`` (engine name -> lines) what the
    referee ignored from an engine outside its moves (before the game's first ``go``, at the
    move that ended the game, after its last move): in ``to_dict`` only when not empty."""

    index: int
    south: str
    north: str
    start_position: str
    final_position: str = ""
    result: str = "*"
    winner: str | None = None
    termination: str = ""
    scores: list[int] | None = None
    seeds_in_hand: int = 0
    plies: int = 0
    started_at: str = ""
    duration_ms: int = 0
    moves: list[MoveRecord] = field(default_factory=list)
    engine_errors: dict[str, str] = field(default_factory=dict)
    detail: str = ""
    ignored: dict[str, list[str]] = field(default_factory=dict)

    def points(self, name: str) -> float:
        """Points of engine ``name`` in this game (1, 0.5 for a draw, 0; 0 when aborted)."""
        if self.result == "*":
            return 0.0
        if self.winner is None:
            return 0.5
        return 1.0 if self.winner == name else 0.0

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "index": self.index,
            "south": self.south,
            "north": self.north,
            "start_position": self.start_position,
            "final_position": self.final_position,
            "result": self.result,
            "winner": self.winner,
            "termination": self.termination,
            "scores": list(self.scores) if self.scores is not None else None,
            "seeds_in_hand": self.seeds_in_hand,
            "plies": self.plies,
            "started_at": self.started_at,
            "duration_ms": self.duration_ms,
            "moves": [m.to_dict() for m in self.moves],
            "engine_errors": dict(self.engine_errors),
            "detail": self.detail,
        }
        if self.ignored:
            d["ignored"] = {name: list(lines) for name, lines in self.ignored.items()}
        return d


@dataclass
class MatchRecord:
    """A best-of-three match between ``engines[0]`` (A) and ``engines[1]`` (B)."""

    variant: str
    seed: int
    time_control: str
    engines: list[str]
    games: list[GameRecord] = field(default_factory=list)
    aborted: bool = False

    @property
    def score(self) -> list[float]:
        return [sum(g.points(name) for g in self.games) for name in self.engines]

    @property
    def winner(self) -> str | None:
        if self.aborted:
            return None
        a, b = self.score
        if a == b:
            return None
        return self.engines[0] if a > b else self.engines[1]

    def to_dict(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "seed": self.seed,
            "time_control": self.time_control,
            "engines": list(self.engines),
            "score": self.score,
            "winner": self.winner,
            "aborted": self.aborted,
            "games": [g.to_dict() for g in self.games],
        }
