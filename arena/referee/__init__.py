"""The referee: engine protocol client, one refereed game, best-of-three matches. No Django.

Typical use::

    from arena.referee import play_match, TimeControl, RefereeConfig
    record = play_match(pkg_a, pkg_b, "bao-la-kete", TimeControl.parse("10+0.1"), seed=7,
                        config=RefereeConfig())
    record.games[0].termination   # a frozen MatchRecord (arena.referee.records)
    record.to_dict()   # its JSON form (docs/referee.md, "Record format")

``python -m arena.referee --help`` plays a match from the command line.
"""

from __future__ import annotations

from .client import BestMove, EngineClient, EngineFault, EngineId
from .config import RefereeConfig, TimeControl, TimeControlError
from .control import MatchControl, MatchStopped
from .game import play_game
from .hostload import HostLoad
from .match import GAMES, play_match
from .players import EngineSlot, StartError
from .records import GameRecord, MatchRecord, MoveRecord, TimeLoss
from .transport import FakeTransport, PipeTransport, ReadResult, Transport
from .watchdog import CpuBudget

__all__ = [
    "GAMES",
    "BestMove",
    "CpuBudget",
    "EngineClient",
    "EngineFault",
    "EngineId",
    "EngineSlot",
    "FakeTransport",
    "GameRecord",
    "HostLoad",
    "MatchControl",
    "MatchRecord",
    "MatchStopped",
    "MoveRecord",
    "PipeTransport",
    "ReadResult",
    "RefereeConfig",
    "StartError",
    "TimeControl",
    "TimeControlError",
    "TimeLoss",
    "Transport",
    "play_game",
    "play_match",
]
