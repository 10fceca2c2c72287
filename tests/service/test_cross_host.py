"""Workers on any host: a web process and a worker that share no directory (different
``BAO_VAR_DIR`` s), only the database and the broker. An engine uploaded through the web
process is validated and plays a match on the worker, which fetches it from the package storage
(the database, the default) into its own cache. Real processes: gunicorn, a Celery worker, the
sandbox of the settings."""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from arena.celery_processes import REPO_ROOT, worker_environment

pytestmark = [pytest.mark.slow, pytest.mark.e2e, pytest.mark.timeout(300)]

ENGINE = (REPO_ROOT / "engines" / "bundled" / "greedy").read_bytes()


def _wait(predicate: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.3)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def _host_dir(prefix: str) -> Path:
    # World-searchable: the sandboxed engine runs from the worker's cache as another uid.
    path = Path(tempfile.mkdtemp(prefix=prefix))
    path.chmod(0o755)
    return path


@pytest.fixture
def web_host(live_worker, tmp_path: Path) -> Iterator[tuple[str, Path, Any]]:
    """A worker on "host B" (its own ``BAO_VAR_DIR``), then gunicorn on "host A" (another one)
    sending its tasks to that worker's queue. Yields (base URL, A's var dir, the worker)."""
    worker_var = _host_dir("bao-host-b-")
    worker = live_worker(BAO_VAR_DIR=str(worker_var))
    web_var = _host_dir("bao-host-a-")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = worker_environment(
        BAO_VAR_DIR=str(web_var), CELERY_TASK_DEFAULT_QUEUE=worker.queue,
        DJANGO_ALLOWED_HOSTS="127.0.0.1",
    )  # fmt: skip
    log = open(tmp_path / "web.log", "wb")  # noqa: SIM115  (closed below)
    web = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "arena.wsgi", "--bind", f"127.0.0.1:{port}",
         "--workers", "1"],
        cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        _wait(lambda: _up(base) or web.poll() is not None, 60, "the web process")
        assert web.poll() is None, (tmp_path / "web.log").read_text()
        yield base, web_var, (worker, worker_var)
    finally:
        web.terminate()
        web.wait(15)
        log.close()
        shutil.rmtree(web_var, ignore_errors=True)
        shutil.rmtree(worker_var, ignore_errors=True)


def _up(base: str) -> bool:
    try:
        return requests.get(f"{base}/api/engines/", timeout=2).status_code == 200
    except requests.RequestException:
        return False


def test_an_engine_uploaded_to_the_web_host_plays_a_match_on_another_host(web_host) -> None:
    from arena.matches.models import Game, Match
    from arena.matches.services import match_create
    from engines.models import EngineVersion

    base, web_var, (worker, worker_var) = web_host
    token = requests.post(
        f"{base}/api/auth/register/",
        json={"username": "carol", "password": "a long password"},
        timeout=10,
    ).json()["token"]
    auth = {"Authorization": f"Token {token}"}
    versions = []
    for name, body in (("carol-greedy", ENGINE), ("carol-greedy2", ENGINE + b"\n# twin\n")):
        response = requests.post(
            f"{base}/api/engines/", data={"name": name},
            files={"file": ("greedy.py", body)}, headers=auth, timeout=30,
        )  # fmt: skip
        assert response.status_code == 201, response.text
        versions.append(
            EngineVersion.objects.get(engine__name=name, number=response.json()["number"])
        )
    # Validated by the worker, which has never seen the web host's files.
    for version in versions:
        status = _wait(
            lambda v=version: EngineVersion.objects.get(pk=v.pk).status != "pending"
            and EngineVersion.objects.get(pk=v.pk).status != "validating"
            and EngineVersion.objects.get(pk=v.pk).status,
            120, f"the validation of {version}",
        )  # fmt: skip
        assert status == "active", worker.log_text()[-4000:]

    a, b = (EngineVersion.objects.get(pk=v.pk) for v in versions)
    match = match_create(engine_a=a, engine_b=b, variant="bao-la-kete", time_control="2+0.05")
    done = _wait(
        lambda: Match.objects.filter(pk=match.pk, status__in=("finished", "aborted")).first(),
        180, "the match",
    )  # fmt: skip
    assert done.status == "finished", f"{done.error}\n{worker.log_text()[-4000:]}"
    assert Game.objects.filter(match=done).count() in (2, 3)

    # Each host kept to its own directory: the packages are in the worker's cache only.
    digest = hashlib.sha256(ENGINE).hexdigest()
    cached = worker_var / "engine-cache" / digest / "greedy.py" / "root" / "greedy.py"
    assert cached.read_bytes() == ENGINE
    assert not (web_var / "engine-cache").exists()
    assert [p for p in (web_var / "engines").rglob("*") if p.is_file()] == []
    assert not (worker_var / "engines").exists() or not any(
        p.is_file() for p in (worker_var / "engines").rglob("*")
    )
    assert os.path.isdir(worker_var / "engine-cache")
