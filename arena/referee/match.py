"""Best-of-three matches (contracts, "The referee"; docs/referee.md, "Match format").

Game 1: engine A plays South; game 2: B plays South; game 3 only while its result can still
change the match (the leader is not more than one point ahead), with South drawn from the
seed. A match of ``best_of`` 2 is a *game pair* (version tests): games 1 and 2 are always both
played, never a third; ``best_of`` 1 is game 1 alone. Every game starts from the same
position: the variant's standard start, or the one given (e.g. from a suite of balanced
positions, ``arena.openings.match_start``), so games 1 and 2 play it with colours swapped.
Draws count half. An aborted game aborts the match (no winner, not rated). Every engine
process is killed on every exit path, including ``KeyboardInterrupt`` and errors.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from arena import terminations as T
from arena.rules import Position, Variant

from .config import RefereeConfig, TimeControl
from .control import MatchControl, MatchStopped
from .events import EventHandler, MatchEnd
from .game import emit, play_game, resolve_variant
from .players import EngineSlot, close_all
from .records import GameRecord, MatchRecord, match_score

if TYPE_CHECKING:
    from engines.package import EnginePackage

#: Games in a match: best of three.
GAMES = 3


def engine_names(a: EnginePackage | str, b: EnginePackage | str) -> tuple[str, str]:
    """Display names of the two packages (or of two names), made distinct (``"x"`` vs
    ``"x (2)"``) so a record stays unambiguous when an engine meets itself."""
    name_a = a if isinstance(a, str) else a.name
    name_b = b if isinstance(b, str) else b.name
    if name_a == name_b:
        name_b = f"{name_b} (2)"
    return name_a, name_b


def third_game_south(seed: int) -> int:
    """0 (A South) or 1 (B South) for game 3: a pure function of the match seed."""
    return random.Random(f"bao-arena/game3/{seed}").randrange(2)


def game_seed(seed: int, index: int) -> int:
    """The seed handed to engines with a ``Seed`` option in game ``index`` (0 <= n < 2**31)."""
    return random.Random(f"bao-arena/game/{seed}/{index}").randrange(2**31)


def play_match(
    engine_a: EnginePackage,
    engine_b: EnginePackage,
    variant: str | Variant,
    time_control: TimeControl,
    seed: int,
    config: RefereeConfig | None = None,
    on_event: EventHandler | None = None,
    start: Position | str | None = None,
    best_of: int = GAMES,
    control: MatchControl | None = None,
) -> MatchRecord:
    """Play a best-of-three match between two ``EnginePackage`` s; returns the full record.

    ``seed`` (int) decides who is South in game 3. ``start``: the position every game starts
    from (a ``Position`` or its BPN/KPN text; None: the variant's start position); whoever is
    to move there moves first, and engines receive it as ``position text`` (docs/protocol.md).
    ``best_of``: 3 (the default), 2 (a game pair: both games, colours swapped, whatever the
    first one's result; version tests) or 1 (game 1 only, A South: a one-game decider).
    ``control``: a stop channel and liveness clock (``arena.referee.control``).
    Raises ``UnknownVariantError`` for an unknown variant, ``InvalidPositionError`` for a
    ``start`` text that does not parse and ``ValueError`` for a ``best_of`` outside 1..3,
    before any engine starts, and ``MatchStopped`` once ``control`` asked for a stop (the games
    played so far are dropped); never raises for engine misbehaviour. Processes are killed
    before returning or raising.
    """
    if best_of not in (1, 2, GAMES):
        raise ValueError(f"best_of must be 1, 2 or {GAMES}, not {best_of}")
    config = config or RefereeConfig()
    v = resolve_variant(variant)
    if isinstance(start, str):
        start = v.parse_position(start)
    name_a, name_b = engine_names(engine_a, engine_b)
    slots = [
        EngineSlot(engine_a, name_a, config, control),
        EngineSlot(engine_b, name_b, config, control),
    ]
    engines = [name_a, name_b]
    games: list[GameRecord] = []
    aborted = False
    try:
        for index in range(1, best_of + 1):
            if index == 1:
                south = 0
            elif index == 2:
                south = 1
            else:
                south = third_game_south(seed)
            game = play_game(
                v,
                slots[south],
                slots[1 - south],
                time_control,
                config,
                index=index,
                start=start,
                seed=game_seed(seed, index),
                on_event=on_event,
                control=control,
            )
            if control is not None:
                # A stop during the game may have made it look like an engine's fault (a
                # killed engine "crashed"): the game does not count.
                control.check()
            games.append(game)
            if game.termination == T.ABORTED:
                aborted = True
                break
            a, b = match_score(engines, games)
            if abs(a - b) > best_of - index:
                # The remaining games cannot change the result (never so within a pair: one
                # game decides at most one point).
                break
    except MatchStopped:
        for slot in slots:
            slot.kill()  # no quit handshake: the owner wants the engines gone now
        raise
    finally:
        close_all(slots)
    record = MatchRecord(
        variant=v.id,
        seed=seed,
        time_control=str(time_control),
        engines=engines,
        games=games,
        aborted=aborted,
    )
    a, b = record.score
    emit(on_event, MatchEnd(score=(a, b), winner=record.winner, aborted=record.aborted))
    return record
