"""The conformance data for porters (``arena/rules/conformance.py``, ``docs/rules/conformance/``).

The committed files must agree with the rules engine line by line, reach every rule, and be
what their command regenerates from the committed seed.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from arena.rules import VARIANTS, Game, VariantId, get_variant
from arena.rules import conformance as C
from arena.rules.cli import main

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "docs" / "rules" / "conformance"
KINGULU_START = "4,4,4,4,4,4/4,4,4,4,4,4 S 0:0 0"


def _lines(variant_id: str) -> list[C.Line]:
    return C.decode((DATA / f"{variant_id}.jsonl.gz").read_bytes())


# --------------------------------------------------------------------------- the files


def test_regenerating_the_kingulu_file_with_the_committed_seed_gives_its_bytes() -> None:
    lines, coverage = C.generate("bao-kingulu", seed=C.DEFAULT_SEED, lines=C.DEFAULT_LINES)
    assert C.encode(lines) == (DATA / "bao-kingulu.jsonl.gz").read_bytes()
    assert coverage.missing() == []


@pytest.mark.slow
@pytest.mark.parametrize("variant_id", ["bao-la-kete", "bao-la-kiswahili"])
def test_regenerating_a_bao_file_with_the_committed_seed_gives_its_bytes(variant_id: str) -> None:
    lines, _ = C.generate(variant_id)
    assert C.encode(lines) == (DATA / f"{variant_id}.jsonl.gz").read_bytes()


@pytest.mark.parametrize("variant_id", VARIANTS)
def test_every_line_of_a_file_agrees_with_the_rules_engine(variant_id: str) -> None:
    variant = get_variant(variant_id)
    lines = _lines(variant_id)
    assert len(lines) >= 10_000
    game: Game | None = None
    games = 0
    for number, line in enumerate(lines, 1):
        position = variant.parse_position(line.position)
        assert position.to_text() == line.position, number
        if game is None:  # the first line of a game
            game = variant.new_game(position)
            games += 1
        assert game.position == position, number
        assert line.legal == tuple(str(m) for m in variant.legal_moves(position)), number
        assert list(line.legal) == sorted(line.legal)
        if line.move is None:
            assert line.next is None
            assert game.outcome is not None and line.outcome == game.outcome.to_dict(), number
            game = None
            continue
        assert game.outcome is None and line.outcome is None, number
        assert game.play(line.move).to_text() == line.next, number
    assert game is None  # the file ends with a game end
    assert games >= 200


def test_a_line_has_the_documented_keys_in_order() -> None:
    raw = gzip.decompress((DATA / "bao-kingulu.jsonl.gz").read_bytes()).decode("ascii")
    first, *_, last = raw.splitlines()
    assert list(json.loads(first)) == ["position", "legal", "move", "next", "outcome"]
    assert json.loads(first)["position"] == "4,4,4,4,4,4/4,4,4,4,4,4 S 0:0 0"
    assert json.loads(first)["outcome"] is None
    end = json.loads(last)
    assert list(end) == ["position", "legal", "outcome"]
    assert list(end["outcome"]) == ["winner", "reason", "scores", "seeds_in_hand", "result"]


@pytest.mark.parametrize("variant_id", VARIANTS)
def test_the_files_end_games_in_every_way_the_rules_end_them(variant_id: str) -> None:
    reasons = {str(line.outcome["reason"]) for line in _lines(variant_id) if line.outcome}
    if variant_id == "bao-kingulu":
        assert reasons == {"score", "repetition", "ply_cap"}
    else:
        assert reasons == {"bao_hamna", "no_legal_move", "repetition", "ply_cap"}


def test_a_rule_no_game_reaches_fails_the_generation(monkeypatch: pytest.MonkeyPatch) -> None:
    # Without its listed start, play from the start position never offers a never-ending move.
    monkeypatch.setitem(C.STARTS, VariantId.BAO_KINGULU, ())
    monkeypatch.setattr(C, "MAX_EXTRA_GAMES", 20)
    with pytest.raises(C.CoverageError, match="never_ending"):
        C.generate("kingulu", lines=200)


def test_coverage_counts_the_lines_of_each_rule() -> None:
    lines, coverage = C.generate("bao-kingulu", seed=3, lines=300)
    assert coverage.lines == len(lines) >= 300
    assert coverage.games == sum(1 for line in lines if line.outcome)
    assert set(coverage.counts) == set(C.RULES[VariantId.BAO_KINGULU])
    assert coverage.counts["end_score"] == coverage.endings["score"]
    assert "| never_ending | 1 |" in coverage.table()


def test_the_generation_depends_on_the_seed_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(C, "MAX_EXTRA_GAMES", 100)
    one = C.encode(C.generate("kingulu", seed=5, lines=100)[0])
    assert C.encode(C.generate("bao-kingulu", seed=5, lines=100)[0]) == one
    assert C.encode(C.generate("bao-kingulu", seed=6, lines=100)[0]) != one
    assert gzip.decompress(one).count(b"\n") >= 100


def test_the_cycle_of_the_repetition_game_comes_back_to_its_first_position() -> None:
    variant = get_variant("bao-la-kete")
    root = variant.parse_position(C.CYCLE_STARTS[VariantId.BAO_LA_KETE])
    found = C.find_cycle(variant, root)
    assert found is not None
    into, loop = found
    position = root
    for move in into:
        position = variant.apply(position, move)
    entry = position
    for move in loop:
        position = variant.apply(position, move)
    assert position.repetition_key == entry.repetition_key
    assert position.ply == entry.ply + len(loop)


# --------------------------------------------------------------------------- perft


@pytest.mark.parametrize("variant_id", VARIANTS)
def test_the_perft_table_matches_the_rules_engine_to_depth_3(variant_id: str) -> None:
    table = json.loads((DATA / "perft.json").read_text())
    variant = get_variant(variant_id)
    rows = table[variant_id]
    assert [row["label"] for row in rows] == [p[0] for p in C.PERFT_POSITIONS[variant.id]]
    for row in rows:
        position = variant.parse_position(row["position"])
        assert C.perft(variant, position, 3) == row["counts"][:3], row["label"]
    assert rows[0]["position"] == variant.initial_position().to_text()


def test_the_perft_table_holds_the_published_figures() -> None:
    table = json.loads((DATA / "perft.json").read_text())
    # Issue 27: an independent C port of Bao Kingulu matched 183,926 at depth 12.
    assert table["bao-kingulu"][0]["counts"][11] == 183_926
    assert table["bao-la-kete"][0]["counts"][:4] == [4, 14, 38, 124]


# --------------------------------------------------------------------------- command line


def test_the_command_writes_the_file_and_prints_the_coverage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "k.jsonl.gz"
    code = main(["conformance", "--variant", "kingulu", "--out", str(out), "--lines", "300"])
    printed = capsys.readouterr().out
    assert code == 0
    lines = C.decode(out.read_bytes())
    assert len(lines) >= 300
    assert "| capture |" in printed and "| end_ply_cap |" in printed
    assert f"{len(lines)} lines" in printed
    assert out.read_bytes()[4:8] == b"\0\0\0\0"  # gzip mtime 0


def test_the_command_exits_1_without_writing_when_a_rule_is_missed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(C.STARTS, VariantId.BAO_KINGULU, ())
    monkeypatch.setattr(C, "MAX_EXTRA_GAMES", 5)
    out = tmp_path / "k.jsonl.gz"
    code = main(["conformance", "--variant", "kingulu", "--out", str(out), "--lines", "50"])
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith("error: bao-kingulu: no game reached never_ending")
    assert not out.exists()


def test_perft_table_writes_the_json_it_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    short = (("start", "start", 3), ("reserved holes", "0,2,1,2,4s,5s/4,0,4,1,5n,5 S 13:2 12", 2))
    monkeypatch.setitem(C.PERFT_POSITIONS, VariantId.BAO_KINGULU, short)
    out = tmp_path / "perft.json"
    assert main(["perft-table", "--variant", "kingulu", "--out", str(out)]) == 0
    assert capsys.readouterr().out == out.read_text()
    assert json.loads(out.read_text()) == {
        "bao-kingulu": [
            {
                "label": "start",
                "position": "4,4,4,4,4,4/4,4,4,4,4,4 S 0:0 0",
                "counts": [4, 15, 50],
            },
            {
                "label": "reserved holes",
                "position": "0,2,1,2,4s,5s/4,0,4,1,5n,5 S 13:2 12",
                "counts": [4, 4],
            },
        ]
    }


def test_games_asks_for_at_least_that_many_games() -> None:
    lines, coverage = C.generate("bao-kingulu", seed=1, lines=1, games=40)
    from_start = [i for i, line in enumerate(lines) if line.position == KINGULU_START]
    assert len(from_start) >= 40
    assert coverage.lines == len(lines)
