"""``python -m ratings.stats.whr fit FILE``: the table, the JSON shape, skipped and malformed
rows, the anchor, and exit codes (pure: no database)."""

from __future__ import annotations

import io
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from ratings.stats.whr.cli import main

ROOT = Path(__file__).resolve().parents[2]

GAMES = """south,north,result
alpha,beta,1-0
beta,alpha,1-0
alpha,beta,1-0
beta,alpha,1/2-1/2
alpha,gamma,1-0
gamma,alpha,1-0
gamma,beta,*
"""


def _run(tmp_path: Path, text: str, *args: str) -> tuple[int, str, str]:
    path = tmp_path / "games.csv"
    path.write_text(text)
    out, err = io.StringIO(), io.StringIO()
    code = main(["fit", str(path), *args], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_json_lists_ratings_best_first_rounded_with_intervals(tmp_path: Path) -> None:
    code, out, err = _run(tmp_path, GAMES, "--json")
    assert code == 0
    data = json.loads(out)
    assert list(data) == ["ratings", "excluded"]
    assert [r["name"] for r in data["ratings"]] == ["alpha", "gamma", "beta"]
    for row in data["ratings"]:
        assert list(row) == [
            "name", "rating", "low", "high", "bound", "games", "points", "provisional",
            "provisional_reason",
        ]  # fmt: skip
        assert row["bound"] is None and row["provisional"]
        assert row["provisional_reason"] == "fewer than 30 rated games"
        assert row["low"] < row["rating"] < row["high"]
        assert all(round(row[k], 1) == row[k] for k in ("rating", "low", "high"))
    assert [(r["games"], r["points"]) for r in data["ratings"]] == [(6, 3.5), (2, 1.0), (4, 1.5)]
    assert sum(r["rating"] for r in data["ratings"]) == pytest.approx(4500, abs=0.15)
    assert data["excluded"] == []
    assert err == "warning: " + str(tmp_path / "games.csv") + ":8: unfinished game (*) skipped\n"


def test_two_engines_differ_by_400_log10_of_the_score_odds(tmp_path: Path) -> None:
    text = "south,north,result\n" + "a,b,1-0\n" * 3 + "b,a,1-0\n"
    data = json.loads(_run(tmp_path, text, "--json")[1])
    diff = 400 * math.log10(3)
    assert [(r["name"], r["rating"]) for r in data["ratings"]] == [
        ("a", round(1500 + diff / 2, 1)),
        ("b", round(1500 - diff / 2, 1)),
    ]


def test_an_anchor_holds_its_engine_at_the_given_rating(tmp_path: Path) -> None:
    free = json.loads(_run(tmp_path, GAMES, "--json")[1])["ratings"]
    anchored = json.loads(_run(tmp_path, GAMES, "--json", "--anchor", "beta=1800")[1])["ratings"]
    by_name = {r["name"]: r["rating"] for r in anchored}
    assert by_name["beta"] == 1800.0
    shift = 1800.0 - next(r["rating"] for r in free if r["name"] == "beta")
    for r in free:
        assert by_name[r["name"]] == pytest.approx(r["rating"] + shift, abs=0.11)


def test_engines_not_connected_or_never_finished_are_reported(tmp_path: Path) -> None:
    text = GAMES + "x,y,1-0\ny,x,1/2-1/2\nzed,x,*\n"
    code, out, _ = _run(tmp_path, text, "--json")
    assert code == 0
    assert json.loads(out)["excluded"] == [
        {"name": "x", "reason": "not connected to the rated pool by games"},
        {"name": "y", "reason": "not connected to the rated pool by games"},
        {"name": "zed", "reason": "no finished game"},
    ]


def test_the_table_is_sorted_by_rating_and_marks_provisional_ratings(tmp_path: Path) -> None:
    code, out, _ = _run(tmp_path, GAMES + "x,y,1-0\n")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["rank", "engine", "rating"]
    assert [line.split()[1] for line in lines[1:4]] == ["alpha", "gamma", "beta"]
    assert lines[1].split()[2].endswith("?")  # six games: fewer than 30
    assert lines[-2:] == [
        "  x: not connected to the rated pool by games",
        "  y: not connected to the rated pool by games",
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("south,north,result\na,b,1-0\na,b,2-0\n", ":3: unknown result '2-0'"),
        ("south,north,result\na,b,1-0\n\na,b\n", ":4: expected 3 fields"),
        ("south,north,result\na,a,1-0\n", ":2: a cannot play itself"),
        ("south,north,result\n,b,1-0\n", ":2: an engine name is empty"),
        ("white,black,result\na,b,1-0\n", ":1: expected the header line south,north,result"),
        ("", ":1: expected the header line"),
    ],
)
def test_a_malformed_row_exits_2_naming_its_line(tmp_path: Path, text: str, message: str) -> None:
    code, out, err = _run(tmp_path, text)
    assert (code, out) == (2, "")
    assert message in err and err.startswith("error: ") and err.count("\n") == 1


@pytest.mark.parametrize(
    ("text", "args", "message"),
    [
        ("south,north,result\na,b,*\n", [], "no rated engine"),
        ("south,north,result\n", [], "no rated engine"),
        (GAMES, ["--anchor", "nobody=1800"], "the anchor nobody played no finished game"),
        (GAMES, ["--anchor", "alpha"], "expected NAME=RATING"),
        (GAMES, ["--anchor", "alpha=strong"], "expected NAME=RATING"),
    ],
)
def test_no_rated_engine_or_a_bad_anchor_exits_2(
    tmp_path: Path, text: str, args: list[str], message: str
) -> None:
    code, out, err = _run(tmp_path, text, *args)
    assert (code, out) == (2, "")
    assert message in err


def test_the_module_runs_from_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "games.csv"
    path.write_text(GAMES)
    ok = subprocess.run(
        [sys.executable, "-m", "tournaments.ratings", "fit", str(path), "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert ok.returncode == 0 and json.loads(ok.stdout)["ratings"][0]["name"] == "alpha"
    missing = subprocess.run(
        [sys.executable, "-m", "tournaments.ratings", "fit", str(tmp_path / "none.csv")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    assert "Traceback" not in missing.stderr


def test_an_all_win_or_all_loss_engine_is_a_bound_in_json_and_table() -> None:
    path = ROOT / "tests" / "ratings" / "data" / "ordo" / "games.csv"
    out = io.StringIO()
    assert main(["fit", str(path), "--json"], stdout=out, stderr=io.StringIO()) == 0
    rows = {r["name"]: r for r in json.loads(out.getvalue())["ratings"]}
    assert (rows["sweeper"]["bound"], rows["sweeper"]["high"]) == (">", None)
    assert (rows["doormat"]["bound"], rows["doormat"]["low"]) == ("<", None)
    assert rows["sweeper"]["provisional_reason"].startswith("rating is only a lower bound")
    assert rows["e22"]["bound"] is None and not rows["e22"]["provisional"]
    assert sum(1 for r in rows.values() if r["bound"]) == 3
    table = io.StringIO()
    main(["fit", str(path)], stdout=table, stderr=io.StringIO())
    sweeper = next(line for line in table.getvalue().splitlines() if " sweeper " in line)
    assert sweeper.split()[2].endswith(">") and "-unbounded" in sweeper


def _game_line(south: str, north: str, result: str) -> str:
    # The fields the fit reads of a bao-match --out / export line, beside some it ignores.
    ref = {"engine": south, "label": south}
    return json.dumps(
        {"id": 1, "south": ref, "north": {"engine": north, "label": north}, "result": result}
    )


def test_json_lines_of_bao_match_or_the_export_fit_as_the_same_games_in_csv(
    tmp_path: Path,
) -> None:
    rows = [line.split(",") for line in GAMES.splitlines()[1:]]
    header = json.dumps({"bao_match": {"seed": None, "options": {}, "sprt": None}})
    lines = header + "\n" + "\n".join(_game_line(*row) for row in rows) + "\n"
    code, out, err = _run(tmp_path, lines, "--json")
    assert code == 0
    assert json.loads(out) == json.loads(_run(tmp_path, GAMES, "--json")[1])
    assert "games.csv:8: game without a result (*) skipped" in err
    code, _, err = _run(tmp_path, lines + '{"south": {}}\n', "--json")
    path = tmp_path / "games.csv"
    assert (code, err.splitlines()[-1]) == (
        2,
        f"error: {path}:9: not a game line (no 'engine' field)",
    )
