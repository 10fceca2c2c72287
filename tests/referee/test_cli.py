"""``python -m arena.referee`` in-process: output lines, the JSON record, one-line errors."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.referee.cli import main
from arena.referee.match import third_game_south

from .leftovers import boot_ticks, leftovers, uids_under

pytest.importorskip("engines.sandbox")

STEADY = str(Path(__file__).parent / "engines" / "steady.py")


def test_it_plays_a_match_prints_each_game_and_writes_the_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BAO_SANDBOX_MODE", raising=False)
    out_file = tmp_path / "match.json"
    code = main(
        [
            "--variant",
            "kingulu",
            "--engine",
            STEADY,
            "--engine",
            STEADY,
            "--time",
            "5+0.1",
            "--seed",
            "4",
            "--json",
            str(out_file),
        ]
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
    assert (record["variant"], record["seed"], record["time_control"]) == (
        "bao-kingulu",
        4,
        "5+0.1",
    )
    assert [g["scores"] for g in record["games"]] == [[26, 22]] * 3
    assert record["games"][0]["moves"][0]["move"] == "c1"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--variant", "chess", "--engine", STEADY, "--engine", STEADY],
            "error: unknown variant 'chess'; "
            "known variants: bao-la-kete, bao-la-kiswahili, bao-kingulu",
        ),
        (
            ["--variant", "kete", "--engine", STEADY, "--engine", STEADY, "--time", "fast"],
            (
                "error: bad time control 'fast': expected '<base s>+<increment s>' "
                "such as '10+0.1', or 'movetime=<ms>'"
            ),
        ),
        (["--variant", "kete", "--engine", STEADY], "error: give --engine exactly twice (got 1)"),
        (
            ["--variant", "kete", "--engine", "/no/such/engine", "--engine", STEADY],
            "error: engine /no/such/engine: not_found: no engine at /no/such/engine",
        ),
        (
            [
                "--variant",
                "kete",
                "--engine",
                STEADY,
                "--engine",
                STEADY,
                "--json",
                "/no/dir/x.json",
            ],
            "error: --json: directory /no/dir does not exist",
        ),
        (
            ["--variant", "kete", "--engine", STEADY, "--engine", STEADY, "--start", "sharp"],
            "error: no start-position suite 'sharp' for bao-la-kete; "
            "choose one of: standard, balanced",
        ),
        (
            ["--variant", "ngulu", "--engine", STEADY, "--engine", STEADY, "--position", "4,4 S"],
            "error: not a KPN position (expected '<a2..f2>/<a1..f1> <S|N> <bankS>:<bankN> <ply>'): "
            "'4,4 S'",
        ),
    ],
)
def test_bad_input_gives_one_line_and_exit_status_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args) == 2
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [message]
    assert captured.out == ""


UID = str(Path(__file__).parent / "engines" / "uid.py")


def _uids(out_file: Path) -> set[str]:
    """The uids the ``uid`` engines reported in the record's first game."""
    moves = json.loads(out_file.read_text())["games"][0]["moves"]
    return {line.split()[-1] for m in moves for line in m["info"] if line.startswith("string uid")}


@pytest.mark.parametrize(
    ("env", "flag", "mode"),
    [("off", [], "off"), ("off", ["--sandbox", "bwrap"], "bwrap"), (None, [], "auto")],
)
def test_the_sandbox_mode_comes_from_the_flag_then_bao_sandbox_mode_then_auto(
    env: str | None,
    flag: list[str],
    mode: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from engines.sandbox import probe

    if mode != "off" and not probe().bwrap_ok:
        pytest.skip("bwrap does not work here")
    if env is None:
        monkeypatch.delenv("BAO_SANDBOX_MODE", raising=False)
    else:
        monkeypatch.setenv("BAO_SANDBOX_MODE", env)
    out_file = tmp_path / "match.json"
    code = main(
        [
            "--variant",
            "kingulu",
            "--engine",
            UID,
            "--engine",
            UID,
            "--time",
            "5+0.1",
            "--seed",
            "4",
            "--json",
            str(out_file),
            *flag,
        ]
    )
    assert code == 0
    assert capsys.readouterr().out.splitlines()[0].endswith(f"sandbox {mode}")
    # Unsandboxed engines run as we do; sandboxed ones each get a uid of their own.
    uids = _uids(out_file)
    if mode == "off":
        assert uids == {str(os.getuid())}
    else:
        assert len(uids) == 2 and str(os.getuid()) not in uids


def test_a_junk_bao_sandbox_mode_is_a_one_line_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BAO_SANDBOX_MODE", "loose")
    assert main(["--variant", "kingulu", "--engine", STEADY, "--engine", STEADY]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "error: sandbox mode must be one of auto, bwrap, fallback, off, not 'loose'"
    ]


@pytest.mark.timeout(60)
def test_sigterm_kills_the_engines_and_exits_130() -> None:
    repo = Path(__file__).resolve().parents[2]
    hang = str(Path(__file__).parent / "engines" / "hang.py")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "arena.referee",
            "--variant",
            "kingulu",
            "--engine",
            hang,
            "--engine",
            STEADY,
            "--time",
            "60+0",
            "--seed",
            "1",
        ],
        cwd=repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # Wait until the hang engine is running (then it hangs at its 2nd go, on a 60 s clock).
        # Only this referee's engine counts (other test runs share the host): its uids.
        deadline = time.monotonic() + 20
        uids: set[int] = set()
        while not (uids := uids_under(proc.pid, "hang.py")) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)
        assert leftovers("hang.py", uids)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
    ended = boot_ticks()
    assert proc.returncode == 130
    assert out.startswith("bao-kingulu  hang.py vs steady.py  time 60+0  seed 1")
    assert err.strip().splitlines()[-1] == "interrupted: engines killed, no result"
    assert leftovers("hang.py", uids, before=ended) == []


def _json_targets(tmp: Path) -> list[tuple[Path, str]]:
    (tmp / "a-file").write_text("")
    (tmp / "a-dir").mkdir()
    return [
        (tmp / "a-dir", f"error: --json: {tmp / 'a-dir'} is a directory"),
        (tmp / "a-file" / "x.json", f"error: --json: {tmp / 'a-file'} is not a directory"),
        (
            Path("/proc/bao-arena.json"),  # procfs creates no files, not even for root
            "error: --json: cannot write /proc/bao-arena.json: No such file or directory",
        ),
    ]


def test_an_unusable_json_target_is_refused_before_the_match_is_played(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for target, message in _json_targets(tmp_path):
        code = main(
            ["--variant", "kingulu", "--engine", STEADY, "--engine", STEADY, "--json", str(target)]
        )
        captured = capsys.readouterr()
        assert (code, captured.err.splitlines(), captured.out) == (2, [message], "")


def test_checking_the_json_target_leaves_no_file_and_keeps_an_existing_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new, old = tmp_path / "new.json", tmp_path / "old.json"
    old.write_text("kept\n")
    for target in (new, old):
        code = main(
            [
                "--variant",
                "kingulu",
                "--engine",
                STEADY,
                "--engine",
                "/no/such/engine",
                "--json",
                str(target),
            ]
        )
        assert code == 2
    assert (
        capsys.readouterr().err.splitlines()
        == ["error: engine /no/such/engine: not_found: no engine at /no/such/engine"] * 2
    )
    assert (new.exists(), old.read_text()) == (False, "kept\n")


def test_it_plays_every_game_from_a_suite_position_drawn_by_the_seed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from arena.openings import match_start

    out_file = tmp_path / "match.json"
    code = main(
        [
            "--variant",
            "kingulu",
            "--engine",
            STEADY,
            "--engine",
            STEADY,
            "--time",
            "5+0.1",
            "--seed",
            "4",
            "--start",
            "balanced",
            "--json",
            str(out_file),
        ]
    )
    assert code == 0
    start = match_start("bao-kingulu", "balanced", 4).to_text()
    assert capsys.readouterr().out.splitlines()[1] == f"start position {start}"
    games = json.loads(out_file.read_text())["games"]
    assert [g["start_position"] for g in games] == [start] * len(games)
    assert [g["south"] for g in games[:2]] == ["steady.py", "steady.py (2)"]
