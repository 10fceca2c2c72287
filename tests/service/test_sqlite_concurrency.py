"""The embedded SQLite default holds up when several processes write at once (web, workers).

Runs in subprocesses on a fresh SQLite file whatever database the suite itself uses, because
the failure is a property of the SQLite settings in ``arena/settings.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Read first, then write, in one transaction: what services such as engine_version_create and
# match_record_result do. Under SQLite's default deferred transactions the upgrade to a write
# lock fails at once with "database is locked" while another process writes.
WRITER = textwrap.dedent(
    """
    import sys, time
    import django
    django.setup()
    from django.db import connection, transaction
    tag = sys.argv[1]
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE IF NOT EXISTS probe (name TEXT PRIMARY KEY)")
    for i in range(40):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SELECT COUNT(*) FROM probe")
            time.sleep(0.002)
            cursor.execute("INSERT INTO probe VALUES (%s)", [f"{tag}-{i}"])
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM probe WHERE name LIKE %s", [tag + "-%"])
        print(cursor.fetchone()[0])
    """
)


@pytest.mark.slow
def test_three_processes_writing_at_once_all_commit(tmp_path: Path) -> None:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "CELERY_BROKER_URL")
    }
    env.update(
        DJANGO_SETTINGS_MODULE="arena.settings", BAO_VAR_DIR=str(tmp_path), PYTHONPATH=str(ROOT)
    )
    # The first process creates the file and the table; then three write concurrently.
    subprocess.run([sys.executable, "-c", WRITER, "setup"], env=env, check=True, timeout=60)
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, tag],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for tag in ("a", "b", "c")
    ]
    results = [writer.communicate(timeout=120) for writer in writers]
    pairs = zip(writers, results, strict=True)
    outcomes = [(w.returncode, out.strip()) for w, (out, _err) in pairs]
    assert outcomes == [(0, "40"), (0, "40"), (0, "40")], [err[-500:] for _out, err in results]
