"""What workers offer engines: the stored probes, ``GET /api/runtimes/``, the upload page, and
``runtime_missing`` at upload and at validation (docs/runtimes.md)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from engines import services
from engines.models import EngineVersion, WorkerRuntimes
from engines.sandbox.runtimes import Runtime
from engines.selectors import RUNTIMES_STALE_S
from engines.tasks import validate_engine_version

from .conftest import FIRST_MOVE_ENGINE, script_upload, zip_upload

pytestmark = pytest.mark.django_db

PYTHON = Runtime("python", "3.11.2", "python3")
NODE = Runtime("node", "18.19.0", "node")
JAVA = Runtime("java", "17.0.15", "java")
LIBC = Runtime("libc", "2.36", "")


def as_json(*runtimes: Runtime) -> list[dict[str, str]]:
    return [{"name": r.name, "version": r.version, "command": r.command} for r in runtimes]


def upload(client, file):  # type: ignore[no-untyped-def]
    return client.post("/api/engines/", {"name": "alpha", "file": file}, format="multipart")


def manifest(command: str) -> bytes:
    return b'{"name": "alpha", "command": ' + command.encode() + b"}"


# --------------------------------------------------------------------------- the endpoint


def test_the_endpoint_is_empty_while_no_worker_has_reported(anon_client):
    response = anon_client.get("/api/runtimes/")
    assert response.status_code == 200
    assert response.json() == {"runtimes": [], "workers": []}


def test_the_endpoint_lists_each_live_worker_and_the_union_in_table_order(anon_client):
    services.worker_runtimes_record("w2@host", [LIBC, PYTHON])
    services.worker_runtimes_record("w1@host", [PYTHON, JAVA, NODE])
    body = anon_client.get("/api/runtimes/").json()
    assert body["runtimes"] == as_json(PYTHON, NODE, JAVA, LIBC)
    assert body["workers"] == [
        {"name": "w1@host", "runtimes": as_json(PYTHON, JAVA, NODE)},
        {"name": "w2@host", "runtimes": as_json(LIBC, PYTHON)},
    ]


def test_a_worker_not_seen_for_a_while_offers_nothing(anon_client):
    services.worker_runtimes_record("gone@host", [NODE])
    services.worker_runtimes_record("here@host", [PYTHON])
    stale = timezone.now() - timedelta(seconds=RUNTIMES_STALE_S + 1)
    WorkerRuntimes.objects.filter(worker="gone@host").update(last_seen=stale)
    body = anon_client.get("/api/runtimes/").json()
    assert [w["name"] for w in body["workers"]] == ["here@host"]
    assert body["runtimes"] == as_json(PYTHON)
    assert services.worker_runtimes_seen("gone@host")
    assert len(anon_client.get("/api/runtimes/").json()["workers"]) == 2


def test_a_new_probe_replaces_the_old_one_and_a_shutdown_forgets_it():
    services.worker_runtimes_record("w@host", [PYTHON, NODE])
    services.worker_runtimes_record("w@host", [PYTHON])
    assert WorkerRuntimes.objects.get().runtimes == as_json(PYTHON)
    services.worker_runtimes_forget("w@host")
    assert not WorkerRuntimes.objects.exists()
    assert not services.worker_runtimes_seen("w@host")


def test_the_upload_page_shows_the_offered_runtimes(alice, client):
    client.force_login(alice)
    services.worker_runtimes_record("w@host", [PYTHON, JAVA, LIBC])
    page = client.get("/engines/upload/").content.decode()
    assert "<td>java</td><td>17.0.15</td><td><code>java</code></td>" in page
    assert "<td>libc</td><td>2.36</td><td>(a library: for binaries)</td>" in page
    services.worker_runtimes_forget("w@host")
    assert "No worker is running right now" in client.get("/engines/upload/").content.decode()


# --------------------------------------------------------------------------- at upload


def test_an_upload_needing_a_runtime_no_live_worker_offers_is_refused(alice_client):
    services.worker_runtimes_record("w@host", [PYTHON, LIBC])
    response = upload(
        alice_client, zip_upload({"bao-engine.json": manifest('["java", "-jar", "e.jar"]')})
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "runtime_missing"
    assert error["details"] == {"runtime": "java", "program": "java", "offered": ["libc", "python"]}
    assert "java" in error["message"]
    assert not EngineVersion.objects.exists()


def test_a_script_is_refused_by_its_interpreter_through_env(alice_client):
    services.worker_runtimes_record("w@host", [PYTHON])
    response = upload(alice_client, script_upload(b"#!/usr/bin/env node\n", name="e.js"))
    assert response.json()["error"]["details"]["runtime"] == "node"


def test_a_worker_whose_sandbox_found_nothing_does_not_refuse_uploads(alice_client):
    services.worker_runtimes_record("broken@host", [])
    assert upload(alice_client, script_upload(b"#!/usr/bin/env node\n")).status_code == 201


def test_an_upload_is_taken_when_a_worker_offers_its_runtime_or_none_has_reported(
    alice_client,
):
    assert upload(alice_client, script_upload(b"#!/usr/bin/env node\n")).status_code == 201
    services.worker_runtimes_record("w@host", [NODE])
    second = script_upload(b"#!/usr/bin/env node\n// v2\n")
    assert upload(alice_client, second).status_code == 201


# --------------------------------------------------------------------------- at validation


def validate(client, file):  # type: ignore[no-untyped-def]
    response = upload(client, file)
    assert response.status_code == 201, response.json()
    version = EngineVersion.objects.get(engine__name="alpha", number=response.json()["number"])
    status = validate_engine_version(version.pk)
    version.refresh_from_db()
    return status, version


def test_validation_rejects_a_command_whose_program_the_sandbox_lacks(alice_client):
    # No worker has reported, so the upload is taken; the worker then finds no ruby.
    status, version = validate(
        alice_client, zip_upload({"bao-engine.json": manifest('["ruby-bao-none", "x.rb"]')})
    )
    assert (status, version.rejection_code) == ("rejected", "runtime_missing")
    assert version.rejection_reason == (
        "runtime_missing: the engine's command needs ruby-bao-none, which no worker offers "
        "(offered: none; see docs/runtimes.md)"
    )


def test_validation_rejects_a_missing_interpreter_path(alice_client):
    script = b"#!/usr/local/bin/python3.99\nprint('never runs')\n"
    status, version = validate(alice_client, script_upload(script))
    assert (status, version.rejection_code) == ("rejected", "runtime_missing")
    assert "/usr/local/bin/python3.99" in version.rejection_reason


def test_validation_passes_a_python_engine_the_sandbox_runs(alice_client):
    status, version = validate(alice_client, script_upload(FIRST_MOVE_ENGINE))
    assert (status, version.rejection_code) == ("active", "")


# --------------------------------------------------------------------------- the worker's probe


def test_a_starting_worker_probes_its_sandbox_once_and_then_keeps_the_record_current(
    monkeypatch,
):
    from arena import worker_hooks
    from engines.sandbox import runtimes

    calls: list[object] = []

    def fake_probe(config):  # type: ignore[no-untyped-def]
        calls.append(config)
        return [PYTHON, LIBC]

    monkeypatch.setattr(runtimes, "probe_runtimes", fake_probe)
    assert worker_hooks._runtimes("w@host", probed=False)
    assert worker_hooks._runtimes("w@host", probed=True)
    assert len(calls) == 1
    assert WorkerRuntimes.objects.get(worker="w@host").runtimes == as_json(PYTHON, LIBC)
    try:
        worker_hooks.hand_back_matches(sender="w@host")
    finally:
        worker_hooks._presence_stop.clear()  # the event is the process's: leave it as found
    assert not WorkerRuntimes.objects.exists()


def test_a_worker_whose_sandbox_cannot_start_engines_records_that_it_offers_nothing(
    monkeypatch,
):
    from arena import worker_hooks
    from engines.sandbox import SandboxError, runtimes

    def broken(config):  # type: ignore[no-untyped-def]
        raise SandboxError("the engine sandbox needs root")

    monkeypatch.setattr(runtimes, "probe_runtimes", broken)
    assert worker_hooks._runtimes("w@host", probed=False)
    assert WorkerRuntimes.objects.get(worker="w@host").runtimes == []


def test_validation_waits_for_another_worker_when_only_it_has_the_runtime(
    alice_client, monkeypatch
):
    from engines import validation
    from engines.sandbox import runtimes
    from engines.validation import ValidationDeferred

    response = upload(alice_client, script_upload(b"#!/usr/bin/env node\n"))
    version = EngineVersion.objects.get(engine__name="alpha", number=response.json()["number"])
    monkeypatch.setattr(runtimes, "offered_here", lambda name, config: None)
    services.worker_runtimes_record("other@host", [NODE])
    with pytest.raises(ValidationDeferred, match="node is not on this worker"):
        validation.validate_version_now(version.pk)
    version.refresh_from_db()
    assert version.status == "pending"

    services.worker_runtimes_forget("other@host")
    assert validation.validate_version_now(version.pk) == "rejected"
    version.refresh_from_db()
    assert version.rejection_code == "runtime_missing"
    assert "needs node, which no worker offers" in version.rejection_reason


def test_the_runtimes_page_is_served_and_linked_from_the_upload_page(alice, client):
    client.force_login(alice)
    assert 'href="/docs/runtimes/"' in client.get("/engines/upload/").content.decode()
    page = client.get("/docs/runtimes/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "The promised table" in text
    assert "openjdk-17-jre-headless" in text
