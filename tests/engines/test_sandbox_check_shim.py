"""``python -m engines.sandbox_check`` (the name docs/sandbox.md gave before the sandbox became a
package) still runs the check of ``engines.sandbox.check`` (docs/architecture.md, "Names that
keep working")."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _check(module: str) -> tuple[int, list[str]]:
    done = subprocess.run(
        [sys.executable, "-m", module],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    # Timings and leased uids differ between two runs; the verdicts do not.
    lines = [re.sub(r"after \d+ ms|'uid': \d+", "#", line) for line in done.stdout.splitlines()]
    return done.returncode, lines


def test_the_old_check_command_prints_the_verdicts_of_the_new_one() -> None:
    old, new = _check("engines.sandbox_check"), _check("engines.sandbox.check")
    assert old == new
    assert old[1][0].startswith("running as root: ")
    assert any(line.startswith("auto would choose: ") for line in old[1])
