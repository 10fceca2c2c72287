"""A rejected version's stderr tail (``rejection_log``) is for its owner and staff only; the
one-line ``rejection_reason`` (code and the referee's detail) stays public. Old reasons that
held the tail are split by the migration."""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from django.apps import apps

from engines.models import EngineVersion
from engines.tasks import validate_engine_version

from .test_validation import upload

pytestmark = pytest.mark.django_db

# A correct handshake, a secret on stderr, then death when asked for a move: crash.
LEAKY_CRASH_ENGINE = b"""#!/usr/bin/env python3
import sys
for line in sys.stdin:
    word = line.split()[0] if line.split() else ""
    if word == "bep":
        print("id name leaky", flush=True)
        print("bepok", flush=True)
    elif word == "isready":
        print("readyok", flush=True)
    elif word == "go":
        print("weights at /home/me/secret.bin", file=sys.stderr, flush=True)
        sys.exit(3)
    elif word == "quit":
        break
"""
SECRET_LOG = "weights at /home/me/secret.bin\n"


@pytest.fixture
def rejected(alice_client: Any) -> EngineVersion:
    version = upload(alice_client, LEAKY_CRASH_ENGINE)
    assert validate_engine_version(version.pk) == "rejected"
    version.refresh_from_db()
    return version


def test_validation_keeps_the_stderr_tail_out_of_the_public_reason(
    rejected: EngineVersion,
) -> None:
    assert rejected.rejection_code == "crash"
    assert rejected.rejection_reason.startswith("crash: ")
    assert "\n" not in rejected.rejection_reason and "secret" not in rejected.rejection_reason
    assert rejected.rejection_log == SECRET_LOG


@pytest.mark.parametrize("path", ["/api/engines/alpha/versions/1/", "/api/engines/alpha/"])
def test_the_owner_and_staff_see_the_log_others_see_null(
    rejected: EngineVersion,
    alice_client: Any,
    bob: Any,
    bob_client: Any,
    anon_client: Any,
    path: str,
) -> None:
    def seen(client: Any) -> tuple[str, str | None]:
        body = client.get(path).json()
        version = body if "number" in body else body["versions"][0]
        return version["rejection_reason"], version["rejection_log"]

    reason = rejected.rejection_reason
    assert seen(alice_client) == (reason, SECRET_LOG)
    assert seen(bob_client) == (reason, None)
    assert seen(anon_client) == (reason, None)
    bob.is_staff = True
    bob.save(update_fields=["is_staff"])
    assert seen(bob_client) == (reason, SECRET_LOG)


def test_the_migration_splits_old_reasons_at_the_stderr_marker(alice: Any) -> None:
    migration = importlib.import_module("engines.migrations.0002_version_rejection_log")
    from engines.models import Engine

    engine = Engine.objects.create(owner=alice, name="old")
    old = {
        1: "crash: exit code 3\n--- engine stderr (tail) ---\nline 1\nline 2\n",
        2: "handshake_failed: bepok without an 'id name' line",
    }
    for number, reason in old.items():
        EngineVersion.objects.create(
            engine=engine,
            number=number,
            status="rejected",
            rejection_code="crash",
            rejection_reason=reason,
            original_filename="e",
            sha256="0" * 64,
            size_bytes=1,
            storage_path=f"old/{number}",
        )
    migration.split_reasons(apps, None)
    got = list(engine.versions.order_by("number").values_list("rejection_reason", "rejection_log"))
    assert got == [
        ("crash: exit code 3", "line 1\nline 2\n"),
        ("handshake_failed: bepok without an 'id name' line", ""),
    ]
    migration.join_reasons(apps, None)
    assert list(engine.versions.order_by("number").values_list("rejection_reason", flat=True)) == [
        old[1],
        old[2],
    ]
