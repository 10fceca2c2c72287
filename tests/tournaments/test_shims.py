"""The command lines that moved out of tournaments keep working under their old names
(docs/architecture.md, "Names that keep working"): each shim prints what the new module
prints, byte for byte."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SPRT = ["--elo0", "0", "--elo1", "5", "--model", "normalized", "--pentanomial", "1,10,20,12,3"]
LADDER = ["simulate", "--players", "6", "--matches", "40", "--seed", "3", "--json"]


def _run(module: str, args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(
    ("old", "new", "args"),
    [
        ("tournaments.sprt", "ratings.stats.sprt", [*SPRT, "--json"]),
        ("tournaments.ladder", "ladder.simulate", LADDER),
    ],
)
def test_the_old_command_line_prints_what_the_new_one_prints(
    old: str, new: str, args: list[str]
) -> None:
    before, after = _run(old, args), _run(new, args)
    assert (before.returncode, after.returncode) == (0, 0), before.stderr + after.stderr
    assert before.stdout == after.stdout
    assert json.loads(before.stdout)  # a real answer, not an empty one


def test_an_old_command_line_fails_as_the_new_one_does() -> None:
    before, after = (
        _run("tournaments.sprt", ["--elo0", "5", "--elo1", "0", "--model", "x"]),
        _run("ratings.stats.sprt", ["--elo0", "5", "--elo1", "0", "--model", "x"]),
    )
    assert before.returncode == after.returncode == 2
    assert "invalid choice" in before.stderr
