"""A game between a person and an engine: the referee's checks for the engine, a clock for
the person (docs/play.md; issue 33).

The engine side is played exactly as in ``game.play_game`` (``position``/``isready``/``go``
with both clocks in one write, ``readyok`` within the ready timeout, ``bestmove`` before its
clock plus what is left of the game's grace, the token parsed and checked by the rules engine;
any fault loses the game for the engine). The person's side has no process: their moves come
from a ``PersonSource`` (the service's reads of what the API accepted), which the loop asks
with a deadline, so the person's clock runs while they think and a person who has left loses
on time (``time_forfeit``) when it runs out. A resignation (``resignation``) is seen on the
person's turn at once and during the engine's turn within ``RESIGN_CHECK_NS``.

The person's time is measured from the instant the loop has published the engine's move
(``on_event`` returned: the person can see it) to the instant it reads the person's move;
the Fischer increment is added after each move as for an engine. A person has no grace: the
clock is what the page shows.

Pure like the rest of the referee: no Django; the person's moves arrive through the protocol.
"""

from __future__ import annotations

import datetime as _dt
import logging
import time
from dataclasses import dataclass
from typing import Protocol

from arena import terminations as T
from arena.rules import NORTH, SOUTH, Game, IllegalMoveError, InvalidMoveError, Position, Variant

from .client import MS, EngineFault
from .config import RefereeConfig, TimeControl
from .events import EventHandler, GameEnd, GameStart, MovePlayed
from .game import emit, engine_move, resolve_variant
from .output_cap import LineBudget
from .players import EngineSlot, StartError
from .records import GameRecord, MoveRecord

log = logging.getLogger(__name__)

#: How often the engine's turn asks the person's source whether they resigned (ns).
RESIGN_CHECK_NS = 100 * MS
#: Longest single wait handed to ``PersonSource.next_action`` (s): the loop re-checks its
#: deadline at least this often.
WAIT_SLICE_S = 0.5


@dataclass(frozen=True, kw_only=True)
class PersonAction:
    """What a person did on their turn: a move ``token`` (canonical notation, rules 4), or a
    resignation (``resign`` True, ``token`` empty). ``accepted_ns``: when the service accepted
    it (``time.time_ns()``, wall clock, ns): the person's time on the move ends there
    (``_person_elapsed_ns``), and the relay metric starts there; 0 if unknown."""

    token: str = ""
    resign: bool = False
    accepted_ns: int = 0


class PersonSource(Protocol):
    """The person's side of a game."""

    def next_action(self, ply: int, timeout_s: float) -> PersonAction | None:
        """The person's move for ply ``ply`` (1-based: the ply the move will be) or their
        resignation, waiting at most ``timeout_s`` seconds; None if nothing came."""

    def resigned(self) -> bool:
        """Whether the person resigned (cheap: asked during the engine's turn)."""


def _person_elapsed_ns(waited_ns: int, turn_began_wall_ns: int, action: PersonAction) -> int:
    """The time a person's move is charged (ns): until the service accepted it
    (``action.accepted_ns``, wall clock), not until this loop read it, so a slow relay (a busy
    worker host, a lock wait) is not the person's time; never more than ``waited_ns``, this
    loop's own monotonic measure of the turn, and never below 0. Without an accept time it
    is ``waited_ns``. The two wall clocks may be of two hosts: their skew (NTP keeps it to
    milliseconds) is the most a person can gain or lose a move (docs/play.md)."""
    if not action.accepted_ns:
        return waited_ns
    return max(0, min(waited_ns, action.accepted_ns - turn_began_wall_ns))


class PersonResigned(Exception):
    """Raised by the engine client's ``watch`` when the person resigned during its turn."""


#: The termination of a person's resignation (the one vocabulary, ``arena.terminations``).
RESIGNATION = T.Termination.RESIGNATION


@dataclass(frozen=True)
class _End:
    termination: T.Termination
    result: str
    winner_side: str | None
    detail: str
    scores: list[int] | None = None
    seeds_in_hand: int = 0


def _loses(side: str, termination: T.Termination, detail: str) -> _End:
    return _End(termination, "0-1" if side == SOUTH else "1-0", _other(side), detail)


def _other(side: str) -> str:
    return NORTH if side == SOUTH else SOUTH


def play_person_game(
    variant: str | Variant,
    engine: EngineSlot,
    *,
    engine_side: str,
    person: PersonSource,
    person_name: str,
    time_control: TimeControl,
    config: RefereeConfig,
    start: Position | str | None = None,
    seed: int | None = None,
    on_event: EventHandler | None = None,
) -> GameRecord:
    """Play one game between ``engine`` (on ``engine_side``, ``"S"`` or ``"N"``) and the person
    whose moves ``person`` gives (named ``person_name`` in the record), from ``start``
    (default: the variant's start position), at ``time_control`` (a Fischer clock; a
    ``movetime`` control is refused with ``ValueError``).

    ``on_event`` gets ``GameStart``, a ``MovePlayed`` per ply (both sides') and ``GameEnd``, as
    from ``play_game``; the person's clock starts when the callback of the engine's move has
    returned. ``config.on_metric`` gets ``person_move_relay_seconds``: from the service
    accepting a person's move to its ``position`` being written to the engine.

    Returns the ``GameRecord``; never raises for engine misbehaviour or a person who left
    (they become the termination). An engine that cannot start (``StartError``) or our own
    error gives ``aborted``. The caller closes ``engine`` (``players.close_all``).
    """
    if time_control.movetime_ms is not None:
        raise ValueError("a person's game needs a Fischer clock, not a fixed movetime")
    v = resolve_variant(variant)
    game = v.new_game(start, ply_cap=config.ply_cap, repetitions=config.repetitions)
    names = {engine_side: engine.name, _other(engine_side): person_name}
    start_position = game.start.to_text()
    started_at = _dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds")
    began = time.monotonic_ns()
    emit(
        on_event,
        GameStart(index=1, south=names[SOUTH], north=names[NORTH], start_position=start_position),
    )
    engine.begin_game()
    moves: list[MoveRecord] = []
    try:
        options = dict(config.engine_options)
        if seed is not None and config.seed_option:
            options[config.seed_option] = str(seed)
        end = _run(v, game, engine, engine_side, person, time_control, config, options, moves,
                   on_event)  # fmt: skip
    except StartError as exc:
        end = _End(T.ABORTED, "*", None, str(exc))
    except Exception as exc:
        log.exception("a person's game aborted by a referee error")
        end = _End(T.ABORTED, "*", None, f"referee error: {type(exc).__name__}: {exc}")
    tail = engine.game_stderr()
    winner = None if end.winner_side is None else names[end.winner_side]
    record = GameRecord(
        index=1,
        south=names[SOUTH],
        north=names[NORTH],
        start_position=start_position,
        result=end.result,
        winner=winner,
        termination=end.termination,
        final_position=moves[-1].position if moves else start_position,
        scores=end.scores,
        seeds_in_hand=end.seeds_in_hand,
        plies=len(moves),
        started_at=started_at,
        duration_ms=(time.monotonic_ns() - began) // MS,
        moves=moves,
        engine_errors={engine.name: tail} if tail else {},
        detail=end.detail,
    )
    emit(
        on_event,
        GameEnd(
            index=1,
            result=record.result,
            winner=winner,
            termination=record.termination,
            plies=record.plies,
            detail=record.detail,
        ),
    )
    return record


def _run(
    v: Variant,
    game: Game,
    engine: EngineSlot,
    engine_side: str,
    person: PersonSource,
    tc: TimeControl,
    config: RefereeConfig,
    options: dict[str, str],
    moves: list[MoveRecord],
    on_event: EventHandler | None,
) -> _End:
    person_side = _other(engine_side)
    try:
        engine.launch()
        client = engine.prepare(v.id, options)
    except EngineFault as fault:
        return _loses(engine_side, engine.fault_cause(fault).code, fault.detail)
    checked = [0]

    def watch() -> None:
        engine.watch()
        now = time.monotonic_ns()
        if now - checked[0] >= RESIGN_CHECK_NS:
            checked[0] = now
            if person.resigned():
                raise PersonResigned

    client.watch = watch
    clocks_ns = {SOUTH: tc.base_ms * MS, NORTH: tc.base_ms * MS}
    inc_ns = tc.increment_ms * MS
    grace_ns = config.grace_ms * MS
    overrun_ns = 0  # the engine's time past its clock, summed over the game
    start = game.start.to_text()
    head = (
        "position startpos" if start == v.initial_position().to_text() else f"position text {start}"
    )
    info_budget = LineBudget()
    relay_from_ns = 0  # the wall-clock accept time of the person's last move, for the metric
    while game.outcome is None:
        side = game.position.side
        ply = len(moves) + 1
        if side == person_side:
            turn_began = time.monotonic_ns()
            turn_began_wall = time.time_ns()
            deadline = turn_began + clocks_ns[side]
            out_of_time = f"the person's clock ran out on ply {ply}"
            action: PersonAction | None = None
            after = game.position
            while action is None:
                left_ns = deadline - time.monotonic_ns()
                # At the deadline, one last look: a move the service took in time counts.
                action = person.next_action(ply, max(0.0, min(left_ns / 1e9, WAIT_SLICE_S)))
                if action is None and left_ns <= 0:
                    return _loses(side, T.TIME_FORFEIT, out_of_time)
                if action is not None and not action.resign:
                    try:
                        after = game.play(v.parse_move(action.token))
                    except (InvalidMoveError, IllegalMoveError) as exc:
                        # The service checks moves against the same rules engine first: this
                        # is a race or our bug, never the person's loss. Wait on.
                        log.warning("a person's move refused on ply %d: %s", ply, exc)
                        action = None
                        if left_ns <= 0:
                            return _loses(side, T.TIME_FORFEIT, out_of_time)
            if action.resign:
                return _loses(side, RESIGNATION, "the person resigned")
            elapsed = _person_elapsed_ns(time.monotonic_ns() - turn_began, turn_began_wall, action)
            if elapsed > clocks_ns[side]:
                return _loses(side, T.TIME_FORFEIT, out_of_time)
            clocks_ns[side] = clocks_ns[side] - elapsed + inc_ns
            relay_from_ns = action.accepted_ns
            entry = MoveRecord(
                ply=ply,
                side=side,
                move=action.token,
                time_ms=elapsed // MS,
                clock_ms=clocks_ns[side] // MS,
                position=after.to_text(),
            )
        else:
            go = (
                f"go stime {clocks_ns[SOUTH] // MS} ntime {clocks_ns[NORTH] // MS} "
                f"sinc {tc.increment_ms} ninc {tc.increment_ms}"
            )
            position_cmd = head + (" moves " + " ".join(game.moves) if game.moves else "")
            budget_ns = clocks_ns[side]
            try:
                if relay_from_ns:
                    config.metric(
                        "person_move_relay_seconds", (time.time_ns() - relay_from_ns) / 1e9
                    )
                    relay_from_ns = 0
                legal = game.legal_moves() if client.wants_legal_moves else None
                reply = client.go(position_cmd, go, budget_ns + grace_ns - overrun_ns,
                                  config.ready_timeout_ms, legal, info_budget)  # fmt: skip
                elapsed = reply.elapsed_ns
                if elapsed > budget_ns:
                    overrun_ns += elapsed - budget_ns
                    if overrun_ns > grace_ns:
                        raise EngineFault(
                            T.TIME_FORFEIT,
                            f"bestmove after {elapsed // MS} ms with {budget_ns // MS} ms on "
                            f"the clock (grace {config.grace_ms} ms per game)",
                        )
                clocks_ns[side] = max(0, clocks_ns[side] - elapsed) + inc_ns
                move, after = engine_move(game, v.parse_move, reply.token)
            except PersonResigned:
                return _loses(person_side, RESIGNATION, "the person resigned")
            except EngineFault as fault:
                fault = engine.fault_cause(fault)
                engine.kill()
                return _loses(side, fault.code, f"{engine.name}: {fault.detail}")
            entry = MoveRecord(
                ply=ply,
                side=side,
                move=str(move),
                time_ms=elapsed // MS,
                clock_ms=clocks_ns[side] // MS,
                position=after.to_text(),
                info=reply.info,
            )
        moves.append(entry)
        emit(on_event, MovePlayed(index=1, record=entry))
    outcome = game.outcome
    return _End(
        outcome.reason,
        outcome.result,
        outcome.winner,
        str(outcome.reason),
        list(outcome.scores) if outcome.scores is not None else None,
        outcome.seeds_in_hand,
    )


__all__ = [
    "RESIGNATION",
    "PersonAction",
    "PersonResigned",
    "PersonSource",
    "play_person_game",
]
