"""``python -m arena.referee`` in-process: output lines, the JSON record, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.referee.cli import main
from arena.referee.match import third_game_south

pytest.importorskip("engines.sandbox")

STEADY = str(Path(__file__).parent / "engines" / "steady.py")


def test_it_plays_a_match_prints_each_game_and_writes_the_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_file = tmp_path / "match.json"
    code = main(
        ["--variant", "kingulu", "--engine", STEADY, "--engine", STEADY, "--time", "5+0.1",
         "--seed", "4", "--json", str(out_file)]
    )
    assert code == 0
    lines = capsys.readouterr().out.splitlines()
    # steady against itself: South wins every Kingulu game 26-22 after 32 plies; with seed 4
    # engine A is South in game 3 (third_game_south(4) == 0).
    assert third_game_south(4) == 0
    assert lines == [
        "bao-kingulu  steady.py vs steady.py  time 5+0.1  seed 4  sandbox auto",
        "game 1: steady.py (S) - steady.py (2) (N)  1-0  score  32 plies",
        "game 2: steady.py (2) (S) - steady.py (N)  1-0  score  32 plies",
        "game 3: steady.py (S) - steady.py (2) (N)  1-0  score  32 plies",
        "steady.py 2 - 1 steady.py (2): steady.py wins the match",
    ]
    record = json.loads(out_file.read_text())
    assert (record["variant"], record["seed"], record["time_control"]) == ("bao-kingulu", 4, "5+0.1")
    assert [g["scores"] for g in record["games"]] == [[26, 22]] * 3
    assert record["games"][0]["moves"][0]["move"] == "c1"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--variant", "chess", "--engine", STEADY, "--engine", STEADY],
         "error: unknown variant 'chess'; known variants: bao-la-kete, bao-la-kiswahili, bao-kingulu"),
        (["--variant", "kete", "--engine", STEADY, "--engine", STEADY, "--time", "fast"],
         ("error: bad time control 'fast': expected '<base s>+<increment s>' such as '10+0.1', "
          "or 'movetime=<ms>'")),
        (["--variant", "kete", "--engine", STEADY], "error: give --engine exactly twice (got 1)"),
        (["--variant", "kete", "--engine", "/no/such/engine", "--engine", STEADY],
         "error: engine /no/such/engine: not_found: no engine at /no/such/engine"),
        (["--variant", "kete", "--engine", STEADY, "--engine", STEADY, "--json", "/no/dir/x.json"],
         "error: --json: directory /no/dir does not exist"),
    ],
)
def test_bad_input_gives_one_line_and_exit_status_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args) == 2
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [message]
    assert captured.out == ""
