"""The SPRT command line as a user runs it: both module names, in a process of its own."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(module: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("module", ["ratings.stats.sprt", "tournaments.sprt"])
@pytest.mark.parametrize(
    "args",
    [
        ["--elo0", "5", "--elo1", "0", "--model", "logistic", "--trinomial", "1,1,1"],
        ["--elo0", "0", "--elo1", "nan", "--model", "logistic", "--trinomial", "1,1,1"],
        ["--elo0", "0", "--elo1", "5", "--model", "elo", "--trinomial", "1,1,1"],
        ["--elo0", "0", "--elo1", "5", "--model", "logistic", "--trinomial", "1,-1,1"],
        ["--elo0", "0", "--elo1", "5", "--model", "logistic", "--pentanomial", "1,1"],
        [
            "--elo0",
            "0",
            "--elo1",
            "5",
            "--model",
            "logistic",
            "--trinomial",
            "1,1,1",
            "--wdl",
            "1,1,1",
        ],
        ["--elo0", "0", "--elo1", "5", "--model", "logistic"],
        ["--elo0", "x"],
    ],
)
def test_bad_input_is_one_line_on_stderr_and_status_two(module, args):
    done = _run(module, *args)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("python -m ratings.stats.sprt: error: ")


@pytest.mark.parametrize("module", ["ratings.stats.sprt", "tournaments.sprt"])
def test_a_record_that_used_to_raise_prints_its_figures(module):
    # nElo [0, 20] on seven split pairs raised ValueError from the fit (issue 26).
    done = _run(
        module,
        "--elo0",
        "0",
        "--elo1",
        "20",
        "--model",
        "normalized",
        "--pentanomial",
        "0,0,7,0,0",
        "--json",
    )
    assert done.returncode == 0 and done.stderr == ""
    payload = json.loads(done.stdout)
    assert payload["llr"] < 0 and payload["llr_note"] is None
    assert (payload["games"], payload["pentanomial"], payload["decision"]) == (
        14,
        [0, 0, 7, 0, 0],
        "continue",
    )


@pytest.mark.parametrize("module", ["ratings.stats.sprt", "tournaments.sprt"])
def test_a_reader_that_goes_away_ends_it_quietly_and_no_minus_zero_is_printed(module):
    args = ["--elo0=-1e-9", "--elo1=1e-9", "--model", "logistic", "--pentanomial", "0,1,2,1,0"]
    out = _run(module, *args).stdout.splitlines()
    assert out[0].startswith("LLR 0.000 (") and out[2].startswith("Elo 0 [")
    # The pipe's reading end is closed before the process writes (`| head -0`).
    proc = subprocess.Popen(
        [sys.executable, "-m", module, *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 0
    assert "Traceback" not in err and err == ""
