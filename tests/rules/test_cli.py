"""``python -m arena.rules``: the command line of the rules engine (``arena/rules/cli.py``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.rules import Variant
from arena.rules.cli import MAX_PERFT_DEPTH, main

REPO = Path(__file__).resolve().parents[2]
KINGULU_START = "4,4,4,4,4,4/4,4,4,4,4,4 S 0:0 0"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code: int, out: str, err: str, fragment: str) -> None:
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("error: ")
    assert fragment in err
    assert "Traceback" not in err


# --------------------------------------------------------------------------- Kingulu, exact values


@pytest.mark.parametrize("name", ["bao-kingulu", "kingulu", "Ngulu"])
def test_legal_prints_the_opening_moves_for_the_id_and_aliases(
    capsys: pytest.CaptureFixture[str], name: str
) -> None:
    assert run(capsys, "legal", "--variant", name) == (0, "c1 d1 e1 f1\n", "")


def test_legal_reads_a_position(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "legal", "--variant", "kingulu", "--position", "4,4,4,5s,4,4/2,4,5n,4,1,0 S 3:4 20"
    )
    assert (code, out) == (0, "a1 b1 d1 e1\n")


def test_legal_prints_an_empty_line_when_the_game_is_over(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(
        capsys, "legal", "--variant", "kingulu", "--position", "0,0,0,0,0,0/2,2,2,2,2,2 N 12:24 41"
    )
    assert (code, out) == (0, "\n")


def test_apply_prints_the_position_after_each_move(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "apply", "--variant", "kingulu", "c1", "a2")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "1,0,6,6,0,1/6,6,2,7,0,6 N 7:0 1",
        "0,0,6,6,0,2/0,7,3,8,0,7 S 7:2 2",
    ]


def test_apply_stops_at_an_invalid_token_with_exit_code_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "apply", "--variant", "kingulu", "c1", "zz", "a2")
    assert out == "1,0,6,6,0,1/6,6,2,7,0,6 N 7:0 1\n"
    assert_one_line_error(code, out, err, "'zz'")


def test_apply_rejects_an_illegal_move(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "apply", "--variant", "kingulu", "a1")
    assert out == ""
    assert_one_line_error(code, out, err, "a1 is not legal")


def test_perft_counts_sequences_per_depth(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "perft", "--variant", "kingulu", "--depth", "4")
    assert (code, out) == (0, "1 4\n2 15\n3 50\n4 130\n")


def test_perft_of_a_finished_game_counts_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    # KGL-E6: b1 and e1 leave North's row empty (the game is over, no children); c1 and d1
    # each leave North one move.
    code, out, _ = run(
        capsys,
        "perft",
        "--variant",
        "kingulu",
        "--depth",
        "3",
        "--position",
        "0,0,0,0,0,0/4,4,4,4,1,0 S 10:21 30",
    )
    assert (code, out) == (0, "1 4\n2 2\n3 6\n")


def test_selfplay_is_reproducible_from_its_seed(capsys: pytest.CaptureFixture[str]) -> None:
    code, first, _ = run(capsys, "selfplay", "--variant", "kingulu", "--games", "3", "--seed", "7")
    _, second, _ = run(capsys, "selfplay", "--variant", "kingulu", "--games", "3", "--seed", "7")
    assert code == 0
    games = first.splitlines()[:3]
    assert games == second.splitlines()[:3]
    for number, line in enumerate(games, 1):
        assert line.startswith(f"game {number}: ")
        assert " score plies=" in line or " repetition plies=" in line or " ply_cap " in line
    assert first.splitlines()[3].startswith("total: 3 games, ")
    assert first.splitlines()[3].endswith(" turns/s")


def test_selfplay_honours_a_ply_cap(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "selfplay", "--variant", "kingulu", "--games", "2", "--seed", "1", "--ply-cap", "3"
    )
    assert code == 0
    for line in out.splitlines()[:2]:
        assert " ply_cap plies=3 scores=" in line


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["legal", "--variant", "chess"], "unknown variant 'chess'"),
        (["legal"], "--variant"),
        ([], "required"),
        (["fly", "--variant", "kingulu"], "invalid choice"),
        (["legal", "--variant", "kingulu", "--position", "4,4/4,4 S 0:0 0"], "not a KPN position"),
        (["perft", "--variant", "kingulu", "--depth", "0"], "at least 1"),
        (["perft", "--variant", "kingulu", "--depth", "x"], "not a whole number"),
        (["perft", "--variant", "kingulu", "--depth", str(MAX_PERFT_DEPTH + 1)], "at most"),
        (["selfplay", "--variant", "kingulu", "--games", "1", "--seed", "s"], "seed"),
        (["apply", "--variant", "kingulu"], "MOVE"),
    ],
)
def test_bad_input_gives_one_line_and_exit_code_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], fragment: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert out == ""
    assert_one_line_error(code, out, err, fragment)


# --------------------------------------------------------------------------- every variant


def test_legal_agrees_with_the_library(
    capsys: pytest.CaptureFixture[str], variant: Variant
) -> None:
    code, out, _ = run(capsys, "legal", "--variant", variant.id)
    assert code == 0
    assert out.split() == [str(m) for m in variant.legal_moves(variant.initial_position())]


def test_apply_agrees_with_the_library(
    capsys: pytest.CaptureFixture[str], variant: Variant
) -> None:
    start = variant.initial_position()
    first = variant.legal_moves(start)[0]
    code, out, _ = run(
        capsys, "apply", "--variant", variant.id, "--position", start.to_text(), first
    )
    assert (code, out) == (0, variant.apply(start, first).to_text() + "\n")


def test_selfplay_finishes_games_of_every_variant(
    capsys: pytest.CaptureFixture[str], variant: Variant
) -> None:
    code, out, _ = run(capsys, "selfplay", "--variant", variant.id, "--games", "1", "--seed", "3")
    assert code == 0
    game, total = out.splitlines()
    assert game.startswith("game 1: ") and total.startswith("total: 1 games, ")


def test_the_module_runs_as_a_program() -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run(
        [sys.executable, "-m", "arena.rules", "legal", "--variant", "kingulu"],
        check=False,
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "c1 d1 e1 f1\n", "")
    bad = subprocess.run(
        [sys.executable, "-m", "arena.rules", "apply", "--variant", "kingulu", "a9"],
        check=False,
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.startswith("error: ") and bad.stderr.count("\n") == 1
