"""Fixtures of the engine registry tests: a private engines directory and small test engines."""

from __future__ import annotations

import io
import os
import shutil
import tarfile
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

# A protocol-correct engine: the first legal move, through the SDK the sandbox provides.
FIRST_MOVE_ENGINE = b"""#!/usr/bin/env python3
import sys
from engines.sdk import run


def choose(position, legal_moves, clock, variant):
    return legal_moves[0]


if __name__ == "__main__":
    sys.exit(run(choose, name="first-move", author="tests"))
"""

# Answers the handshake with bepok but never says 'id name': handshake_failed.
NAMELESS_ENGINE = b"""#!/usr/bin/env python3
import sys
for line in sys.stdin:
    if line.strip() == "bep":
        print("bepok", flush=True)
    elif line.strip() == "quit":
        break
"""

# A correct handshake, then it dies when asked for a move: crash.
CRASH_ON_GO_ENGINE = b"""#!/usr/bin/env python3
import sys
for line in sys.stdin:
    word = line.split()[0] if line.split() else ""
    if word == "bep":
        print("id name crashy", flush=True)
        print("id author tests", flush=True)
        print("bepok", flush=True)
    elif word == "isready":
        print("readyok", flush=True)
    elif word == "go":
        sys.exit(3)
    elif word == "quit":
        break
"""


@pytest.fixture(autouse=True)
def engines_dir(settings) -> Iterator[Path]:  # type: ignore[no-untyped-def]
    """A fresh ``VAR_DIR`` per test, its ``BAO_ENGINES_DIR`` (where uploads are checked)
    returned; the package cache is its ``engine-cache`` (the sandbox runs each engine from a
    private copy, so the modes do not matter to the engine)."""
    var = Path(tempfile.mkdtemp(prefix="bao-test-engines-"))
    os.chmod(var, 0o755)
    settings.VAR_DIR = var
    settings.BAO_ENGINES_DIR = var / "engines"
    yield var / "engines"
    shutil.rmtree(var, ignore_errors=True)


def stored_files(root: Path) -> list[str]:
    """Every file under ``root`` (relative paths, sorted): to prove a refusal stored nothing."""
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def script_upload(
    content: bytes = FIRST_MOVE_ENGINE, name: str = "engine.py"
) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content, content_type="text/x-python")


def zip_upload(
    members: dict[str, bytes],
    name: str = "engine.zip",
    modes: dict[str, int] | None = None,
) -> SimpleUploadedFile:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for member, data in members.items():
            info = zipfile.ZipInfo(member)
            info.external_attr = ((modes or {}).get(member, 0o644) | 0o100000) << 16
            archive.writestr(info, data)
    return SimpleUploadedFile(name, buffer.getvalue(), content_type="application/zip")


def tar_upload(members: dict[str, bytes], name: str = "engine.tar.gz") -> SimpleUploadedFile:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for member, data in members.items():
            info = tarfile.TarInfo(member)
            info.size = len(data)
            info.mode = 0o755 if member.endswith(".py") else 0o644
            archive.addfile(info, io.BytesIO(data))
    return SimpleUploadedFile(name, buffer.getvalue(), content_type="application/gzip")


MANIFEST = b'{"name": "zipped", "command": ["python3", "main.py"], "author": "tests"}'
