"""The referee of one game: the same checks in the same order every ply.

Per ply (docs/referee.md, "One game"): (1) both engines' stderr is within its cap and neither
was killed by its memory watchdog (checked again every ``client.WATCH_INTERVAL_MS`` while any
reply is awaited, so an engine flooding stderr loses at once with ``output_limit``, one over
its memory cap with ``memory_limit``, even during the opponent's turn), (2) ``position``
(and ``legalmoves`` for an engine that asked for them), ``isready`` and ``go`` with both clocks
in one write, (3) ``readyok`` within the ready timeout
(``stall``; every line before it is ignored, so nothing the engine wrote before it read this
``isready`` is taken for its reply), (4) ``info`` lines until ``bestmove`` before clock + what
is left of the grace (``time_forfeit``), (5) the clock is charged from the write to the
``bestmove`` read, an overrun taken from the game's grace, then the Fischer increment added,
(6) the token is parsed (``invalid_output``), (7) checked against the legal moves
(``illegal_move``) and (8) applied, both by ``arena.rules.Game.play`` (the legal moves are the
set the rules engine generated when it judged the position: no list is built per ply, except
the ``legalmoves`` line for an engine that asked for it), whose
outcome gives the rules endings (``bao_hamna``, ``no_legal_move``, ``score``, ``repetition``,
``ply_cap``). Any engine fault ends the game and the opponent wins it.

The grace (``RefereeConfig.grace_ms``) absorbs measurement noise once per game, not per move:
each side's overruns (time past its clock, or past the movetime) add up, and a side whose
total overrun in a game exceeds the grace loses on time.
"""

from __future__ import annotations

import datetime as _dt
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from arena import terminations as T
from arena.rules import (
    NORTH,
    SOUTH,
    Game,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    Position,
    Variant,
    get_variant,
)
from arena.terminations import Termination

from .client import MS, EngineFault
from .config import RefereeConfig, TimeControl
from .control import MatchControl, MatchStopped
from .events import EventHandler, GameEnd, GameStart, MovePlayed, RefereeEvent
from .hostload import host_load
from .output_cap import IGNORED, INFO, LineBudget, cut_marker
from .players import EngineSlot, StartError
from .records import GameRecord, MoveRecord, TimeLoss

log = logging.getLogger(__name__)


def emit(on_event: EventHandler | None, event: RefereeEvent) -> None:
    """Call the optional progress callback; its failures never disturb the game."""
    if on_event is None:
        return
    try:
        on_event(event)
    except Exception:
        log.exception("on_event callback failed")


def engine_move(game: Game, parse_move: Callable[[str], Move], token: str) -> tuple[Move, Position]:
    """Play an engine's ``bestmove`` ``token`` in ``game``: ``(move, position after it)``.

    Raises ``EngineFault``: ``invalid_output`` for a token that is not a move, ``illegal_move``
    for a move not legal here (docs/referee.md). The move is checked against the legal moves
    the rules engine generated for this position when it judged it (a cached set: no list is
    built per ply); an illegal one leaves the game unchanged."""
    try:
        move = parse_move(token)
    except InvalidMoveError as exc:
        raise EngineFault(T.INVALID_OUTPUT, f"not a move token: {token[:100]!r} ({exc})") from exc
    try:
        return move, game.play(move)
    except (IllegalMoveError, InvalidMoveError) as exc:
        raise EngineFault(T.ILLEGAL_MOVE, str(exc)) from exc


def resolve_variant(variant: str | Variant) -> Variant:
    """A ``Variant`` from an id/alias or a ``Variant`` instance (``UnknownVariantError``)."""
    return variant if isinstance(variant, Variant) else get_variant(variant)


def play_game(
    variant: str | Variant,
    south: EngineSlot,
    north: EngineSlot,
    time_control: TimeControl,
    config: RefereeConfig,
    *,
    index: int = 1,
    start: Position | str | None = None,
    seed: int | None = None,
    on_event: EventHandler | None = None,
    control: MatchControl | None = None,
) -> GameRecord:
    """Play one game, ``south`` moving first from ``start`` (default: the start position).

    ``seed``: sent as ``config.seed_option`` to engines that declare that option.
    ``control``: checked before the game, every ply and during every wait (``MatchStopped``
    propagates once a stop was requested; ``arena.referee.control``).

    Returns the ``GameRecord``; never raises for engine misbehaviour (it becomes the
    termination). A failure to start an engine (``StartError``) or an error of our own code
    gives ``aborted``, result ``"*"``. ``KeyboardInterrupt`` and ``MatchStopped`` propagate
    (the match kills the engines).
    """
    if control is not None:
        control.check()
    v = resolve_variant(variant)
    game = v.new_game(start, ply_cap=config.ply_cap, repetitions=config.repetitions)
    slots = {SOUTH: south, NORTH: north}
    start_position = game.start.to_text()
    started_at = _dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds")
    began = time.monotonic_ns()
    emit(
        on_event,
        GameStart(index=index, south=south.name, north=north.name, start_position=start_position),
    )
    played = _Played(index)
    for slot in (south, north):
        slot.begin_game()
    try:
        options = dict(config.engine_options)
        if seed is not None and config.seed_option:
            options[config.seed_option] = str(seed)
        end = _run(v, game, slots, time_control, config, played, options, on_event, control)
    except MatchStopped:
        raise
    except StartError as exc:
        end = _aborted(str(exc))
    except Exception as exc:
        # A bug on our side (rules engine, sandbox) must not be charged to an engine, nor take
        # the worker down: the game is aborted and the traceback logged.
        log.exception("game %d aborted by a referee error", index)
        end = _aborted(f"referee error: {type(exc).__name__}: {exc}")
    duration_ms = (time.monotonic_ns() - began) // MS
    engine_errors: dict[str, str] = {}
    for slot in (south, north):
        played.keep_ignored(slot)
        tail = slot.game_stderr()
        if tail:
            engine_errors[slot.name] = tail
    moves = played.finish()
    record = GameRecord(
        index=index,
        south=south.name,
        north=north.name,
        start_position=start_position,
        result=end.result,
        winner=end.winner,
        termination=end.termination,
        # From the moves recorded, not the Game: a referee error may leave a move in the Game
        # unrecorded.
        final_position=moves[-1].position if moves else start_position,
        scores=end.scores,
        seeds_in_hand=end.seeds_in_hand,
        plies=len(moves),
        started_at=started_at,
        duration_ms=duration_ms,
        moves=moves,
        engine_errors=engine_errors,
        detail=end.detail,
        time_loss=end.time_loss,
        ignored=played.ignored,
    )
    emit(
        on_event,
        GameEnd(
            index=index,
            result=record.result,
            winner=record.winner,
            termination=record.termination,
            plies=record.plies,
            detail=record.detail,
        ),
    )
    return record


@dataclass
class _Played:
    """What game ``index`` collects while it runs: the moves recorded, and the lines of each
    engine (by name) ignored outside a recorded move; each engine's ``info`` and ignored lines
    held to ``OUTPUT_KEEP_BYTES`` a game (``budget``; ``finish`` places the markers)."""

    index: int
    moves: list[MoveRecord] = field(default_factory=list)
    ignored: dict[str, list[str]] = field(default_factory=dict)
    budgets: dict[tuple[str, str], LineBudget] = field(default_factory=dict)
    # Where each cut began: the index of the move, or -1 for the game's ``ignored``.
    marks: dict[tuple[str, str], int] = field(default_factory=dict)

    def budget(self, name: str, what: str) -> LineBudget:
        """What is left of engine ``name``'s ``what`` (``output_cap.INFO``/``IGNORED``)."""
        budget = self.budgets.get((name, what))
        if budget is None:
            budget = self.budgets[name, what] = LineBudget()
        return budget

    def keep_ignored(self, slot: EngineSlot) -> None:
        """Lines of ``slot``'s engine ignored outside a recorded move go to ``ignored``."""
        if slot.client is None:
            return
        lines = slot.client.take_ignored()
        if lines:
            kept = self.budget(slot.name, IGNORED).keep_lines(lines)
            self.note_cut(slot.name, IGNORED, -1)
            if kept:
                self.ignored.setdefault(slot.name, []).extend(kept)

    def move_ignored(self, name: str, lines: list[str]) -> list[str]:
        """The part of a move's ignored ``lines`` engine ``name`` still has room for."""
        return self.budget(name, IGNORED).keep_lines(lines) if lines else lines

    def note_cut(self, name: str, what: str, where: int) -> None:
        """Remember ``where`` (a move index, -1 for ``ignored``) if the cut began there."""
        budget = self.budgets.get((name, what))
        if budget is not None and budget.cut and not budget.marked:
            budget.marked = True
            self.marks[name, what] = where

    def finish(self) -> list[MoveRecord]:
        """The moves, with the marker line of each cut where it began (its count is known
        only now); the markers of ``ignored`` lines cut outside a move go to ``ignored``."""
        moves = self.moves
        for (name, what), where in self.marks.items():
            marker = cut_marker(self.budgets[name, what].cut, what)
            if where < 0:
                self.ignored.setdefault(name, []).append(marker)
            elif what == INFO:
                moves[where] = replace(moves[where], info=[*moves[where].info, marker])
            else:
                moves[where] = replace(moves[where], ignored=[*moves[where].ignored, marker])
        return moves


@dataclass(frozen=True)
class _Ending:
    """How a game ended: what its ``GameRecord`` takes from the end (``GameRecord``'s fields of
    the same names)."""

    termination: Termination
    result: str
    winner: str | None
    detail: str
    scores: list[int] | None = None
    seeds_in_hand: int = 0
    time_loss: TimeLoss | None = None


def _aborted(detail: str) -> _Ending:
    """The end of a game we could not play (an engine that did not start, our own error)."""
    return _Ending(termination=T.ABORTED, result="*", winner=None, detail=detail)


def _position_head(v: Variant, game: Game) -> str:
    """``position startpos``, or ``position text <start>`` for a game that did not start from
    the variant's start position (computed once per game: the text forms are not free)."""
    start = game.start.to_text()
    is_initial = start == v.initial_position().to_text()
    return "position startpos" if is_initial else f"position text {start}"


def _position_command(head: str, game: Game) -> str:
    return head + (" moves " + " ".join(game.moves) if game.moves else "")


class _SideFault(Exception):
    """Raised by the game's watch: the engine on ``side`` committed ``fault`` while the
    referee was waiting for either engine (so the fault is charged to ``side``, whoever was
    being read)."""

    def __init__(self, side: str, fault: EngineFault) -> None:
        super().__init__(f"{side}: {fault}")
        self.side = side
        self.fault = fault


def _run(
    v: Variant,
    game: Game,
    slots: dict[str, EngineSlot],
    tc: TimeControl,
    config: RefereeConfig,
    played: _Played,
    options: dict[str, str],
    on_event: EventHandler | None,
    control: MatchControl | None = None,
) -> _Ending:
    # Prepare both engines (start or restart if needed, resync, newgame); a fault here loses
    # the game. Engines that need a process are launched first, so that they boot together.
    for side in (SOUTH, NORTH):
        try:
            slots[side].launch()
        except EngineFault as fault:
            return _fault(played, slots, side, fault)
    for side in (SOUTH, NORTH):
        try:
            slots[side].prepare(v.id, options)
        except EngineFault as fault:
            return _fault(played, slots, side, fault)
        finally:
            played.keep_ignored(slots[side])  # the handshake's or the resync's

    def watch() -> None:
        if control is not None:
            control.check()  # a stop, and the loop's liveness (lease renewal)
        for watched in (SOUTH, NORTH):
            try:
                slots[watched].check_limits()
            except EngineFault as fault:
                raise _SideFault(watched, fault) from None

    for slot in slots.values():
        assert slot.client is not None
        slot.client.watch = watch
    try:
        return _play_plies(v, game, slots, tc, config, played, on_event, watch)
    except _SideFault as exc:
        return _fault(played, slots, exc.side, exc.fault)
    finally:
        # Between games each engine is watched on its own again (restarts, resyncs).
        for slot in slots.values():
            if slot.client is not None:
                slot.client.watch = slot.watch


def _play_plies(
    v: Variant,
    game: Game,
    slots: dict[str, EngineSlot],
    tc: TimeControl,
    config: RefereeConfig,
    played: _Played,
    on_event: EventHandler | None,
    watch: Callable[[], None],
) -> _Ending:
    """Plays until the game is over or an engine faults; returns how it ended (the rules'
    outcome, or the engine's ``EngineFault``). A ``_SideFault`` from ``watch`` propagates."""
    fixed = tc.movetime_ms is not None
    clocks_ns = {SOUTH: tc.base_ms * MS, NORTH: tc.base_ms * MS}
    overrun_ns = {SOUTH: 0, NORTH: 0}  # time used past the clock, summed over the game
    inc_ns = tc.increment_ms * MS
    grace_ns = config.grace_ms * MS
    # The position command grows by one token per ply instead of being joined anew.
    position_cmd = _position_command(_position_head(v, game), game)
    on_metric = config.on_metric
    ready_timeout_ms = config.ready_timeout_ms
    parse_move = v.parse_move
    time_loss: TimeLoss | None = None
    while game.outcome is None:
        ply_began = time.monotonic_ns()
        side = game.position.side
        slot = slots[side]
        client = slot.client
        assert client is not None
        watch()  # before anything is sent to the mover
        budget_ns = tc.movetime_ms * MS if fixed and tc.movetime_ms else clocks_ns[side]
        try:
            if fixed:
                assert tc.movetime_ms is not None
                budget_ns = tc.movetime_ms * MS
                go = f"go movetime {tc.movetime_ms}"
            else:
                budget_ns = clocks_ns[side]
                go = (
                    f"go stime {clocks_ns[SOUTH] // MS} ntime {clocks_ns[NORTH] // MS} "
                    f"sinc {tc.increment_ms} ninc {tc.increment_ms}"
                )
            grace_left_ns = grace_ns - overrun_ns[side]
            try:
                # The legal moves, for an engine that asked (``want legalmoves``): the list the
                # rules engine made when it judged the position, so it costs only the join.
                legal = game.legal_moves() if client.wants_legal_moves else None
                reply = client.go(
                    position_cmd,
                    go,
                    budget_ns + grace_left_ns,
                    ready_timeout_ms,
                    legal,
                    played.budget(slot.name, INFO),
                )
            except EngineFault as fault:
                if fault.code != T.TIME_FORFEIT or not overrun_ns[side]:
                    raise
                raise EngineFault(
                    fault.code,
                    f"{fault.detail}; {overrun_ns[side] // MS} ms of the grace already used "
                    f"this game (grace {config.grace_ms} ms per game)",
                ) from None
            elapsed = reply.elapsed_ns
            if elapsed > budget_ns:
                overrun_ns[side] += elapsed - budget_ns
                if overrun_ns[side] > grace_ns:
                    time_loss = _time_loss(slot, (elapsed - budget_ns) // MS, budget_ns)
                    raise EngineFault(
                        T.TIME_FORFEIT,
                        f"bestmove after {elapsed // MS} ms with {budget_ns // MS} ms on the "
                        f"clock; overran by {overrun_ns[side] // MS} ms this game "
                        f"(grace {config.grace_ms} ms per game)",
                    )
            if fixed:
                clock_after = budget_ns
            else:
                clocks_ns[side] = max(0, clocks_ns[side] - elapsed) + inc_ns
                clock_after = clocks_ns[side]
            move, after = engine_move(game, parse_move, reply.token)
        except EngineFault as fault:
            if fault.code == T.TIME_FORFEIT and time_loss is None:
                # No bestmove before clock + the grace left: it overran by that at least.
                grace_left_ms = max(0, grace_ns - overrun_ns[side]) // MS
                time_loss = _time_loss(slot, grace_left_ms, budget_ns, answered=False)
            return _fault(played, slots, side, fault, time_loss)
        position_cmd = (
            f"{position_cmd} {move}" if len(game.moves) > 1 else f"{position_cmd} moves {move}"
        )
        entry = MoveRecord(
            ply=len(game.moves),
            side=side,
            move=str(move),
            time_ms=elapsed // MS,
            clock_ms=clock_after // MS,
            position=after.to_text(),
            info=reply.info,
            ignored=played.move_ignored(slot.name, client.take_ignored()),
        )
        played.note_cut(slot.name, INFO, len(played.moves))
        played.note_cut(slot.name, IGNORED, len(played.moves))
        played.moves.append(entry)
        if on_metric is not None:
            # The referee's own time on this ply: what is not the engine thinking
            # (docs/referee.md).
            config.metric(
                "move_overhead_seconds", (time.monotonic_ns() - ply_began - elapsed) / 1e9
            )
        if on_event is not None:  # the event is not built for nobody
            emit(
                on_event,
                MovePlayed(index=played.index, record=entry),
            )
    outcome = game.outcome
    winner = None if outcome.winner is None else slots[outcome.winner].name
    return _Ending(
        termination=outcome.reason,
        result=outcome.result,
        winner=winner,
        detail=str(outcome.reason),
        scores=list(outcome.scores) if outcome.scores is not None else None,
        seeds_in_hand=outcome.seeds_in_hand,
    )


def _time_loss(
    slot: EngineSlot, overrun_ms: int, budget_ns: int, *, answered: bool = True
) -> TimeLoss:
    """``GameRecord.time_loss`` of a forfeit by ``slot``'s engine: the overrun (ms past the
    clock; for an engine that never answered, the grace it exceeded), the clock it had, and the
    host's load without the engine's own processes (``hostload``)."""
    pids = getattr(slot.process, "alive_pids", None)
    try:
        engine_pids = sorted(pids()) if callable(pids) else []
    except Exception:
        engine_pids = []
    return TimeLoss(
        overrun_ms=overrun_ms,
        clock_ms=budget_ns // MS,
        answered=answered,
        load=host_load(engine_pids),
    )


def _fault(
    played: _Played,
    slots: dict[str, EngineSlot],
    side: str,
    fault: EngineFault,
    time_loss: TimeLoss | None = None,
) -> _Ending:
    """The engine on ``side`` committed ``fault``: it loses, the opponent wins (``time_loss``:
    that of a ``time_forfeit``)."""
    slot = slots[side]
    fault = slot.fault_cause(fault)
    played.keep_ignored(slot)  # before a kill drops the client
    detail = fault.detail
    if fault.code == T.CRASH:
        detail = f"{detail}; {slot.exit_detail()}"
        slot.kill()
    elif fault.code in (T.STALL, T.OUTPUT_LIMIT, T.HANDSHAKE_FAILED, T.MEMORY_LIMIT):
        slot.kill()  # unusable stream or stuck process: restarted before its next game
    winner_side = NORTH if side == SOUTH else SOUTH
    return _Ending(
        termination=fault.code,
        result="0-1" if side == SOUTH else "1-0",
        winner=slots[winner_side].name,
        detail=f"{'South' if side == SOUTH else 'North'} ({slot.name}): {detail}",
        time_loss=time_loss,
    )
