"""The referee's progress events: what ``play_match``/``play_game`` hand to ``on_event``.

One frozen dataclass per kind, in the order a match sends them: ``GameStart`` (before game
``index`` is played), ``MovePlayed`` (after each move is applied and recorded, before the next
engine is asked: no clock runs while the callback runs, but a slow callback delays the game),
``GameEnd`` (once its ``GameRecord`` is built) and ``MatchEnd`` (once the ``MatchRecord`` is).
``RefereeEvent`` is their union; a consumer tells them apart with ``isinstance`` or ``match``
and reads attributes, never string keys (docs/referee.md, "Match format"). ``kind`` names the
kind in logs and displays (``"game_start"``, ``"move"``, ``"game_end"``, ``"match_end"``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from arena.terminations import Termination

from .records import MoveRecord


@dataclass(frozen=True, slots=True, kw_only=True)
class GameStart:
    """Game ``index`` (1-based) begins: ``south`` and ``north`` are engine names (distinct
    within the match), ``start_position`` the text of the position it starts from."""

    kind: ClassVar[str] = "game_start"

    index: int
    south: str
    north: str
    start_position: str


@dataclass(frozen=True, slots=True, kw_only=True)
class MovePlayed:
    """A move of game ``index``: ``record`` is the ``MoveRecord`` the game's record holds for
    it (the same object: its ply, side, token, times, position after it and info lines)."""

    kind: ClassVar[str] = "move"

    index: int
    record: MoveRecord


@dataclass(frozen=True, slots=True, kw_only=True)
class GameEnd:
    """Game ``index`` is over: its ``GameRecord``'s ``result``, ``winner`` (an engine name or
    None), ``termination``, ``plies`` and ``detail``."""

    kind: ClassVar[str] = "game_end"

    index: int
    result: str
    winner: str | None
    termination: Termination
    plies: int
    detail: str


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchEnd:
    """The match is over: its ``MatchRecord``'s ``score`` (points of engine A, of engine B),
    ``winner`` (an engine name or None) and ``aborted``."""

    kind: ClassVar[str] = "match_end"

    score: tuple[float, float]
    winner: str | None
    aborted: bool


#: What ``on_event`` receives.
RefereeEvent = GameStart | MovePlayed | GameEnd | MatchEnd

#: The ``on_event`` callback of ``play_match``/``play_game``.
EventHandler = Callable[[RefereeEvent], None]
