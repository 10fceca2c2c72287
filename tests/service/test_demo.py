"""The demo command end to end: a real worker subprocess on the broker, the bundled engines in
a round robin, the printed leaderboard and crosstable, and no process left behind."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from arena.celery_processes import process_tree
from tournaments.models import Tournament

pytestmark = [pytest.mark.slow, pytest.mark.e2e]


@pytest.fixture
def var_dir(settings: Any) -> Iterator[Path]:
    """A fresh world-readable ``VAR_DIR``: the bundled engines are stored anew (as v1) for the
    test database, and sandboxed engines (other uids) must read them; the worker inherits it."""
    var = Path(tempfile.mkdtemp(prefix="bao-demo-test-"))
    var.chmod(0o755)
    (var / "engines").mkdir(mode=0o755)
    settings.VAR_DIR = var
    settings.BAO_ENGINES_DIR = var / "engines"
    yield var
    shutil.rmtree(var, ignore_errors=True)


def test_the_demo_plays_a_round_robin_and_prints_the_tables(
    transactional_db: Any, var_dir: Path
) -> None:
    from arena.celery import app

    out = io.StringIO()
    saved_queue = app.conf.task_default_queue
    try:
        call_command(
            "demo", "--engines", "random,greedy,search", "--time-control", "2+0.05",
            "--workers", "2", "--queue", f"bao-demo-test-{os.getpid()}", "--timeout", "240",
            stdout=out,
        )  # fmt: skip
    finally:
        app.conf.task_default_queue = saved_queue
        app.amqp.flush_routes()
    text = out.getvalue()
    tournament = Tournament.objects.get()
    assert tournament.status == "finished"
    match_lines = [line for line in text.splitlines() if re.match(r"^\[\d/3\] round \d", line)]
    assert len(match_lines) == 3
    assert all(" g1 " in line and " g2 " in line for line in match_lines)
    board = text[text.index("Leaderboard bao-la-kete") :].splitlines()
    assert board[1].split() == [
        "rank",
        "engine",
        "rating",
        "95%",
        "interval",
        "games",
        "W/D/L",
        "score",
        "LOS",
    ]
    assert board[2].split()[:3] == ["1", "search", "v1"]
    assert "Crosstable (game points, row against column)" in text
    assert f"/api/tournaments/{tournament.pk}/" in text and "/games/" in text
    pid = int(re.search(r"Worker pid (\d+) ready", text).group(1))  # type: ignore[union-attr]
    assert process_tree(pid) == set()
    assert (var_dir / "demo-worker.log").read_text().count("succeeded") >= 3


@pytest.mark.parametrize(
    ("signum", "background"),
    [(signal.SIGINT, False), (signal.SIGTERM, False), (signal.SIGINT, True)],
)
def test_an_interrupted_demo_leaves_no_worker_or_engine_behind(
    transactional_db: Any, var_dir: Path, signum: int, background: bool
) -> None:
    from arena.celery_processes import REPO_ROOT, worker_environment

    env = worker_environment()
    argv = [
        sys.executable,
        "manage.py",
        "demo",
        "--time-control",
        "20+0.5",
        "--queue",
        f"bao-demo-int-{os.getpid()}",
    ]
    # A shell starts a background job (`./demo.sh --serve &`) with SIGINT ignored; the demo
    # must still stop on `kill -INT`.
    ignore_sigint = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if background else None
    demo = subprocess.Popen(
        argv,
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=ignore_sigint,
    )
    lines: list[str] = []
    worker_pid = None
    deadline = time.monotonic() + 120
    assert demo.stdout is not None
    while time.monotonic() < deadline:
        line = demo.stdout.readline()
        if not line:
            break
        lines.append(line)
        found = re.search(r"Worker pid (\d+) ready", line)
        if found:
            worker_pid = int(found.group(1))
        if line.startswith("Started: ") and "matches queued" in line:
            break  # matches queued: engines are about to run or running
    assert worker_pid is not None, "".join(lines)
    time.sleep(2)  # let the worker start engines
    assert len(process_tree(worker_pid)) > 1  # the worker's pool children (and engines) exist
    demo.send_signal(signum)
    rest, _ = demo.communicate(timeout=60)
    assert demo.returncode != 0
    assert "Interrupted: stopping the worker" in rest
    assert process_tree(worker_pid) == set()
    # The demo released what it started: no match waits for a lease to expire.
    tournament = Tournament.objects.get()
    reason = f"the demo was interrupted ({signal.Signals(signum).name})"
    assert (tournament.status, tournament.cancel_reason) == ("cancelled", reason)
    statuses = set(tournament.matches.values_list("status", flat=True))
    assert statuses <= {"finished", "aborted"} and "aborted" in statuses
    aborted = tournament.matches.filter(status="aborted")
    assert set(aborted.values_list("error", flat=True)) == {f"tournament cancelled: {reason}"}
    assert (
        f"Tournament #{tournament.pk} cancelled: {aborted.count()} unfinished match(es) "
        f"aborted ({reason})." in rest
    )


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_serve_keeps_the_server_worker_and_beat_running_until_ctrl_c(
    transactional_db: Any, var_dir: Path
) -> None:
    from arena.celery_processes import REPO_ROOT, worker_environment

    port = _free_port()
    env = worker_environment()
    argv = [
        sys.executable,
        "manage.py",
        "demo",
        "--serve",
        "--port",
        str(port),
        "--engines",
        "random,greedy",
        "--time-control",
        "1+0.01",
        "--workers",
        "1",
        "--queue",
        f"bao-demo-serve-{os.getpid()}",
        "--timeout",
        "240",
    ]
    demo = subprocess.Popen(
        argv, cwd=REPO_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    assert demo.stdout is not None
    lines: list[str] = []
    pids: dict[str, int] = {}
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            line = demo.stdout.readline()
            if not line:
                break
            lines.append(line)
            for kind in ("Worker", "Beat"):
                found = re.search(rf"{kind} pid (\d+) ready", line)
                if found:
                    pids[kind] = int(found.group(1))
            if line.startswith("Serving on "):
                break
        text = "".join(lines)
        assert set(pids) == {"Worker", "Beat"}, text
        assert "Leaderboard bao-la-kete" in text
        assert Tournament.objects.get().status == "finished"
        page = ""
        for _ in range(100):  # the server binds just after the line above
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tournaments/") as r:
                    page = r.read().decode()
                break
            except OSError:
                time.sleep(0.1)
        assert '"status":"finished"' in page
        # The web process, the worker and beat agree: the ladder plays at the demo's time
        # control once the tournament is over, and its first match is made at once.
        ladder: dict[str, Any] = {}
        for _ in range(100):
            url = f"http://127.0.0.1:{port}/api/ladder/?variant=bao-la-kete"
            with urllib.request.urlopen(url) as r:
                ladder = json.loads(r.read())
            if ladder["matches"]["queued"] + ladder["matches"]["running"]:
                break
            time.sleep(0.1)
        assert (ladder["enabled"], ladder["time_control"]) == (True, "1+0.01"), ladder
        assert ladder["matches"]["queued"] + ladder["matches"]["running"] == 1, ladder
        assert process_tree(pids["Worker"]) != set() and process_tree(pids["Beat"]) != set()
        assert "beat: Starting..." in (var_dir / "demo-beat.log").read_text()
    finally:
        demo.send_signal(signal.SIGINT)
        rest, _ = demo.communicate(timeout=60)
    assert demo.returncode == 0, rest
    assert process_tree(pids["Worker"]) == set() and process_tree(pids["Beat"]) == set()
    assert process_tree(demo.pid) == set()


def test_demo_sh_plays_in_a_database_of_its_own_and_says_what_it_waits_for() -> None:
    """``./demo.sh`` leaves the user's database alone: its games and ratings are in
    ``$BAO_VAR_DIR/demo/``, made anew each run (its first game is /games/1/), on a queue of
    its own."""
    from arena.celery_processes import REPO_ROOT

    tmp_path = Path(tempfile.mkdtemp(prefix="bao-demo-sh-test-"))
    tmp_path.chmod(0o755)  # sandboxed engines (other uids) read the stored engines below it
    try:
        _demo_sh_twice(REPO_ROOT, tmp_path)
    finally:
        shutil.rmtree(tmp_path, ignore_errors=True)


def _demo_sh_twice(repo: Path, tmp_path: Path) -> None:
    user_db = tmp_path / "mine.sqlite3"
    user_db.write_bytes(b"the user's ratings")
    var = tmp_path / "var"
    env = {**os.environ, "BAO_VAR_DIR": str(var), "DATABASE_URL": f"sqlite:///{user_db}"}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    argv = ["./demo.sh", "--engines", "random,greedy", "--time-control", "1+0.01", "--workers", "1"]
    queues = []
    for _ in range(2):
        done = subprocess.run(argv, cwd=repo, env=env, capture_output=True, text=True,
                              timeout=300, check=False)  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        out = done.stdout
        assert user_db.read_bytes() == b"the user's ratings"
        demo_db = var / "demo" / "arena.sqlite3"
        assert f"it serves this database, {demo_db}" in out
        assert "/games/1/" in out and "/api/tournaments/1/" in out  # a fresh database each run
        found = re.search(r"Starting a worker on queue (demo-\S+) ", out)
        assert found is not None, out
        queue = found.group(1)
        queues.append(queue)
        assert re.search(rf"Waiting for 1 match\(es\): \d being played, \d queued on {queue} ", out)
        board = out[out.index("Leaderboard bao-la-kete") :].splitlines()
        # Rated in the demo's own world: both engines ranked on the games of its one match (who
        # wins a best-of-three between greedy and a seeded random mover is chance, not the point).
        rows = [line.split() for line in board[2:4]]
        assert rows[0][0] == "1" and rows[1][0] in {"1", "2"}, board
        assert {row[1] for row in rows} == {"greedy", "random"}, board
        with sqlite3.connect(demo_db) as db:
            assert db.execute("select count(*) from tournaments_tournament").fetchone() == (1,)
            assert db.execute("select count(*) from tournaments_rating").fetchone() == (2,)
    assert queues[0] != queues[1]  # nothing a run left in the broker waits ahead of the next
