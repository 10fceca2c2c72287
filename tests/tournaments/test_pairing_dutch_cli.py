"""``python -m tournaments.pairing dutch FILE.trf``: the next round of a TRF in bbpPairings'
``-p`` format, as the arena's Swiss pairs it; the exit statuses."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from tournaments.formats import Round, get_format
from tournaments.pairing import main
from tournaments.trf import parse, to_arena

ROOT = Path(__file__).resolve().parents[2]
EVENT = ROOT / "tests" / "tournaments" / "data" / "dutch" / "tune" / "n25-s1"


def _cut(tmp_path: Path, rnd: int) -> Path:
    path = tmp_path / f"before-{rnd}.trf"
    path.write_text(parse((EVENT / "final.trf").read_text()).before_round(rnd).text())
    return path


def test_the_command_prints_the_swiss_format_s_next_round_with_the_file_s_ids(
    tmp_path: Path,
) -> None:
    path = _cut(tmp_path, 4)
    done = subprocess.run(
        [sys.executable, "-m", "tournaments.pairing", "dutch", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    lines = done.stdout.splitlines()
    pairs = [tuple(int(x) for x in line.split()) for line in lines[1:]]
    assert int(lines[0]) == len(pairs)
    view = to_arena(parse(path.read_text()))
    step = get_format("swiss").next_round(view.field, view.history)
    assert isinstance(step, Round)
    ids = view.ids
    assert pairs == [(ids[p.a], ids[p.b]) for p in step.pairings] + [(ids[b], 0) for b in step.byes]
    active = {ids[e.seed] for e in view.field.entrants if not e.withdrawn}
    assert sorted(i for p in pairs for i in p if i) == sorted(active)
    assert len(active) == 23 and len([p for p in pairs if p[1] == 0]) == 1  # 2 withdrawn


def test_the_file_may_come_on_standard_input(tmp_path: Path) -> None:
    path = _cut(tmp_path, 2)
    done = subprocess.run(
        [sys.executable, "-m", "tournaments.pairing", "dutch", "-"],
        input=path.read_bytes(),
        capture_output=True,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    expected = (EVENT / "round-02.txt").read_text().split()
    got = done.stdout.decode().split()
    pairs = {(got[k], got[k + 1]) for k in range(1, len(got), 2)}
    assert got[0] == expected[0] == str(len(pairs))
    # The same engines as bbpPairings paired (one withdrew before round 2), each once.
    assert sorted(i for p in pairs for i in p) == sorted(expected[1:])
    assert len(pairs) == 12


def test_a_file_with_every_round_paired_has_no_next_round(tmp_path: Path, capsys: Any) -> None:
    assert main(["dutch", str(EVENT / "final.trf")]) == 1
    err = capsys.readouterr()
    assert err.out == ""
    assert err.err == "no pairing for round 10: all 9 rounds are paired\n"


def test_a_bad_file_exits_2_with_one_line_naming_its_line(tmp_path: Path, capsys: Any) -> None:
    text = (EVENT / "final.trf").read_text().splitlines()
    text[5] = text[5][:95] + " q" + text[5][97:]
    bad = tmp_path / "bad.trf"
    bad.write_text("\n".join(text))
    assert main(["dutch", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err == f"error: {bad}: line 6: round 1: the colour is w, b or -, not 'q'\n"


def test_a_file_not_in_utf8_or_without_rounds_or_missing_exits_2(
    tmp_path: Path, capsys: Any
) -> None:
    latin = tmp_path / "latin.trf"
    latin.write_bytes(b"012 Caf\xe9\n")
    no_rounds = tmp_path / "no-rounds.trf"
    no_rounds.write_text("\n".join(_cut(tmp_path, 2).read_text().splitlines()[1:]))
    assert main(["dutch", str(latin)]) == 2
    assert capsys.readouterr().err == f"error: {latin}: not UTF-8 (byte 7)\n"
    assert main(["dutch", str(no_rounds)]) == 2
    assert capsys.readouterr().err == (
        f"error: {no_rounds}: the file has no XXR record (the number of rounds)\n"
    )
    assert main(["dutch", str(tmp_path / "none.trf")]) == 2
    assert capsys.readouterr().err == f"error: {tmp_path / 'none.trf'}: No such file or directory\n"


def test_a_black1_file_is_paired_as_the_white1_file_with_every_colour_swapped(
    tmp_path: Path, capsys: Any
) -> None:
    """The Dutch rules treat the colours alike but for the initial one; bbpPairings gives, on
    every round of the 24 tune events mirrored so, the swapped pairing of the original."""
    cut = parse(_cut(tmp_path, 5).read_text())
    swap = {"w": "b", "b": "w"}
    mirrored = replace(
        cut,
        first_colour="black1",
        players=tuple(
            replace(
                p, games=tuple(replace(g, colour=swap.get(g.colour, g.colour)) for g in p.games)
            )
            for p in cut.players
        ),
    )
    (tmp_path / "black1.trf").write_text(mirrored.text())
    outputs = []
    for name in ("before-5.trf", "black1.trf"):
        assert main(["dutch", str(tmp_path / name)]) == 0
        out = capsys.readouterr().out.split()
        outputs.append({(int(out[k]), int(out[k + 1])) for k in range(1, len(out), 2)})
    white1, black1 = outputs
    assert black1 == {(b, a) if b else (a, 0) for a, b in white1}
    assert black1 != white1
