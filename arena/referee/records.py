"""The match record: what the referee hands back and stores (contracts, "The referee").

The records are frozen dataclasses, built once a game (a match) is over: the worker hands the
``MatchRecord`` itself to the recording service (``arena.matches.services.match_record_result``),
never a dict read by string keys. ``MatchRecord.to_dict()`` is the JSON form (the referee's
``--json`` output, the stored ``Game.moves``/``Game.time_loss``); its shape is the agreed
contract (docs/referee.md, "Record format").

The list and dict fields are plain lists and dicts (the shapes ``to_dict`` writes), not to be
changed once the record is built.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arena.terminations import Termination

from .hostload import HostLoad


@dataclass(frozen=True, kw_only=True)
class MoveRecord:
    """One ply: ``time_ms`` from ``go`` written to ``bestmove`` read, ``clock_ms`` the mover's
    clock after the move (increment added), ``position`` the text after the move, ``info`` the
    engine's ``info`` lines for this move (without the ``info `` prefix), ``ignored`` the lines
    of the mover the referee ignored since its previous move (before this move's ``readyok``,
    or between games; at most ``client.IGNORED_KEEP``): ``to_dict`` has the key only when
    there are some. ``side`` is ``"S"`` or ``"N"`` (``arena.rules.SOUTH``/``NORTH``)."""

    ply: int
    side: str
    move: str
    time_ms: int
    clock_ms: int
    position: str
    info: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)

    def to_dict(self, *, ignored: bool = True) -> dict[str, Any]:
        """The JSON form; ``ignored=False`` leaves the ignored lines out (the live pages)."""
        d: dict[str, Any] = {
            "ply": self.ply,
            "side": self.side,
            "move": self.move,
            "time_ms": self.time_ms,
            "clock_ms": self.clock_ms,
            "position": self.position,
            "info": list(self.info),
        }
        if ignored and self.ignored:
            d["ignored"] = list(self.ignored)
        return d


@dataclass(frozen=True, kw_only=True)
class TimeLoss:
    """Why a ``time_forfeit`` came (issue 12): ``overrun_ms`` how far past its clock the engine
    answered (for an engine that never answered, ``answered`` False, the grace it exceeded),
    ``clock_ms`` the clock it had, ``load`` the host's load then (``hostload``)."""

    overrun_ms: int
    clock_ms: int
    answered: bool
    load: HostLoad

    def to_dict(self) -> dict[str, Any]:
        """``{"overrun_ms", "clock_ms", "answered", "runnable", "load1", "cores"}`` (the stored
        ``Game.time_loss``)."""
        return {
            "overrun_ms": self.overrun_ms,
            "clock_ms": self.clock_ms,
            "answered": self.answered,
            "runnable": self.load.runnable,
            "load1": self.load.load1,
            "cores": self.load.cores,
        }


@dataclass(frozen=True, kw_only=True)
class GameRecord:
    """One game. ``result`` is ``"1-0"``/``"0-1"``/``"1/2-1/2"``, or ``"*"`` when aborted;
    ``winner`` an engine name or None; ``termination`` how it ended (``arena.terminations``);
    ``scores`` (Kingulu) ``[south, north]``; ``started_at`` ISO 8601 UTC (ms), ``duration_ms``
    its length; ``engine_errors`` (engine name -> stderr tail); ``ignored`` (engine name ->
    lines) what the referee ignored from an engine outside its moves (before the game's first
    ``go``, at the move that ended the game, after its last move): in ``to_dict`` only when not
    empty. ``time_loss`` (a ``time_forfeit`` only, likewise): how far past its clock the engine
    answered and the host's load then."""

    index: int
    south: str
    north: str
    start_position: str
    result: str
    winner: str | None
    termination: Termination
    final_position: str = ""
    scores: list[int] | None = None
    seeds_in_hand: int = 0
    plies: int = 0
    started_at: str = ""
    duration_ms: int = 0
    moves: list[MoveRecord] = field(default_factory=list)
    engine_errors: dict[str, str] = field(default_factory=dict)
    detail: str = ""
    time_loss: TimeLoss | None = None
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
        if self.time_loss is not None:
            d["time_loss"] = self.time_loss.to_dict()
        if self.ignored:
            d["ignored"] = {name: list(lines) for name, lines in self.ignored.items()}
        return d


def match_score(engines: list[str], games: list[GameRecord]) -> list[float]:
    """Points of each of ``engines`` over ``games`` (``GameRecord.points``), in that order."""
    return [sum(g.points(name) for g in games) for name in engines]


@dataclass(frozen=True, kw_only=True)
class MatchRecord:
    """A best-of-three match between ``engines[0]`` (A) and ``engines[1]`` (B): the variant
    id, the match seed, the time control's text, the games played in order; ``aborted`` when
    a game was aborted (no winner, not rated). ``score`` and ``winner`` follow from the
    games."""

    variant: str
    seed: int
    time_control: str
    engines: list[str]
    games: list[GameRecord] = field(default_factory=list)
    aborted: bool = False

    @property
    def score(self) -> list[float]:
        """``[points of A, points of B]``."""
        return match_score(self.engines, self.games)

    @property
    def winner(self) -> str | None:
        """The engine with more points; None for a tie or an aborted match."""
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
