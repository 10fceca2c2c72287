"""A real worker probes its sandbox when it starts: ``GET /api/runtimes/`` then lists it with
what an engine gets on this host, and its warm shutdown removes it. Real broker, real worker
process, real sandbox (``BAO_SANDBOX_MODE`` of the settings)."""

from __future__ import annotations

import subprocess
import time

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.e2e]


def test_a_started_worker_reports_its_runtimes_and_a_stopped_one_none(
    live_worker, anon_client
) -> None:
    worker = live_worker()
    deadline = time.monotonic() + 60
    body = anon_client.get("/api/runtimes/").json()
    while not body["workers"] and time.monotonic() < deadline:
        time.sleep(0.3)
        body = anon_client.get("/api/runtimes/").json()
    assert len(body["workers"]) == 1, body
    names = [r["name"] for r in body["runtimes"]]
    assert names[0] == "python" and "libc" in names
    python = subprocess.run(
        ["/usr/bin/python3", "-c", "import sys; print(sys.version.split()[0])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert body["runtimes"][0] == {"name": "python", "version": python, "command": "python3"}
    assert body["workers"][0]["runtimes"] == body["runtimes"]

    worker.stop()
    assert anon_client.get("/api/runtimes/").json() == {"runtimes": [], "workers": []}
