"""Plays the jobs of a run on ``concurrency`` threads, each with its own engine processes.

Each thread takes the next job (a game pair, ``plan.Job``) from one queue and plays its games
with the referee's ``play_game`` on engine slots it keeps between jobs, so an engine process
serves game after game (``resync`` and ``newgame`` between them, a restart only after a
fault) instead of starting per match as ``python -m arena.referee`` does. A thread keeps up
to ``MAX_OPEN_ENGINES`` engines running, closing the one it used longest ago past that.

Stopping: ``stop(reason)`` asks every thread's ``MatchControl`` to stop (``arena.referee.
control``): the engines' process groups are killed at once, the games being played are dropped
(not reported), and every thread closes what is left before ``run`` returns. ``run`` itself
stops on ``KeyboardInterrupt`` the same way, then re-raises it. Reports (``on_game``) are made
on the playing thread under one lock, in the order the games end.
"""

from __future__ import annotations

import logging
import queue
import random
import threading
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from arena.referee import (
    EngineClient,
    EngineSlot,
    GameRecord,
    MatchControl,
    MatchStopped,
    RefereeConfig,
    TimeControl,
    play_game,
)
from arena.referee.match import game_seed
from arena.referee.players import close_all
from arena.rules import Position, Variant

from .plan import Job

if TYPE_CHECKING:
    from engines.package import EnginePackage

log = logging.getLogger(__name__)

#: Engine processes one thread keeps open between jobs (a round robin's thread meets every
#: engine in turn: up to this many stay running instead of restarting at each pairing); past
#: it, the one used longest ago is closed.
MAX_OPEN_ENGINES = 4

#: The stop reason after an error of our own (a bug, or ``--out`` that cannot be written).
INTERNAL_ERROR = "internal error"


@dataclass(frozen=True)
class Played:
    """Game ``number`` (from 1, the run's numbering) ended: its job, its index in the job (1
    or 2), the engines' indices as South and North, the job's seed and the referee's record."""

    job: Job
    number: int
    index: int
    south: int
    north: int
    seed: int
    record: GameRecord


def job_seed(run_seed: int, job: Job) -> int:
    """The seed of ``job`` (0 <= n < 2**31): the games' engine seeds come from it
    (``arena.referee.match.game_seed``), a pure function of the run's seed and the job."""
    return random.Random(f"bao-match/job/{run_seed}/{job.number}").randrange(2**31)


class _Slot(EngineSlot):
    """An engine slot that sends its own engine's ``--option`` values besides the game's."""

    def __init__(
        self,
        package: EnginePackage,
        name: str,
        config: RefereeConfig,
        control: MatchControl,
        options: dict[str, str],
        warn: Callable[[str], None],
    ) -> None:
        super().__init__(package, name, config, control)
        self.options = options
        self._warn = warn
        self._warned = False

    def prepare(self, variant_id: str, options: dict[str, str] | None = None) -> EngineClient:
        client = super().prepare(variant_id, {**(options or {}), **self.options})
        if not self._warned and self.ident is not None:
            self._warned = True
            unknown = sorted(set(self.options) - set(self.ident.options))
            if unknown:
                self._warn(f"{self.name} declares no option {', '.join(unknown)}: not sent")
        return client


class Runner:
    """One run: ``packages`` named ``names`` (distinct), options per engine index, the jobs
    with their start positions (``starts[job.number]``), played on ``concurrency`` threads.

    ``skip``: numbers of games already played (``--resume``): never played again.
    ``on_game(played)``: each ended game (on its thread, under the runner's lock); it may
    call ``stop``. ``warn(text)``: a one-line notice for the user.
    """

    def __init__(
        self,
        *,
        packages: Sequence[EnginePackage],
        names: Sequence[str],
        options: Sequence[dict[str, str]],
        variant: Variant,
        time_control: TimeControl,
        config: RefereeConfig,
        jobs: Sequence[Job],
        starts: dict[int, Position],
        seed: int,
        concurrency: int,
        on_game: Callable[[Played], None],
        warn: Callable[[str], None],
        skip: Collection[int] = (),
    ) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.packages = list(packages)
        self.names = list(names)
        self.options = list(options)
        self.variant = variant
        self.time_control = time_control
        self.config = config
        self.starts = starts
        self.seed = seed
        self.concurrency = concurrency
        self.on_game = on_game
        self.warn = warn
        self.skip = frozenset(skip)
        self.lock = threading.Lock()
        self.stop_reason = ""
        self._stopping = threading.Event()
        self._controls_lock = threading.Lock()
        self._controls: list[MatchControl] = []
        self._jobs: queue.SimpleQueue[Job] = queue.SimpleQueue()
        for job in jobs:
            if any(job.first_game + k not in self.skip for k in range(job.games)):
                self._jobs.put(job)

    @property
    def stopped(self) -> bool:
        return self._stopping.is_set()

    def stop(self, reason: str) -> None:
        """Stop every thread now (idempotent; the first reason is kept): engines killed,
        games in progress dropped."""
        with self._controls_lock:
            if self._stopping.is_set():
                return
            self.stop_reason = reason
            self._stopping.set()
            controls = list(self._controls)
        for control in controls:
            control.request_stop(reason)

    def run(self) -> None:
        """Play every job not skipped, or until ``stop``. Returns once every thread ended and
        every engine process is gone; re-raises ``KeyboardInterrupt`` after stopping."""
        threads = [
            threading.Thread(target=self._work, name=f"bao-match-{i + 1}", daemon=True)
            for i in range(self.concurrency)
        ]
        for thread in threads:
            thread.start()
        try:
            for thread in threads:
                while thread.is_alive():
                    thread.join(0.2)  # short waits: the main thread stays interruptible
        except KeyboardInterrupt:
            self.stop("interrupted")
            for thread in threads:
                thread.join()
            raise

    def _work(self) -> None:
        control = MatchControl()
        with self._controls_lock:
            self._controls.append(control)
            if self._stopping.is_set():
                control.request_stop(self.stop_reason)
        slots: dict[int, _Slot] = {}
        try:
            while not self._stopping.is_set():
                try:
                    job = self._jobs.get_nowait()
                except queue.Empty:
                    return
                for index in (job.a, job.b):
                    if index in slots:
                        slots[index] = slots.pop(index)  # the most recently used go last
                        continue
                    if len(slots) >= MAX_OPEN_ENGINES:
                        oldest = next(i for i in slots if i not in (job.a, job.b))
                        close_all([slots.pop(oldest)])
                    slots[index] = _Slot(
                        self.packages[index],
                        self.names[index],
                        self.config,
                        control,
                        self.options[index],
                        self.warn,
                    )
                self._play(job, slots, control)
        except MatchStopped:
            pass
        except Exception:
            # Our own bug must not leave engines running nor hang the run.
            log.exception("a bao-match thread failed")
            self.stop(INTERNAL_ERROR)
        finally:
            close_all(list(slots.values()))

    def _play(self, job: Job, slots: dict[int, _Slot], control: MatchControl) -> None:
        seed = job_seed(self.seed, job)
        start = self.starts[job.number]
        for k in range(job.games):
            number = job.first_game + k
            if number in self.skip:
                continue
            south, north = (job.a, job.b) if k == 0 else (job.b, job.a)
            record = play_game(
                self.variant,
                slots[south],
                slots[north],
                self.time_control,
                self.config,
                index=k + 1,
                start=start,
                seed=game_seed(seed, k + 1),
                control=control,
            )
            # A stop during the game may have made it look like an engine's fault (a killed
            # engine "crashed"): the game does not count.
            control.check()
            with self.lock:
                if self._stopping.is_set():
                    raise MatchStopped(self.stop_reason)
                self.on_game(Played(job, number, k + 1, south, north, seed, record))
