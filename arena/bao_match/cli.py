"""``bao-match`` (``python -m arena.bao_match``): many games between local engines.

Parses the command line, loads the engines (``engines.package.load_engine``: an executable, a
directory or an archive with ``bao-engine.json``), plans the jobs (``plan``), plays them
(``runner``) while it counts (``tally``), shows the progress and writes ``--out`` lines as games
end, and prints the summary (``report``). docs/bao-match.md is the user's page.

Exit status: 0 the run finished (every game played, or the SPRT decided); 1 engines failed
more than ``--max-failures`` times (crashes, failed handshakes, aborted games), or the run
stopped on an error of its own (``--out`` could not be written, a bug: logged); 2 a bad
argument (one line on stderr, before any engine starts); 130 interrupted (Ctrl-C or SIGTERM:
the engines are killed, the summary so far printed, ``--out`` and ``--json`` written).
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
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from types import FrameType
from typing import IO, TYPE_CHECKING, NoReturn

from arena.openings import STANDARD, start_choices
from arena.referee import RefereeConfig, TimeControl, TimeControlError
from arena.referee.cli import SANDBOX_MODES, sandbox_config
from arena.rules import VARIANTS, Position, UnknownVariantError, Variant, get_variant
from arena.rules.cli import at_least
from ratings.stats.sprt import (
    Decision,
    Model,
    SprtInputError,
    SprtParameters,
    check_bound_limit,
)

from . import output, report
from .plan import (
    EngineSpec,
    Job,
    PlanError,
    job_start,
    option_value_error,
    pairings,
    parse_option,
    schedule,
    start_order,
)
from .plan import start_positions as plan_starts
from .runner import INTERNAL_ERROR, Played, Runner
from .tally import Finished, Tally

if TYPE_CHECKING:
    from engines.package import EnginePackage

EXIT_OK = 0
EXIT_FAILURES = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

#: Game pairs per pairing without ``--pairs``/``--games``: with and without ``--sprt``.
DEFAULT_PAIRS = 50
DEFAULT_SPRT_PAIRS = 20_000
#: The most games a run may schedule (every pairing together): the schedule is planned before
#: the first game, so a larger --pairs/--games is refused (exit 2) rather than filling memory.
MAX_GAMES = 1_000_000
#: Plain (non-terminal) output prints the status line every this many games.
PLAIN_STATUS_EVERY = 10


class _Usage(Exception):
    """A user error: one line on stderr, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _Usage(message)


def default_concurrency() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="bao-match",
        description="Play many refereed games between local BEP engines (game pairs, SPRT, "
        "round robins), with the arena's referee, sandbox and statistics.",
    )
    p.add_argument(
        "--engine",
        action="append",
        default=[],
        metavar="[NAME=]PATH",
        help="an engine: executable, directory or archive with bao-engine.json (twice or more; "
        "the first is the new engine of an SPRT)",
    )
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME.KEY=VALUE",
        help="setoption KEY VALUE for engine NAME before each game (repeatable)",
    )
    p.add_argument(
        "--variant", default="bao-la-kete", help=f"one of {', '.join(VARIANTS)} (or an alias)"
    )
    p.add_argument("--time", default="10+0.1", help="'<base s>+<increment s>' or 'movetime=<ms>'")
    size = p.add_mutually_exclusive_group()
    size.add_argument("--pairs", type=at_least(1), help="game pairs per pairing")
    size.add_argument("--games", type=at_least(1), help="games per pairing (odd: one lone game)")
    p.add_argument(
        "--start",
        default=STANDARD,
        metavar="CHOICE|FILE",
        help=f"start positions: {', '.join(start_choices())}, or a file of positions",
    )
    p.add_argument("--seed", type=int, help="shuffle the start positions with this seed")
    p.add_argument(
        "--concurrency",
        type=at_least(1),
        default=None,
        help=f"games at once (default: the cores, {default_concurrency()})",
    )
    p.add_argument("--gauntlet", action="store_true", help="the first engine against each other")
    p.add_argument(
        "--sandbox",
        choices=SANDBOX_MODES,
        default=None,
        help="how engines are started (default: $BAO_SANDBOX_MODE, else auto)",
    )
    p.add_argument(
        "--sprt",
        nargs="+",
        metavar="KEY=VALUE",
        help="elo0=E0 elo1=E1 [alpha=0.05] [beta=0.05] [model=logistic|normalized]: stop at a "
        "decision (two engines)",
    )
    p.add_argument("--out", type=Path, metavar="FILE", help="write each game as a JSON line")
    p.add_argument(
        "--resume", action="store_true", help="continue the run whose games are in --out"
    )
    p.add_argument("--json", type=Path, metavar="FILE", help="write the summary as JSON")
    p.add_argument(
        "--max-failures",
        type=at_least(0),
        default=5,
        metavar="N",
        help="stop (exit 1) after more than N crashes, failed handshakes or aborted games",
    )
    return p


def parse_sprt(words: Sequence[str]) -> SprtParameters:
    """``elo0=.. elo1=.. [alpha=..] [beta=..] [model=..]`` (``SprtParameters``). Raises
    ``_Usage``."""
    known = {"elo0", "elo1", "alpha", "beta", "model"}
    values: dict[str, str] = {}
    for word in words:
        key, sep, value = word.partition("=")
        if not sep or key not in known:
            raise _Usage(f"--sprt {word}: expected one of {', '.join(sorted(known))} as KEY=VALUE")
        values[key] = value
    for key in ("elo0", "elo1"):
        if key not in values:
            raise _Usage(f"--sprt needs {key}=")
    try:
        numbers = {k: float(values[k]) for k in ("elo0", "elo1", "alpha", "beta") if k in values}
    except ValueError as exc:
        raise _Usage(f"--sprt: {exc}") from None
    try:
        model = Model(values.get("model", "logistic"))
    except ValueError:
        raise _Usage(f"--sprt model={values['model']}: logistic or normalized") from None
    try:
        params = SprtParameters(
            numbers["elo0"],
            numbers["elo1"],
            numbers.get("alpha", 0.05),
            numbers.get("beta", 0.05),
            model,
        )
        check_bound_limit(params)  # the version tests' limit
        return params
    except SprtInputError as exc:
        raise _Usage(f"--sprt: {exc}") from None


class Display:
    """The progress: one line rewritten in place on a terminal, plain lines otherwise."""

    def __init__(self, stream: IO[str], tty: bool) -> None:
        self.stream = stream
        self.tty = tty
        self.status = ""
        self.lock = threading.Lock()

    def line(self, text: str) -> None:
        """A line of its own (the status line, on a terminal, is drawn again under it)."""
        with self.lock:
            if self.tty:
                self.stream.write("\r\x1b[K" + text + "\n" + self.status)
            else:
                self.stream.write(text + "\n")
            self.stream.flush()

    def update(self, status: str) -> None:
        """The status line: rewritten on a terminal, printed otherwise."""
        with self.lock:
            self.status = status
            if self.tty:
                self.stream.write("\r\x1b[K" + status)
            else:
                self.stream.write(status + "\n")
            self.stream.flush()

    def end(self) -> None:
        """Leave the status line (a terminal's cursor goes to the next line)."""
        with self.lock:
            if self.tty and self.status:
                self.stream.write("\n")
                self.stream.flush()
            self.status = ""


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def _names(specs: Sequence[EngineSpec], packages: Sequence[EnginePackage]) -> list[str]:
    """Each engine's name (``NAME=`` or the package's), made distinct (``x``, ``x-2``)."""
    names: list[str] = []
    for spec, package in zip(specs, packages, strict=True):
        base = spec.name or package.name
        name, n = base, 1
        while name in names:
            n += 1
            name = f"{base}-{n}"
        if spec.name is not None and name != base:
            raise _Usage(f"--engine {spec.name}=...: the name is given twice")
        names.append(name)
    return names


def bundled_path(path: str) -> str:
    """``path``, or for a name of a bundled engine (``search``, ``greedy``, ``random``) with no
    such file or directory here, that engine's script (``engines/bundled/``: found after a
    ``pip install`` too)."""
    if Path(path).exists() or "/" in path:
        return path
    from engines.bundled_scripts import BUNDLED_DIR

    bundled = BUNDLED_DIR / path
    return str(bundled) if bundled.is_file() else path


def _check_writable(path: Path, what: str) -> None:
    if path.is_dir():
        raise _Usage(f"{what}: {path} is a directory")
    if not path.parent.is_dir():
        raise _Usage(f"{what}: directory {path.parent} does not exist")
    existed = path.exists()
    try:
        with open(path, "a"):
            pass
    except OSError as exc:
        raise _Usage(f"{what}: cannot write {path}: {exc.strerror}") from None
    if not existed:
        path.unlink(missing_ok=True)


class _Run:
    """One run's state between the runner's threads and the main thread."""

    def __init__(
        self,
        *,
        names: list[str],
        variant: Variant,
        tc: TimeControl,
        jobs: list[Job],
        params: SprtParameters | None,
        max_failures: int,
        display: Display,
        out: IO[str] | None,
    ) -> None:
        self.names = names
        self.variant = variant
        self.tc = tc
        self.jobs = {job.number: job for job in jobs}
        self.total = sum(job.games for job in jobs)
        self.params = params
        self.max_failures = max_failures
        self.display = display
        self.out = out
        self.tally = Tally(list(names))
        self.began = time.monotonic()
        self.resumed = 0
        self.runner: Runner | None = None
        self.stopped = "finished"
        #: The ``--out`` header line still to write (a new or empty file), else None.
        self.header: str | None = None

    def count(self, finished: Finished) -> None:
        job = self.jobs[finished.job]
        self.tally.add(finished, job.games)

    def on_game(self, played: Played) -> None:
        r = played.record
        if self.out is not None:
            if self.header is not None:  # a new file: its first line, before the first game
                self.out.write(self.header)
                self.header = None
            # Written before it is counted: a game the file lacks is not in the summary either
            # (a --resume plays it again).
            line = output.game_line(played, self.names, self.variant.id, str(self.tc))
            output.write_line(self.out, line)
        self.count(output.finished(played, self.names))
        south, north = self.names[played.south], self.names[played.north]
        text = (
            f"game {played.number} (pair {played.job.number}): {south} (S) - {north} (N)  "
            f"{r.result}  {r.termination}  {r.plies} plies"
        )
        if r.detail and r.termination not in ("bao_hamna", "no_legal_move", "score"):
            text += f"  ({r.detail[:120]})"
        self.display.line(text)
        done = self.tally.games - self.resumed
        if self.display.tty or done % PLAIN_STATUS_EVERY == 0:
            self.display.update(self.status())
        assert self.runner is not None
        if self.tally.failures > self.max_failures:
            self.stopped = "failures"
            self.runner.stop("failures")
        elif self.params is not None and played.index == played.job.games and self._decided():
            self.stopped = "sprt"
            self.runner.stop("sprt")

    def _decided(self) -> bool:
        assert self.params is not None
        return report.sprt_result(self.tally, self.params).decision is not Decision.CONTINUE

    def status(self) -> str:
        elapsed = time.monotonic() - self.began
        played = self.tally.games - self.resumed
        return report.progress_line(self.tally, self.total, played, elapsed, self.params)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (module docstring)."""
    work: Path | None = None
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        try:
            args = build_parser().parse_args(argv)
            setup = _setup(args)
            work = setup.work
            _check_option_values(setup)
        except (_Usage, PlanError, UnknownVariantError, TimeControlError) as exc:
            print(f"bao-match: error: {exc}", file=sys.stderr)
            return EXIT_USAGE
        work = setup.work
        return _play(args, setup)
    except KeyboardInterrupt:
        print("bao-match: interrupted before the games began", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        signal.signal(signal.SIGTERM, previous)
        if work is not None:
            shutil.rmtree(work, ignore_errors=True)


class _Setup:
    def __init__(self) -> None:
        self.work: Path | None = None
        self.packages: list[EnginePackage] = []
        self.names: list[str] = []
        self.options: list[dict[str, str]] = []
        self.variant: Variant
        self.tc: TimeControl
        self.jobs: list[Job] = []
        self.starts: dict[int, Position] = {}
        self.params: SprtParameters | None = None
        self.config: RefereeConfig
        self.seed = 0
        self.resumed: output.Resumed | None = None
        self.settings: dict[str, object] = {}


def _settings(args: argparse.Namespace, s: _Setup) -> dict[str, object]:
    """What the ``--out`` header records (``output.header_line``)."""
    p = s.params
    return {
        "seed": args.seed,
        "run_seed": s.seed,
        "options": {n: o for n, o in zip(s.names, s.options, strict=True) if o},
        "sprt": None
        if p is None
        else {"elo0": p.elo0, "elo1": p.elo1, "alpha": p.alpha, "beta": p.beta, "model": p.model},
    }


def _check_settings(path: Path, s: _Setup) -> None:
    """Refuse (``_Usage``) a ``--resume`` whose ``--seed``, ``--option`` or ``--sprt`` differ
    from those in the header of ``path``; the run's seed becomes the header's."""
    assert s.resumed is not None
    header = s.resumed.header
    if header is None:  # a file without a header (or empty): nothing to compare
        return
    flags = {"seed": "--seed", "options": "--option", "sprt": "--sprt"}
    for key, flag in flags.items():
        if json.loads(json.dumps(s.settings[key])) != header.get(key):
            raise _Usage(
                f"--resume: {flag} changed: {path} was played with {key} "
                f"{json.dumps(header.get(key))}, this run has {json.dumps(s.settings[key])}"
            )
    run_seed = header.get("run_seed")
    if isinstance(run_seed, int):
        s.seed = run_seed
        s.settings["run_seed"] = run_seed


def _setup(args: argparse.Namespace) -> _Setup:
    """Every check of the arguments, before any engine starts. Raises ``_Usage`` or
    ``PlanError`` (one line each)."""
    s = _Setup()
    specs = [EngineSpec.parse(text) for text in args.engine]
    if len(specs) < 2:
        raise _Usage(f"give --engine at least twice (got {len(specs)})")
    s.variant = get_variant(args.variant)
    s.tc = TimeControl.parse(args.time)
    s.params = parse_sprt(args.sprt) if args.sprt else None
    if s.params is not None and len(specs) != 2:
        raise _Usage("--sprt needs exactly two engines")
    if args.resume and args.out is None:
        raise _Usage("--resume needs --out FILE (the games to continue from)")
    if args.out is not None:
        _check_writable(args.out, "--out")
        if not args.resume and args.out.exists() and args.out.stat().st_size > 0:
            raise _Usage(f"--out {args.out} exists: add --resume to continue its run")
    if args.json is not None:
        _check_writable(args.json, "--json")
    positions = plan_starts(s.variant, args.start)
    order = start_order(len(positions), args.seed)
    if args.games is not None:
        per_pairing = args.games
        size = f"--games {args.games}"
    else:
        pairs = args.pairs or (DEFAULT_SPRT_PAIRS if s.params is not None else DEFAULT_PAIRS)
        per_pairing = 2 * pairs
        size = f"--pairs {pairs}"
    n_pairings = len(pairings(len(specs), args.gauntlet))
    if per_pairing * n_pairings > MAX_GAMES:
        raise _Usage(
            f"{size}: {per_pairing * n_pairings} games in all; at most {MAX_GAMES} games per run"
        )
    s.jobs = schedule(len(specs), per_pairing, gauntlet=args.gauntlet)
    s.starts = {job.number: job_start(positions, order, job) for job in s.jobs}
    s.seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    try:
        sandbox = sandbox_config(args.sandbox)
    except ValueError as exc:  # junk in BAO_SANDBOX_MODE / BAO_SANDBOX_REQUIRE_FULL
        raise _Usage(str(exc)) from exc
    s.config = RefereeConfig(sandbox=sandbox)
    from engines.package import EnginePackageError, load_engine

    s.work = Path(tempfile.mkdtemp(prefix="bao-match-"))
    os.chmod(s.work, 0o755)  # the sandbox's engine uid must be able to enter it
    try:
        for i, spec in enumerate(specs):
            try:
                path = bundled_path(spec.path)
                s.packages.append(load_engine(path, unpack_dir=s.work / f"engine{i + 1}"))
            except EnginePackageError as exc:
                raise _Usage(f"engine {spec.path}: {exc}") from exc
        s.names = _names(specs, s.packages)
        s.options = [{} for _ in s.names]
        for text in args.option:
            engine, key, value = parse_option(text)
            if engine not in s.names:
                raise _Usage(f"--option {text}: no engine named {engine} ({', '.join(s.names)})")
            s.options[s.names.index(engine)][key] = value
        s.settings = _settings(args, s)
        if args.resume:
            s.resumed = output.read_lines(
                args.out, s.jobs, s.names, s.variant.id, str(s.tc), s.starts, args.seed
            )
            _check_settings(args.out, s)
    except BaseException:
        shutil.rmtree(s.work, ignore_errors=True)
        s.work = None
        raise
    return s


def _check_option_values(s: _Setup) -> None:
    """Start each engine given an ``--option`` once for its handshake, and refuse (``_Usage``)
    a value that does not fit the option's declared type (``plan.option_value_error``),
    before any game. An engine whose handshake fails here is left to the run (a fault)."""
    from arena.referee import EngineFault, EngineSlot, StartError
    from arena.referee.players import close_all

    for index, options in enumerate(s.options):
        if not options:
            continue
        slot = EngineSlot(s.packages[index], s.names[index], s.config)
        try:
            slot.prepare(s.variant.id)
        except (EngineFault, StartError):
            continue
        finally:
            close_all([slot])
        assert slot.ident is not None
        for key, value in options.items():
            if key in slot.ident.options:
                why = option_value_error(key, value, slot.ident.options[key])
                if why is not None:
                    raise _Usage(f"--option {s.names[index]}.{key}={value}: {why}")


def _play(args: argparse.Namespace, s: _Setup) -> int:
    tty = sys.stdout.isatty()
    display = Display(sys.stdout, tty)
    out: IO[str] | None = None
    skip: set[int] = set()
    if args.out is not None:
        if s.resumed is not None:
            if s.resumed.dropped_tail:
                print(
                    f"bao-match: {args.out}: its last line was cut short: dropped, that game "
                    "is played again",
                    file=sys.stderr,
                )
            with open(args.out, "r+b") as fh:
                fh.truncate(s.resumed.keep_bytes)
                if s.resumed.keep_bytes:
                    fh.seek(s.resumed.keep_bytes - 1)
                    if fh.read(1) != b"\n":
                        fh.write(b"\n")
        out = open(args.out, "a", encoding="utf-8")  # noqa: SIM115 (closed below)
    run = _Run(
        names=s.names,
        variant=s.variant,
        tc=s.tc,
        jobs=s.jobs,
        params=s.params,
        max_failures=args.max_failures,
        display=display,
        out=out,
    )
    if out is not None and (s.resumed is None or s.resumed.keep_bytes == 0):
        run.header = output.header_line(s.settings)
    if s.resumed is not None:
        for number in sorted(s.resumed.games):
            run.count(output.finished_from_line(s.resumed.games[number], s.names))
            skip.add(number)
        run.resumed = len(skip)
    concurrency = args.concurrency or default_concurrency()
    sandbox_mode = s.config.sandbox.mode if s.config.sandbox is not None else "off"
    print(
        f"bao-match: {s.variant.id}  {' vs '.join(s.names)}  time {s.tc}  "
        f"{run.total} games  start {args.start}  concurrency {concurrency}  "
        f"sandbox {sandbox_mode}",
        flush=True,
    )
    if skip:
        print(f"bao-match: resuming: {len(skip)} games already in {args.out}", flush=True)
    runner = Runner(
        packages=s.packages,
        names=s.names,
        options=s.options,
        variant=s.variant,
        time_control=s.tc,
        config=s.config,
        jobs=s.jobs,
        starts=s.starts,
        seed=s.seed,
        concurrency=concurrency,
        on_game=run.on_game,
        warn=lambda text: display.line(f"bao-match: warning: {text}"),
        skip=skip,
    )
    run.runner = runner
    decided = s.params is not None and (
        report.sprt_result(run.tally, s.params).decision is not Decision.CONTINUE
    )
    interrupted = False
    try:
        if not decided:
            runner.run()
    except KeyboardInterrupt:
        interrupted = True
        run.stopped = "interrupted"
    finally:
        display.end()
        if out is not None:
            out.close()
    if decided:
        run.stopped = "sprt"
    if runner.stop_reason == INTERNAL_ERROR:
        run.stopped = "error"
    _summary(run, s, interrupted)
    if args.json is not None:
        payload = report.summary_json(
            run.tally, s.params, stopped=run.stopped, engines=list(s.names)
        )
        try:
            args.json.write_text(json.dumps(payload, indent=2) + "\n")
        except OSError as exc:
            print(f"bao-match: error: cannot write {args.json}: {exc.strerror}", file=sys.stderr)
            return EXIT_USAGE
    if interrupted:
        print(
            "bao-match: interrupted: engines killed; the summary is of the games so far",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    if runner.stop_reason == INTERNAL_ERROR:
        print(
            "bao-match: stopped by an error of its own (above); the summary is of the games so far",
            file=sys.stderr,
        )
        return EXIT_FAILURES
    if run.stopped == "failures":
        print(
            f"bao-match: stopped: {run.tally.failures} crashes, failed handshakes or aborted "
            f"games (more than --max-failures {args.max_failures})",
            file=sys.stderr,
        )
        return EXIT_FAILURES
    return EXIT_OK


def _summary(run: _Run, s: _Setup, interrupted: bool) -> None:
    tally = run.tally
    lines: list[str] = []
    if len(s.names) == 2:
        heading = f"{s.names[0]} vs {s.names[1]} ({s.tc}, {s.variant.id})"
        lines += report.pair_summary(tally, heading, s.params)
        if s.params is not None:
            lines.append(report.sprt_verdict(tally, s.params))
    else:
        lines.append(f"Ratings after {tally.games} games ({s.variant.id}, {s.tc}):")
        lines += report.ratings_lines(tally)
    lines += report.termination_lines(tally)
    if interrupted:
        lines.append(f"Interrupted after {tally.games} of {run.total} games.")
    print("\n".join(lines), flush=True)
