"""Validation of engines whose output holds NUL and other control bytes: the version is decided
(active or rejected with a reason), never left ``validating`` by text the database refuses.
Runs on both databases; on PostgreSQL (CI) NUL would otherwise fail the write."""

from __future__ import annotations

import pytest
from django.db import DataError

from engines import validation
from engines.models import EngineVersion
from engines.tasks import validate_engine_version

from .test_validation import upload

R = "\ufffd"

pytestmark = pytest.mark.django_db

# Plays the first legal move; NUL in its id name, a bell in its author, NUL in info and stderr.
NUL_ENGINE = b"""#!/usr/bin/env python3
import sys
from engines.sdk import Engine


class NulText(Engine):
    name = "nul\\x00text"
    author = "bell\\x07author"

    def search(self, request):
        self.send("info string has\\x00nul")
        sys.stderr.buffer.write(b"before\\x00after\\n")
        sys.stderr.buffer.flush()
        return request.best


sys.exit(NulText().run())
"""

# A correct handshake with NUL in its name, then NUL on stderr and death when asked to move.
NUL_CRASH_ENGINE = b"""#!/usr/bin/env python3
import sys
for line in sys.stdin:
    word = line.split()[0] if line.split() else ""
    if word == "bep":
        sys.stdout.write("id name crash\\x00y\\nbepok\\n")
        sys.stdout.flush()
    elif word == "isready":
        print("readyok", flush=True)
    elif word == "go":
        sys.stderr.buffer.write(b"dying\\x00now\\n")
        sys.stderr.flush()
        sys.exit(3)
    elif word == "quit":
        break
"""


def test_an_engine_writing_nul_in_its_id_info_and_stderr_becomes_active(alice_client):
    version = upload(alice_client, NUL_ENGINE)
    assert validate_engine_version(version.pk) == "active"
    version.refresh_from_db()
    assert (version.status, version.reported_name, version.reported_author) == (
        "active",
        f"nul{R}text",
        f"bell{R}author",
    )


def test_an_engine_that_crashes_after_nul_on_stderr_is_rejected_with_its_stderr(alice_client):
    version = upload(alice_client, NUL_CRASH_ENGINE)
    assert validate_engine_version(version.pk) == "rejected"
    version.refresh_from_db()
    assert (version.rejection_code, version.reported_name) == ("crash", f"crash{R}y")
    assert version.rejection_reason.endswith("exit code 3")
    assert version.rejection_log == f"dying{R}now\n"  # the stderr tail, apart (owner only)


def test_a_verdict_holding_nul_is_stored_with_u_fffd(alice_client, monkeypatch):
    version = upload(alice_client)

    def verdict(package, *, config=None):  # type: ignore[no-untyped-def]
        # As if some engine text had reached the verdict without the referee's cleaning.
        return validation.Verdict(
            ok=False,
            code="invalid_output",
            reason="bad \x00 reply",
            variants=["bao-la-kete"],
            name="n\x00",
            author="\ud800",
        )

    monkeypatch.setattr(validation, "check_package", verdict)
    assert validate_engine_version(version.pk) == "rejected"
    version.refresh_from_db()
    assert (version.rejection_reason, version.reported_name, version.reported_author) == (
        f"bad {R} reply",
        f"n{R}",
        R,
    )


def test_a_verdict_the_database_refuses_rejects_the_version_with_the_reason(
    alice_client, monkeypatch
):
    version = upload(alice_client)
    real_record = validation._record
    calls: list[str] = []

    def refuse_once(version_id, status, verdict):  # type: ignore[no-untyped-def]
        calls.append(str(status))
        if len(calls) == 1:
            raise DataError("value too long for type character varying(128)")
        real_record(version_id, status, verdict)

    monkeypatch.setattr(validation, "_record", refuse_once)
    assert validate_engine_version(version.pk) == "rejected"
    assert calls == ["active", "rejected"]
    version = EngineVersion.objects.get(pk=version.pk)
    assert (version.status, version.rejection_code, version.rejection_reason) == (
        "rejected",
        "invalid_output",
        "invalid_output: the engine's output could not be stored "
        "(DataError: value too long for type character varying(128))",
    )
