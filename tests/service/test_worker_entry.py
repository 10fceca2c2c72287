"""A worker starts from ``arena.worker`` (which connects its hooks); one started from the bare
app ``arena.celery`` would run without them (no slot check, no hand-back, no beat pool), so it
is refused before its pool starts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from arena.celery_processes import REPO_ROOT


def test_a_worker_started_from_the_bare_app_is_refused(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CELERY_", "DJANGO_"))}
    env.pop("DATABASE_URL", None)
    env.update(BAO_VAR_DIR=str(tmp_path), CELERY_BROKER_URL="memory://")
    result = subprocess.run(
        [sys.executable, "-m", "celery", "-A", "arena.celery", "worker", "-Q", "bao-refused"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode != 0
    assert "start a worker with 'celery -A arena.worker worker'" in result.stdout + result.stderr
    assert "ready." not in result.stdout + result.stderr
