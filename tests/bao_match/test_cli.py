"""``bao-match`` with real engine processes: the lines, ``--out``, ``--json``, ``--resume``,
the SPRT stop, the round robin's ratings, the failure limit and one-line argument errors."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.bao_match.cli import main
from arena.matches.gameline import GameLine
from ratings.stats.sprt import Model, SprtParameters, estimate, sprt
from ratings.stats.whr import fit

from ..ratings.test_sprt import SPRT_JSON_KEYS
from ..referee.leftovers import boot_ticks, leftovers, uids_under

ROOT = Path(__file__).resolve().parents[2]
ENGINES = ROOT / "tests" / "referee" / "engines"
STEADY = str(ENGINES / "steady.py")
GREEDY = str(ROOT / "engines" / "bundled" / "greedy")
RANDOM = str(ROOT / "engines" / "bundled" / "random")
SUMMARY_KEYS = {*SPRT_JSON_KEYS, "terminations"}


def _lines(path: Path) -> list[dict[str, object]]:
    """The game lines of an --out file (after its header line of the run's settings)."""
    header, *games = path.read_text().splitlines()
    assert set(json.loads(header)) == {"bao_match"}
    return [json.loads(line) for line in games]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--engine", STEADY], "give --engine at least twice (got 1)"),
        (["--engine", STEADY, "--engine", "/no/such/engine"], "engine /no/such/engine: "),
        (["--engine", STEADY, "--engine", STEADY, "--variant", "chess"], "unknown variant"),
        (["--engine", STEADY, "--engine", STEADY, "--time", "0.5"], "base time"),
        (["--engine", STEADY, "--engine", STEADY, "--pairs", "0"], "must be at least 1"),
        (["--engine", STEADY, "--engine", STEADY, "--start", "nowhere"], "--start nowhere"),
        (["--engine", STEADY, "--engine", STEADY, "--sprt", "elo0=5", "elo1=0"], "elo0 < elo1"),
        (["--engine", STEADY, "--engine", STEADY, "--sprt", "elo1=5"], "--sprt needs elo0="),
        (
            ["--engine", STEADY, "--engine", STEADY, "--sprt", "elo0=0", "elo1=1e300"],
            "the bounds must lie in [-1000, 1000] logistic Elo",
        ),
        (
            ["--engine", STEADY, "--engine", STEADY, "--pairs", "1000000000000000000"],
            "at most 1000000 games per run",
        ),
        (
            ["--engine", STEADY, "--engine", STEADY, "--engine", STEADY, "--games", "400000"],
            "--games 400000: 1200000 games in all",
        ),
        (
            ["--engine", STEADY, "--engine", STEADY, "--sprt", "elo0=0", "elo1=5", "model=x"],
            "model",
        ),
        (["--engine", STEADY, "--engine", STEADY, "--resume"], "--resume needs --out"),
        (["--engine", STEADY, "--engine", STEADY, "--option", "nobody.Depth=3"], "no engine named"),
        (["--engine", STEADY, "--engine", STEADY, "--sandbox", "loose"], "invalid choice"),
        (["--engine", STEADY, "--engine", STEADY, "--concurrency", "x"], "not a whole number"),
        (["--engine", "a=" + STEADY, "--engine", "a=" + STEADY], "the name is given twice"),
    ],
)
def test_a_bad_argument_is_one_line_on_stderr_and_exit_status_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("bao-match: error: ")
    assert message in lines[0]


def test_an_existing_out_file_is_kept_unless_resumed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "games.jsonl"
    out.write_text("{}\n")
    assert main(["--engine", STEADY, "--engine", STEADY, "--out", str(out)]) == 2
    assert "add --resume" in capsys.readouterr().err
    assert out.read_text() == "{}\n"


def _match(tmp_path: Path, pairs: int, *extra: str) -> list[str]:
    return [
        "--variant",
        "kingulu",
        "--engine",
        "one=" + STEADY,
        "--engine",
        "two=" + STEADY,
        "--time",
        "5+0.1",
        "--pairs",
        str(pairs),
        "--concurrency",
        "2",
        "--out",
        str(tmp_path / "games.jsonl"),
        "--json",
        str(tmp_path / "summary.json"),
        *extra,
    ]


def test_two_engines_play_pairs_with_colours_swapped_and_write_lines_and_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_match(tmp_path, 2)) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith(
        "bao-match: bao-kingulu  one vs two  time 5+0.1  4 games  start standard  concurrency 2"
    )
    # steady against itself: South wins every Kingulu game 26-22 after 32 plies, so each pair
    # is one win each.
    assert "Games: 4, Wins: 2, Losses: 2, Draws: 0, Points: 2.0 (50.00 %)" in out
    assert "Ptnml(0-2): [0, 0, 2, 0, 0]" in out
    lines = _lines(tmp_path / "games.jsonl")
    assert sorted(line["id"] for line in lines) == [1, 2, 3, 4]  # type: ignore[type-var]
    by_id = {line["id"]: line for line in lines}
    for number, (south, north) in {1: "12", 2: "21", 3: "12", 4: "21"}.items():
        line = by_id[number]
        names = {"1": "one", "2": "two"}
        assert line["south"]["engine"] == names[south]  # type: ignore[index]
        assert line["north"]["engine"] == names[north]  # type: ignore[index]
        assert (line["result"], line["termination"], line["plies"]) == ("1-0", "score", 32)
        assert line["scores"] == [26, 22]
        assert line["match"] == (number + 1) // 2
        # The record text is the service's (arena.matches.gameline), rebuilt from the line.
        parsed = GameLine.from_dict(line)
        assert line["record"] == parsed.to_dict()["record"]
        assert str(line["record"]).startswith('[Event "bao-match"]\n[Site "Bao Arena"]\n')
        assert '[Variant "bao-kingulu"]' in str(line["record"])
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert set(summary) >= SUMMARY_KEYS
    assert summary["games"] == 4
    assert summary["wdl"] == [2, 0, 2]
    assert summary["pentanomial"] == [0, 0, 2, 0, 0]
    assert summary["llr"] is None and summary["decision"] is None
    assert summary["games_played"] == 4
    elo, low, high, los = estimate([0, 0, 2, 0, 0], Model.LOGISTIC)
    assert (summary["elo"], summary["ci_low"], summary["ci_high"], summary["los"]) == (
        elo,
        low,
        high,
        los,
    )
    assert summary["terminations"] == {"one": {}, "two": {}}
    assert summary["stopped"] == "finished"


def test_resume_plays_only_the_games_not_in_the_out_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_match(tmp_path, 2)) == 0
    capsys.readouterr()
    out = tmp_path / "games.jsonl"
    header, *games = out.read_text().splitlines()
    assert json.loads(header)["bao_match"]["options"] == {}
    kept = sorted(games, key=lambda t: json.loads(t)["id"])
    # Games 1 and 2 kept whole, game 3 cut short as a kill would leave it.
    out.write_text(header + "\n" + kept[0] + "\n" + kept[1] + "\n" + kept[2][:40])
    assert main(_match(tmp_path, 3, "--resume")) == 0
    captured = capsys.readouterr()
    assert "its last line was cut short" in captured.err
    assert "resuming: 2 games already in" in captured.out
    played = [line for line in captured.out.splitlines() if line.startswith("game ")]
    assert sorted(int(line.split()[1]) for line in played) == [3, 4, 5, 6]
    lines = _lines(out)
    assert [line["id"] for line in lines[:2]] == [json.loads(k)["id"] for k in kept[:2]]
    assert sorted(line["id"] for line in lines) == [1, 2, 3, 4, 5, 6]  # type: ignore[type-var]
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert (summary["games"], summary["pentanomial"]) == (6, [0, 0, 3, 0, 0])
    # A file of another run is refused, in one line.
    assert main([*_match(tmp_path, 3, "--resume"), "--time", "6+0.1"]) == 2
    assert "this run plays bao-kingulu 6+0.1" in capsys.readouterr().err
    assert main([*_match(tmp_path, 3, "--resume"), "--start", "balanced"]) == 2
    assert "started from another position" in capsys.readouterr().err
    # Another --seed, --option or --sprt than the header's: refused, naming it.
    assert main([*_match(tmp_path, 3, "--resume"), "--seed", "7"]) == 2
    assert "with another --seed than 7" in capsys.readouterr().err
    assert main([*_match(tmp_path, 3, "--resume"), "--option", "one.Depth=3"]) == 2
    assert (
        "bao-match: error: --resume: --option changed: " + str(out) + " was played with options"
        ' {}, this run has {"one": {"Depth": "3"}}'
    ) in capsys.readouterr().err
    assert main([*_match(tmp_path, 3, "--resume"), "--sprt", "elo0=0", "elo1=5"]) == 2
    assert "--resume: --sprt changed: " in capsys.readouterr().err
    # A line that is JSON but no game: one line naming the missing field, no raw KeyError.
    out.write_text("{}\n" + out.read_text())  # line 1: no header, no game
    assert main(_match(tmp_path, 3, "--resume")) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].endswith(
        "games.jsonl:1 is not a game line of bao-match or the export: it has no 'id' field"
    )


def test_an_sprt_stops_at_its_decision_with_the_version_tests_arithmetic(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    summary_file = tmp_path / "summary.json"
    argv = [
        "--engine",
        GREEDY,
        "--engine",
        RANDOM,
        "--time",
        "movetime=10",
        "--sprt",
        "elo0=0",
        "elo1=10",
        "model=logistic",
        "--pairs",
        "200",
        "--concurrency",
        "1",
        "--json",
        str(summary_file),
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    summary = json.loads(summary_file.read_text())
    assert summary["decision"] == "H1" and summary["stopped"] == "sprt"
    assert summary["games"] < 400
    params = SprtParameters(0, 10, 0.05, 0.05, Model.LOGISTIC)
    result = sprt(summary["pentanomial"], params, wdl=tuple(summary["wdl"]))
    # Every figure is ratings.stats.sprt's on the final counts (python -m ratings.stats.sprt
    # --json prints the same object).
    assert {k: v for k, v in summary.items() if k in result.to_dict()} == result.to_dict()
    assert summary["games"] == 2 * sum(summary["pentanomial"]) <= summary["games_played"]
    assert result.llr is not None and f"LLR: {result.llr:.2f} (" in out
    assert "SPRT ([0.00, 10.00]) completed - H1 was accepted" in out


def test_three_engines_play_a_round_robin_rated_by_the_services_fit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_file = tmp_path / "games.jsonl"
    argv = [
        "--engine",
        "g1=" + GREEDY,
        "--engine",
        "g2=" + GREEDY,
        "--engine",
        "rnd=" + RANDOM,
        "--time",
        "movetime=10",
        "--pairs",
        "2",
        "--out",
        str(out_file),
        "--json",
        str(tmp_path / "summary.json"),
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    lines = _lines(out_file)
    assert len(lines) == 12  # 3 pairings x 2 pairs x 2 games
    games = [
        (
            line["south"]["engine"],
            line["north"]["engine"],
            {"1-0": 1.0, "0-1": 0.0}.get(str(line["result"]), 0.5),
        )
        for line in sorted(lines, key=lambda line: line["id"])  # type: ignore[arg-type,return-value]
    ]
    expected = fit(games)  # type: ignore[arg-type]
    summary = json.loads((tmp_path / "summary.json").read_text())
    rated = {r["name"]: r for r in summary["ratings"]["ratings"]}
    assert set(rated) == {"g1", "g2", "rnd"}
    for r in expected.ratings:
        assert rated[r.engine]["rating"] == round(r.rating, 1)
        # An all-win or all-loss engine is a bound: its open end is null (docs/ratings.md).
        assert (rated[r.engine]["low"], rated[r.engine]["high"]) == (
            None if r.low is None else round(r.low, 1),
            None if r.high is None else round(r.high, 1),
        )
        assert rated[r.engine]["bound"] == r.bound
    table = out[out.index("Ratings after 12 games") :].splitlines()
    assert table[1].split()[:3] == ["rank", "engine", "rating"]
    assert table[2].split()[1] == expected.ratings[0].engine
    # No pairwise figure of the first pairing alone: the ratings cover every game.
    for key in ("games", "wdl", "pentanomial", "elo", "ci_low", "ci_high", "los", "ci_note"):
        assert summary[key] is None, key
    assert summary["games_played"] == 12


def test_an_engine_that_keeps_crashing_stops_the_run_with_exit_status_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [
        "--variant",
        "kingulu",
        "--engine",
        str(ENGINES / "crash_on_move.py"),
        "--engine",
        STEADY,
        "--time",
        "5+0.1",
        "--pairs",
        "20",
        "--max-failures",
        "1",
        "--concurrency",
        "1",
        "--json",
        str(tmp_path / "summary.json"),
    ]
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert "stopped: 2 crashes, failed handshakes or aborted games" in captured.err
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["terminations"]["crash_on_move.py"] == {"crash": 2}
    assert summary["stopped"] == "failures"
    assert summary["games"] == 2


@pytest.mark.slow
@pytest.mark.timeout(90)
def test_ctrl_c_kills_every_engine_and_prints_the_summary_so_far(tmp_path: Path) -> None:
    slow = str(ENGINES / "slow.py")
    out_file = tmp_path / "games.jsonl"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "arena.bao_match",
            "--variant",
            "kingulu",
            "--engine",
            STEADY,
            "--engine",
            slow,
            "--time",
            "600+0",
            "--pairs",
            "5",
            "--concurrency",
            "2",
            "--out",
            str(out_file),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        uids: set[int] = set()
        while len(uids := uids_under(proc.pid, "slow.py")) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)
        assert len(leftovers("slow.py", uids)) >= 2  # two games at once, one slow engine each
        steady_uids = uids_under(proc.pid, "steady.py")
        assert steady_uids
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    ended = boot_ticks()
    assert proc.returncode == 130
    assert "Results of steady.py vs slow.py" in out
    assert "Interrupted after 0 of 10 games." in out
    assert err.strip().splitlines()[-1].startswith("bao-match: interrupted: engines killed")
    assert leftovers("slow.py", uids, before=ended) == []
    assert leftovers("steady.py", steady_uids, before=ended) == []
    assert out_file.read_text() == ""  # no game ended: not even the header line


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_an_out_file_that_cannot_be_written_stops_the_run_with_exit_status_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [
        "--variant", "kingulu", "--engine", STEADY, "--engine", STEADY, "--time", "5+0.1",
        "--pairs", "3", "--concurrency", "1", "--out", "/dev/full",
        "--json", str(tmp_path / "summary.json"),
    ]  # fmt: skip
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "stopped by an error of its own" in err
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["stopped"] == "error"
    assert summary["games_played"] == 0  # its line could not be written: not counted


def test_an_option_the_engine_did_not_declare_is_not_sent_and_said_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [
        "--variant", "kingulu", "--engine", "one=" + STEADY, "--engine", "two=" + STEADY,
        "--time", "5+0.1", "--pairs", "1", "--concurrency", "1", "--option", "one.Depth=3",
    ]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.count("bao-match: warning: one declares no option Depth: not sent") == 1


def test_an_option_value_of_the_wrong_type_is_refused_before_any_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    search = str(ROOT / "engines" / "bundled" / "search")
    out = tmp_path / "games.jsonl"
    argv = [
        "--variant", "kingulu", "--engine", "weak=" + search, "--engine", "two=" + STEADY,
        "--time", "5+0.1", "--pairs", "1", "--option", "weak.Depth=abc", "--out", str(out),
    ]  # fmt: skip
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == [
        "bao-match: error: --option weak.Depth=abc: Depth is a spin option: it takes a whole "
        "number, not 'abc'"
    ]
    assert not out.exists()
