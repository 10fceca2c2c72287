"""``--out FILE``: the games of a run, one JSON line each (``arena.matches.gameline``, the
format of the service's ``GET /api/games/export/``), and what ``--resume`` reads back.

A line is written and flushed as its game ends, so an interrupted run (Ctrl-C, a kill, a
crash) leaves every game that ended, at worst with a last line cut short: ``read_lines`` drops
such a last line (with a notice) and refuses any other line that does not parse, or that does
not belong to this run's schedule (another variant, time control or engine order).
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from arena.matches.gameline import EngineRef, GameLine
from arena.rules import Position
from arena.rules.terminations import ENGINE_FAULTS, RATED_TERMINATIONS

from .plan import Job, PlanError
from .runner import Played, job_seed
from .tally import Finished

EVENT = "bao-match"


def charged(
    termination: str, winner: str | None, south: int, north: int, names: Sequence[str]
) -> int | None:
    """The engine index an engine fault is charged to (the side that lost by it), else None."""
    if termination not in ENGINE_FAULTS or winner is None:
        return None
    return north if names[south] == winner else south


def finished(played: Played, names: Sequence[str]) -> Finished:
    """The tally's view of a game just played."""
    r = played.record
    return Finished(
        job=played.job.number,
        south=played.south,
        north=played.north,
        result=r.result,
        termination=str(r.termination),
        charged=charged(str(r.termination), r.winner, played.south, played.north, names),
    )


def game_line(played: Played, names: Sequence[str], variant: str, time_control: str) -> GameLine:
    """The ``GameLine`` of a game the runner played: ``id`` its number in the run, ``match``
    its job's number, ``round`` the job's round (from 1); ``engine_errors`` by side
    (``"south"``/``"north"``) as the service keys them."""
    r = played.record
    south, north = names[played.south], names[played.north]
    side_of = {south: "south", north: "north"}
    refs = {name: EngineRef(engine=name, label=name) for name in (south, north)}
    now = _dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds")
    return GameLine(
        id=played.number,
        match=played.job.number,
        index=played.index,
        event=EVENT,
        round=played.job.round + 1,
        variant=variant,
        time_control=time_control,
        seed=played.seed,
        south=refs[south],
        north=refs[north],
        winner=refs[r.winner] if r.winner is not None else None,
        result=r.result,
        termination=str(r.termination),
        rated=r.termination in RATED_TERMINATIONS,
        plies=r.plies,
        start_position=r.start_position,
        final_position=r.final_position,
        moves=[m.to_dict() for m in r.moves],
        scores=r.scores,
        seeds_in_hand=r.seeds_in_hand,
        engine_errors={side_of[k]: v for k, v in r.engine_errors.items() if k in side_of},
        detail=r.detail,
        time_loss=r.time_loss.to_dict() if r.time_loss is not None else None,
        started_at=r.started_at or None,
        duration_ms=r.duration_ms,
        finished_at=now,
    )


def write_line(stream: IO[str], line: GameLine) -> None:
    """Append ``line`` and flush it to the OS."""
    stream.write(line.to_json() + "\n")
    stream.flush()


#: The key of the first line of an ``--out`` file, the run's settings a game line does not hold.
HEADER_KEY = "bao_match"


def header_line(settings: Mapping[str, object]) -> str:
    """The first line of an ``--out`` file: ``{"bao_match": settings}`` (``seed``: the
    ``--seed`` given or null, ``run_seed``: the seed used, ``options``: engine name ->
    option -> value, ``sprt``: the bounds or null), which ``--resume`` compares."""
    return json.dumps({HEADER_KEY: dict(settings)}, sort_keys=True) + "\n"


@dataclass(frozen=True)
class Resumed:
    """What ``read_lines`` found: the games by number, and whether a cut last line was
    dropped (its byte offset: the file is truncated there before appending); ``header``: the
    settings of the first line (``header_line``), None in a file without one."""

    games: dict[int, GameLine]
    keep_bytes: int
    dropped_tail: bool
    header: dict[str, object] | None = None


def expected_sides(jobs: Sequence[Job]) -> dict[int, tuple[Job, int, int, int]]:
    """Game number -> (job, index in the job, South engine index, North engine index)."""
    out: dict[int, tuple[Job, int, int, int]] = {}
    for job in jobs:
        for k in range(job.games):
            south, north = (job.a, job.b) if k == 0 else (job.b, job.a)
            out[job.first_game + k] = (job, k + 1, south, north)
    return out


def read_lines(
    path: Path,
    jobs: Sequence[Job],
    names: Sequence[str],
    variant: str,
    time_control: str,
    starts: Mapping[int, Position] | None = None,
    run_seed: int | None = None,
) -> Resumed:
    """The games already in ``path`` (``--resume``). Raises ``PlanError`` for a line that
    does not parse (but a cut last line) or does not fit this run's schedule: another
    variant, time control, engine order, (with ``starts``, job number -> position) start
    position or (with ``run_seed``, the ``--seed`` given) job seed."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return Resumed({}, 0, False)
    except OSError as exc:
        raise PlanError(f"--resume: cannot read {path}: {exc.strerror}") from None
    expected = expected_sides(jobs)
    games: dict[int, GameLine] = {}
    header: dict[str, object] | None = None
    offset = 0
    raw_lines = data.split(b"\n")
    for number, raw in enumerate(raw_lines, start=1):
        # Every line written ends with a newline: only the last segment can be cut short.
        cut = number == len(raw_lines)
        if not raw.strip():
            offset += len(raw) + (0 if cut else 1)
            continue
        try:
            data = json.loads(raw)
            if number == 1 and isinstance(data, dict) and isinstance(data.get(HEADER_KEY), dict):
                header = data[HEADER_KEY]
                offset += len(raw) + (0 if cut else 1)
                continue
            line = GameLine.from_dict(data)
        except (ValueError, KeyError, TypeError) as exc:
            if cut:
                return Resumed(games, offset, True, header)
            why = f"it has no {exc.args[0]!r} field" if isinstance(exc, KeyError) else str(exc)
            raise PlanError(
                f"--resume: {path}:{number} is not a game line of bao-match or the export: {why}"
            ) from None
        where = f"--resume: {path}:{number}"
        if line.id not in expected:
            raise PlanError(f"{where}: game {line.id} is not in this run's schedule")
        job, _index, south, north = expected[line.id]
        if (line.variant, line.time_control) != (variant, time_control):
            raise PlanError(
                f"{where}: a {line.variant} {line.time_control} game, this run plays "
                f"{variant} {time_control}"
            )
        if (line.south.engine, line.north.engine) != (names[south], names[north]):
            raise PlanError(
                f"{where}: {line.south.engine} - {line.north.engine}, this run's game "
                f"{line.id} is {names[south]} - {names[north]}"
            )
        if starts is not None and line.start_position != starts[job.number].to_text():
            raise PlanError(
                f"{where}: game {line.id} started from another position than this run's "
                "(another --start or --seed?)"
            )
        if run_seed is not None and line.seed != job_seed(run_seed, job):
            raise PlanError(
                f"{where}: game {line.id} was played with another --seed than {run_seed}"
            )
        if line.id in games:
            raise PlanError(f"{where}: game {line.id} twice")
        games[line.id] = line
        offset += len(raw) + (0 if cut else 1)
    return Resumed(games, offset, False, header)


def finished_from_line(line: GameLine, names: Sequence[str]) -> Finished:
    """The tally's view of a game read back from ``--out``."""
    index = {name: i for i, name in enumerate(names)}
    south, north = index[line.south.engine], index[line.north.engine]
    winner = line.winner.engine if line.winner is not None else None
    return Finished(
        job=line.match if line.match is not None else 0,
        south=south,
        north=north,
        result=line.result,
        termination=line.termination,
        charged=charged(line.termination, winner, south, north, names),
    )
