"""A database that hangs (issue 30): packets dropped, never refused. A real gunicorn reaches
PostgreSQL through a relay in this process that stops forwarding but closes nothing; the API
answers ``503 service_unavailable``, the site a plain 503 page and ``/healthz`` says so, each
within 5 s, and all recover once the relay forwards again.

PostgreSQL is CI's server (``DATABASE_URL``) or a private cluster made with ``initdb``
(``pgcluster``); the test skips with the reason when neither is available.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .faults import TcpProxy, free_port, via_proxy
from .pgcluster import postgres_server

pytestmark = [pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]


def _get(url: str, accept: str = "application/json") -> tuple[int, str, float]:
    began = time.monotonic()
    request = urllib.request.Request(url, headers={"Accept": accept})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, body = response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        status, body = exc.code, exc.read().decode()
    return status, body, time.monotonic() - began


@pytest.fixture
def relayed_web(tmp_path: Path) -> Iterator[tuple[str, TcpProxy]]:
    """A gunicorn (one sync worker: its connection is reused between requests) whose
    database is reached through a relay; yields its base URL and the relay."""
    with postgres_server() as (target, url):
        relay = TcpProxy(target)
        port = free_port()
        env = {
            **os.environ,
            "DATABASE_URL": via_proxy(url, relay),
            "BAO_VAR_DIR": str(tmp_path / "var"),
            "DJANGO_DEBUG": "0",
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
            "DJANGO_SECRET_KEY": "a-test-key-" + "x" * 40,
        }
        log = open(tmp_path / "web.log", "wb")  # noqa: SIM115  (the server's log)
        web = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "arena.wsgi", "-b", f"127.0.0.1:{port}",
             "-w", "1", "--timeout", "60"],
            cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=log,
        )  # fmt: skip
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    if _get(base + "/healthz")[0] == 200:
                        break
                except OSError:
                    pass
                if time.monotonic() > deadline or web.poll() is not None:
                    raise RuntimeError((tmp_path / "web.log").read_text()[-3000:])
                time.sleep(0.3)
            yield base, relay
        finally:
            web.terminate()
            try:
                web.wait(timeout=20)
            except subprocess.TimeoutExpired:
                web.kill()
            relay.close()
            log.close()


def test_a_hung_database_is_answered_with_503_within_5_s_and_recovers(
    relayed_web: tuple[str, TcpProxy],
) -> None:
    base, relay = relayed_web
    assert _get(base + "/healthz")[0] == 200  # a warm, reused connection
    relay.stall()
    results: dict[str, Any] = {}
    for name, path, accept in (
        ("api", "/api/engines/", "application/json"),
        ("site", "/", "text/html"),
        ("healthz", "/healthz", "application/json"),
    ):
        results[name] = _get(base + path, accept)
    for name, (_, _, seconds) in results.items():
        print(f"\n[figure] hung database, {name}: {seconds:.1f} s", flush=True)
    api_status, api_body, _ = results["api"]
    assert api_status == 503, results
    assert json.loads(api_body)["error"]["code"] == "service_unavailable"
    assert results["site"][0] == 503 and "database is unavailable" in results["site"][1]
    health = json.loads(results["healthz"][1])
    assert results["healthz"][0] == 503 and health["database"]["ok"] is False
    assert all(seconds < 5 for _, _, seconds in results.values()), results
    relay.flow()
    deadline = time.monotonic() + 15
    while _get(base + "/healthz")[0] != 200:
        assert time.monotonic() < deadline, "the web did not recover after the relay"
        time.sleep(0.5)
