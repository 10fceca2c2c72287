"""engines.tasks.validate_engine_version: handshake + a short game against the bundled random
engine, through the real referee and sandbox (settings.BAO_SANDBOX_MODE)."""

from __future__ import annotations

import pytest

from arena.rules import VARIANTS
from engines.models import EngineVersion
from engines.tasks import validate_engine_version
from engines.validation import ValidationDeferred

from .conftest import (
    CRASH_ON_GO_ENGINE,
    FIRST_MOVE_ENGINE,
    MANIFEST,
    NAMELESS_ENGINE,
    script_upload,
    zip_upload,
)

pytestmark = pytest.mark.django_db


def upload(
    client, content: bytes = FIRST_MOVE_ENGINE, name: str = "alpha", file=None
) -> EngineVersion:  # type: ignore[no-untyped-def]
    response = client.post(
        "/api/engines/",
        {"name": name, "file": file or script_upload(content)},
        format="multipart",
    )
    assert response.status_code == 201, response.json()
    return EngineVersion.objects.get(engine__name=name, number=response.json()["number"])


def test_a_working_engine_becomes_active_with_its_handshake_facts(alice_client):
    version = upload(alice_client)
    assert validate_engine_version(version.pk) == "active"
    version.refresh_from_db()
    assert version.status == "active"
    assert version.rejection_code == ""
    assert version.variants == list(VARIANTS)  # the SDK announces all three
    assert version.reported_name == "first-move"
    assert version.reported_author == "tests"
    assert version.validated_at is not None
    body = alice_client.get("/api/engines/alpha/versions/1/").json()
    assert (body["status"], body["variants"]) == ("active", list(VARIANTS))
    assert version.engine.latest_active_version() == version


def test_a_zipped_engine_run_through_its_manifest_becomes_active(alice_client):
    version = upload(
        alice_client,
        file=zip_upload({"bao-engine.json": MANIFEST, "main.py": FIRST_MOVE_ENGINE}),
    )
    assert validate_engine_version(version.pk) == "active"


def test_an_engine_that_fails_the_handshake_is_rejected_with_handshake_failed(
    alice_client,
):
    version = upload(alice_client, NAMELESS_ENGINE)
    assert validate_engine_version(version.pk) == "rejected"
    version.refresh_from_db()
    assert version.rejection_code == "handshake_failed"
    # A bepok before any 'id name' is skipped: the handshake waits to its deadline (issue 8).
    assert version.rejection_reason == (
        "handshake_failed: timed out waiting for bepok: no 'id name' line yet; "
        "last line received: 'bepok'"
    )
    assert version.engine.latest_active_version() is None
    body = alice_client.get("/api/engines/alpha/").json()
    assert body["versions"][0]["status"] == "rejected"
    assert body["versions"][0]["rejection_code"] == "handshake_failed"
    assert body["active_version"] is None


def test_an_engine_that_dies_when_asked_to_move_is_rejected_with_crash(alice_client):
    version = upload(alice_client, CRASH_ON_GO_ENGINE)
    assert validate_engine_version(version.pk) == "rejected"
    version.refresh_from_db()
    assert version.rejection_code == "crash"
    assert "exit code 3" in version.rejection_reason
    assert version.reported_name == "crashy"


def test_an_engine_announcing_only_unknown_variants_is_rejected(alice_client):
    script = NAMELESS_ENGINE.replace(
        b'print("bepok", flush=True)',
        b'print("id name odd"); print("variant oware"); print("bepok", flush=True)',
    )
    version = upload(alice_client, script)
    assert validate_engine_version(version.pk) == "rejected"
    version.refresh_from_db()
    assert version.rejection_code == "handshake_failed"
    assert "oware" in version.rejection_reason


def test_validation_is_idempotent_for_a_decided_version(alice_client):
    version = upload(alice_client, NAMELESS_ENGINE)
    assert validate_engine_version(version.pk) == "rejected"
    first = EngineVersion.objects.get(pk=version.pk)
    assert validate_engine_version(version.pk) == "rejected"
    again = EngineVersion.objects.get(pk=version.pk)
    assert again.validated_at == first.validated_at
    assert validate_engine_version(10**9) == "missing"


def test_a_version_left_validating_by_a_dead_worker_is_validated_again(alice_client):
    version = upload(alice_client)
    EngineVersion.objects.filter(pk=version.pk).update(status="validating")
    assert validate_engine_version(version.pk) == "active"


def test_a_sandbox_that_cannot_start_defers_instead_of_rejecting(alice_client, settings):
    version = upload(alice_client)
    settings.BAO_SANDBOX_MODE = "bwrap"
    settings.BAO_SANDBOX_REQUIRE_FULL = True

    def refuse(*args, **kwargs):  # type: ignore[no-untyped-def]
        from engines.sandbox import SandboxError

        raise SandboxError("no namespaces here")

    from arena.referee import RefereeConfig
    from engines.validation import validate_version_now

    with pytest.raises(ValidationDeferred, match="no namespaces here"):
        validate_version_now(version.pk, config=RefereeConfig(starter=refuse))
    version.refresh_from_db()
    assert version.status == "pending"
    assert version.rejection_code == ""


def test_a_version_whose_package_vanished_from_the_storage_is_rejected_with_not_found(
    alice_client, engines_dir
):
    from engines.models import PackageBlob

    version = upload(alice_client)
    PackageBlob.objects.filter(name=version.storage_path).delete()
    assert validate_engine_version(version.pk) == "rejected"
    version.refresh_from_db()
    assert version.rejection_code == "not_found"


def test_an_upload_enqueues_its_validation_after_commit(
    alice_client, django_capture_on_commit_callbacks
):
    from arena.celery import app

    eager, app.conf.task_always_eager = app.conf.task_always_eager, True
    try:
        with django_capture_on_commit_callbacks(execute=True):
            response = alice_client.post(
                "/api/engines/",
                {"name": "alpha", "file": script_upload()},
                format="multipart",
            )
    finally:
        app.conf.task_always_eager = eager
    assert response.json()["status"] == "pending"  # the response is written before validation runs
    assert EngineVersion.objects.get().status == "active"


# Plays Bao la Kiswahili and Bao Kingulu properly and dies in Bao la Kete, the variant the old
# validation never tried: the rating-farming engine of issue 9.
DIES_IN_KETE_ENGINE = b"""#!/usr/bin/env python3
import os
import sys
from engines.sdk import run


def choose(position, legal_moves, clock, variant):
    if variant.id == "bao-la-kete":
        os._exit(3)
    return legal_moves[0]


if __name__ == "__main__":
    sys.exit(run(choose, name="kete-dodger", author="tests"))
"""


def test_every_announced_variant_is_played_and_the_engine_is_active_only_in_those_it_passed(
    alice_client, bob_client, bob
):
    version = upload(alice_client, DIES_IN_KETE_ENGINE)
    assert validate_engine_version(version.pk) == "active"
    version.refresh_from_db()
    assert version.variants == ["bao-la-kiswahili", "bao-kingulu"]
    assert list(version.failed_variants) == ["bao-la-kete"]
    assert version.failed_variants["bao-la-kete"].startswith("crash: ")
    assert version.rejection_code == ""
    body = alice_client.get("/api/engines/alpha/versions/1/").json()
    assert body["failed_variants"] == version.failed_variants
    assert body["variants"] == ["bao-la-kiswahili", "bao-kingulu"]
    # A rated challenge in the failed variant is refused before any game is played.
    upload(bob_client, name="bobs")
    assert validate_engine_version(EngineVersion.objects.get(engine__name="bobs").pk) == "active"
    response = bob_client.post(
        "/api/matches/",
        {"engine": "bobs", "opponent": "alpha", "variant": "bao-la-kete", "time_control": "5+0"},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "variant_not_supported"


def test_an_engine_failing_every_variant_is_rejected_with_the_first_failure(alice_client):
    version = upload(alice_client, CRASH_ON_GO_ENGINE)
    assert validate_engine_version(version.pk) == "rejected"
    version.refresh_from_db()
    assert version.variants == []
    assert sorted(version.failed_variants) == sorted(VARIANTS)  # jsonb keeps no key order
    assert version.rejection_reason == version.failed_variants[VARIANTS[0]]
