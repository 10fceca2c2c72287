"""What a run plays: the engines given on the command line and the schedule of game pairs.

Pure (no process is started here). Two engines play ``pairs`` game pairs; three or more play
each pairing of a round robin (or of a gauntlet: the first engine against each other one)
``pairs`` times. A *job* is one pair: two games from the same start position, colours
swapped (engine ``a`` South in the first, North in the second); with ``--games`` odd, the last
job of each pairing is a single game (``games == 1``). The schedule interleaves pairings
(round 1 of every pairing, then round 2, ...), so a run stopped early has played every pairing
about as often. Start positions: job ``n`` (its ``round``) plays position ``round`` of the
suite or file, in order, or in an order shuffled by ``--seed``; ``standard`` always plays the
variant's start.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.openings import STANDARD, OpeningError, load_suite, parse_suite, start_choices
from arena.rules import Position, Variant


class PlanError(ValueError):
    """A bad argument for the plan: printed as one line, exit status 2."""


@dataclass(frozen=True)
class EngineSpec:
    """``--engine [NAME=]PATH``: ``name`` None takes the package's own name."""

    path: str
    name: str | None = None

    @classmethod
    def parse(cls, text: str) -> EngineSpec:
        """``"path"`` or ``"name=path"`` (a name of letters, digits, ``.``, ``_``, ``-``; a
        path holding ``=`` without a name before it needs ``./``). Raises ``PlanError``."""
        name, sep, path = text.partition("=")
        if not sep:
            return cls(path=text)
        if not name or not all(c.isalnum() or c in "._-" for c in name) or "/" in name:
            return cls(path=text)
        if not path:
            raise PlanError(f"--engine {text}: no path after '='")
        return cls(path=path, name=name)


def parse_option(text: str) -> tuple[str, str, str]:
    """``--option NAME.KEY=VALUE`` as ``(engine name, option name, value)``; the engine name
    may itself hold dots (the option is after the last one). Raises ``PlanError``."""
    target, sep, value = text.partition("=")
    engine, dot, key = target.rpartition(".")
    if not sep or not dot or not engine or not key:
        raise PlanError(f"--option {text}: expected NAME.KEY=VALUE")
    return engine, key, value


def option_value_error(key: str, value: str, declared: Mapping[str, str]) -> str | None:
    """Why ``value`` does not fit option ``key`` as the handshake declared it (``{"type": ...}``
    of ``EngineId.options``): a ``spin`` takes a whole number, a ``check`` ``true`` or
    ``false``; None when it fits (any value for another type)."""
    kind = declared.get("type", "")
    if kind == "spin":
        try:
            int(value)
        except ValueError:
            return f"{key} is a spin option: it takes a whole number, not {value!r}"
    elif kind == "check" and value not in ("true", "false"):
        return f"{key} is a check option: it takes true or false, not {value!r}"
    return None


@dataclass(frozen=True)
class Job:
    """Game pair ``number`` (from 1) of the schedule: engines ``a`` and ``b`` (indices into the
    run's engine list), ``round`` (from 0) of their pairing, ``games`` 2 (a pair) or 1, and
    the number of its first game in the run (``first_game``, from 1)."""

    number: int
    a: int
    b: int
    round: int
    games: int
    first_game: int


def pairings(n: int, gauntlet: bool) -> list[tuple[int, int]]:
    """The pairings of ``n`` engines: ``[(0, 1)]`` for two, every ``(i, j)`` with ``i < j``
    for a round robin, ``(0, j)`` for a gauntlet. Raises ``PlanError`` below two engines."""
    if n < 2:
        raise PlanError(f"give at least two engines (got {n})")
    if gauntlet or n == 2:
        return [(0, j) for j in range(1, n)]
    return [(i, j) for i in range(n) for j in range(i + 1, n)]


def schedule(n: int, games_per_pairing: int, gauntlet: bool = False) -> list[Job]:
    """Every job of a run: ``games_per_pairing`` games (pairs, the last one single when odd)
    for each pairing of ``n`` engines, interleaved by round. Raises ``PlanError``."""
    if games_per_pairing < 1:
        raise PlanError(f"need at least one game per pairing (got {games_per_pairing})")
    rounds = (games_per_pairing + 1) // 2
    jobs: list[Job] = []
    game = 1
    for r in range(rounds):
        games = 2 if 2 * (r + 1) <= games_per_pairing else 1
        for a, b in pairings(n, gauntlet):
            jobs.append(Job(number=len(jobs) + 1, a=a, b=b, round=r, games=games, first_game=game))
            game += games
    return jobs


def start_positions(variant: Variant, start: str) -> tuple[Position, ...]:
    """The positions ``--start`` names: ``standard`` (the variant's start alone), a suite of
    ``arena.openings`` or a file of positions (one a line, ``#`` comments;
    ``arena.openings.parse_suite``). Raises ``PlanError``."""
    if start == STANDARD:
        return (variant.initial_position(),)
    if start in start_choices(variant):
        try:
            return load_suite(variant, start)
        except OpeningError as exc:
            raise PlanError(f"--start {start}: {exc}") from exc
    path = Path(start)
    if not path.is_file():
        raise PlanError(f"--start {start}: neither {', '.join(start_choices(variant))} nor a file")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PlanError(f"--start {start}: cannot read it: {exc}") from exc
    try:
        positions = parse_suite(variant, text, source=str(path))
    except OpeningError as exc:
        raise PlanError(f"--start {start}: {exc}") from exc
    if not positions:
        raise PlanError(f"--start {start}: no position in the file")
    return positions


def start_order(count: int, seed: int | None) -> list[int]:
    """The order positions are played in: ``0..count-1``, shuffled by ``seed`` when given."""
    order = list(range(count))
    if seed is not None:
        random.Random(f"bao-match/start/{seed}").shuffle(order)
    return order


def job_start(positions: Sequence[Position], order: Sequence[int], job: Job) -> Position:
    """The start position of ``job``: its round's entry of ``order``, cycling."""
    return positions[order[job.round % len(order)]]
