"""``python -m arena.referee``: play one best-of-three match from the command line.

Every game starts from ``--start`` (``standard``, the default, or a suite of balanced start
positions drawn by the seed, ``arena.openings``) or from ``--position TEXT``. Prints one line per
game as it ends (players, result, termination, plies) and the match result;
``--json FILE`` writes the full record (``MatchRecord.to_dict()``). Bad arguments, an unknown
variant, an unloadable engine or a JSON target that cannot be written (a directory, a missing
or unwritable directory: checked before the match is played) give one clear line on stderr and
exit status 2; an interrupt (Ctrl-C, SIGTERM) kills the engines and exits 130.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from arena.openings import STANDARD, OpeningError, match_start, start_choices
from arena.rules import VARIANTS, InvalidPositionError, Position, UnknownVariantError, get_variant

from .config import RefereeConfig, TimeControl, TimeControlError
from .events import GameEnd, GameStart, RefereeEvent
from .match import play_match

if TYPE_CHECKING:
    from engines.package import EnginePackage
    from engines.sandbox import SandboxConfig

SANDBOX_MODES = ("auto", "bwrap", "fallback", "off")


class _Usage(Exception):
    """A user error: printed as one line, exit status 2."""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m arena.referee",
        description="Play a refereed best-of-three match between two BEP engines.",
    )
    p.add_argument("--variant", required=True, help=f"one of {', '.join(VARIANTS)} (or an alias)")
    p.add_argument(
        "--engine",
        action="append",
        required=True,
        metavar="PATH",
        help="an engine: executable, directory or archive with bao-engine.json (give it twice)",
    )
    p.add_argument("--time", default="10+0.1", help="'<base s>+<increment s>' or 'movetime=<ms>'")
    p.add_argument(
        "--seed", type=int, default=None, help="decides South in game 3 (default: random)"
    )
    start = p.add_mutually_exclusive_group()
    start.add_argument(
        "--start",
        default=STANDARD,
        metavar="CHOICE",
        help=f"start position: one of {', '.join(start_choices())} (a suite: drawn by the seed)",
    )
    start.add_argument("--position", metavar="TEXT", help="start position text (BPN/KPN)")
    p.add_argument("--json", type=Path, default=None, metavar="FILE", help="write the record here")
    p.add_argument(
        "--sandbox",
        choices=SANDBOX_MODES,
        default=None,
        help="how engines are started (default: $BAO_SANDBOX_MODE, else auto)",
    )
    return p


def _print_event(event: RefereeEvent) -> None:
    if isinstance(event, GameEnd):
        g = _games[event.index]
        print(
            f"game {event.index}: {g.south} (S) - {g.north} (N)  {event.result}  "
            f"{event.termination}  {event.plies} plies",
            flush=True,
        )
    elif isinstance(event, GameStart):
        _games[event.index] = event


_games: dict[int, GameStart] = {}


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 done, 2 user error, 130 interrupted)."""
    args = _parser().parse_args(argv)
    loaded: list[EnginePackage] = []
    # Copies of executables and unpacked archives go here (directories are used in place).
    work = Path(tempfile.mkdtemp(prefix="bao-referee-"))
    os.chmod(work, 0o755)  # the sandbox's engine uid must be able to enter it
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        try:
            if len(args.engine) != 2:
                raise _Usage(f"give --engine exactly twice (got {len(args.engine)})")
            variant = get_variant(args.variant)
            tc = TimeControl.parse(args.time)
            seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
            start: Position = (
                variant.parse_position(args.position)
                if args.position is not None
                else match_start(variant, args.start, seed)
            )
            if args.json is not None:
                _check_writable(args.json)  # before a match that could take minutes
            try:
                sandbox = sandbox_config(args.sandbox)
                config = RefereeConfig(sandbox=sandbox)
            except ValueError as exc:  # junk in BAO_SANDBOX_MODE / BAO_SANDBOX_REQUIRE_FULL
                raise _Usage(str(exc)) from exc
            from engines.package import EnginePackageError, load_engine

            for i, path in enumerate(args.engine):
                try:
                    loaded.append(load_engine(path, unpack_dir=work / f"engine{i + 1}"))
                except EnginePackageError as exc:
                    raise _Usage(f"engine {path}: {exc}") from exc
        except (
            _Usage,
            UnknownVariantError,
            TimeControlError,
            OpeningError,
            InvalidPositionError,
        ) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        print(
            f"{variant.id}  {loaded[0].name} vs {loaded[1].name}  time {tc}  seed {seed}  "
            f"sandbox {sandbox.mode}",
            flush=True,
        )
        if start != variant.initial_position():
            print(f"start position {start.to_text()}", flush=True)
        record = play_match(
            loaded[0], loaded[1], variant, tc, seed, config, on_event=_print_event, start=start
        )
        a, b = record.score
        if record.aborted:
            verdict = "match aborted (not rated): " + record.games[-1].detail
        elif record.winner is None:
            verdict = "match drawn"
        else:
            verdict = f"{record.winner} wins the match"
        print(f"{record.engines[0]} {a:g} - {b:g} {record.engines[1]}: {verdict}", flush=True)
        if args.json is not None:
            try:
                args.json.write_text(json.dumps(record.to_dict(), indent=2) + "\n")
            except OSError as exc:
                print(f"error: cannot write {args.json}: {exc.strerror}", file=sys.stderr)
                return 2
        return 0
    except KeyboardInterrupt:
        print("interrupted: engines killed, no result", file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
        shutil.rmtree(work, ignore_errors=True)


def _check_writable(path: Path) -> None:
    """Raises ``_Usage`` unless ``path`` can be written as the JSON record: not a directory,
    in an existing directory, and openable for writing (checked by opening it; a file this
    check creates is removed again, an existing one is left as it is)."""
    if path.is_dir():
        raise _Usage(f"--json: {path} is a directory")
    parent = path.parent
    if not parent.exists():
        raise _Usage(f"--json: directory {parent} does not exist")
    if not parent.is_dir():
        raise _Usage(f"--json: {parent} is not a directory")
    existed = path.exists()
    try:
        with open(path, "a"):
            pass
    except OSError as exc:
        raise _Usage(f"--json: cannot write {path}: {exc.strerror}") from None
    if not existed:
        path.unlink(missing_ok=True)


def sandbox_config(mode: str | None) -> SandboxConfig:
    """The sandbox config of the ``mode`` asked for on the command line; without one, the
    environment's (``BAO_SANDBOX_MODE``, ``BAO_SANDBOX_REQUIRE_FULL``), else ``auto``: the
    flag overrides the environment, which overrides the default. Raises ``ValueError`` for a
    junk environment value."""
    from engines.sandbox import SandboxConfig

    sandbox = SandboxConfig.from_env()
    if mode is not None:
        sandbox = replace(sandbox, mode=mode)
    return sandbox
