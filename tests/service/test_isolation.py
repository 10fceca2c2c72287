"""What a real engine in the fallback sandbox can find of the service: nothing.

A fresh service is set up the way an operator does it (``manage.py migrate`` on an SQLite file
named by ``DATABASE_URL``, an account registered and a token minted through the API, another
user's engine stored), outside ``/tmp`` (which the fallback covers anyway) and in a directory
any uid may enter, as a careless host might have it. Then an engine started in the fallback
sandbox looks for the database file, the stored engine, another running engine's files, the
PostgreSQL socket and its own ``/proc/1/cmdline``.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import pytest

from engines.package import EnginePackage
from engines.sandbox import SandboxConfig, probe, start_engine

REPO = Path(__file__).resolve().parents[2]
SNOOP = REPO / "tests" / "engines" / "hostile" / "snoop.py"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not probe().root, reason="the sandbox needs root to lease engine uids"),
]

SETUP = """
import json
from rest_framework.test import APIClient
from engines import storage

client = APIClient()
reg = client.post("/api/auth/register/", {"username": "mallory", "password": "mancala rocks 9"})
login = client.post("/api/auth/token/", {"username": "mallory", "password": "mancala rocks 9"})
incoming = storage.receive(iter([b"#!/bin/sh\\necho bobs-opening-book\\n"]), "book", max_bytes=1000)
storage.store(incoming)  # into the package storage (the database)
print(json.dumps({
    "tokens": [reg.json()["token"], login.json()["token"]],
    "stored": str(incoming.path),  # the received upload, on disk under var/engines
}))
"""


def manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(REPO / "manage.py"), *args],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def mode_of(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_a_fallback_engine_finds_neither_the_database_nor_tokens_nor_other_engines() -> None:
    base = REPO / f".test-isolation-{uuid.uuid4().hex[:12]}"
    base.mkdir(mode=0o755)
    os.chmod(base, 0o755)
    db = base / "arena.sqlite3"
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DATABASE_", "BAO_", "CELERY_"))
    }
    env.update(
        DJANGO_SETTINGS_MODULE="arena.settings",
        DATABASE_URL=f"sqlite:///{db}",
        BAO_VAR_DIR=str(base / "var"),
        CELERY_BROKER_URL="memory://",
    )
    others = []
    try:
        manage(env, "migrate", "--no-input")
        assert mode_of(db) == 0o600
        made = json.loads(manage(env, "shell", "-c", SETUP).strip().splitlines()[-1])
        stored = Path(made["stored"])
        assert mode_of(base / "var") == 0o700 and mode_of(base / "var" / "engines") == 0o700
        companions = [Path(f"{db}{suffix}") for suffix in ("-wal", "-shm")]
        assert [mode_of(p) for p in companions if p.exists()] in ([], [0o600, 0o600])

        # The raw file holds no key the API handed out (knox keeps a SHA-512 digest).
        raw = b"".join(p.read_bytes() for p in (db, *companions) if p.exists())
        from knox.crypto import hash_token

        for key in made["tokens"]:
            assert key.encode() not in raw
            assert hash_token(key).encode() in raw  # the right file: the digest is there

        # Another engine, running, with files of its own.
        book = base / "other"
        book.mkdir(mode=0o755)
        (book / "book.txt").write_text("the other engine's opening book\n")
        other = start_engine(
            EnginePackage("other", book, ("python3", "-c", "import time; time.sleep(60)")),
            SandboxConfig(mode="fallback"),
        )
        others.append(other)
        spy = base / "spy"
        spy.mkdir(mode=0o755)
        shutil.copyfile(SNOOP, spy / "snoop.py")
        targets = [
            str(db),
            str(stored),
            str(base / "var"),
            str(other.root / "book.txt"),
            "/run/postgresql/.s.PGSQL.5432",
        ]
        engine = start_engine(
            EnginePackage("spy", spy, ("python3", "snoop.py", "marker", *targets)),
            SandboxConfig(mode="fallback"),
        )
        others.append(engine)
        line = b""
        while not line.endswith(b"\n"):
            chunk = os.read(engine.stdout_fd, 65536)
            assert chunk, engine.stderr_tail()
            line += chunk
        found = json.loads(line)
        # A checkout under the temporary directory is hidden outright (the fallback gives the
        # engine a private /tmp); elsewhere the path is there but closed to the engine's uid.
        hidden = "ENOENT" if REPO.is_relative_to(tempfile.gettempdir()) else "EACCES"
        assert found[str(db)] == {"error": hidden}
        assert found[str(stored)] == {"error": hidden}
        assert found[str(base / "var")] == {"error": hidden}
        assert found[str(other.root / "book.txt")]["error"] in ("ENOENT", "EACCES")
        assert found["/run/postgresql/.s.PGSQL.5432"] == {"error": "ENOENT"}
        assert found["/proc/1/cmdline"] == {
            "ok": "python3\0snoop.py\0marker\0" + "\0".join(targets) + "\0"
        }
        assert found["pids"] == [1]
    finally:
        for running in others:
            running.kill()
        shutil.rmtree(base, ignore_errors=True)
