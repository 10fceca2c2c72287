"""The pure statistics import without Django: a plain script (the local match runner) can use
them. Checked in a fresh interpreter in which Django, Celery and DRF cannot be imported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import sys
for name in ("django", "celery", "rest_framework", "django_celery_beat"):
    sys.modules[name] = None  # any import of them raises ImportError
from ratings.stats import methods, sprt, whr
from ladder import matchmaking, simulate
fit = methods.get_method(methods.DEFAULT_METHOD).fit([("a", "b", 1.0), ("b", "a", 0.5)])
print([r.engine for r in fit.ratings])
"""


def test_the_statistics_and_the_matchmaker_import_without_django() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['a', 'b']"
