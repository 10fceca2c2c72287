"""The C starter engine (``engines/examples/c``): its move generator passes the conformance
data (``docs/rules/conformance/``), it speaks BEP, and it finishes refereed games.

The starter is built with ``make`` in a copy of its directory, so the checkout stays clean.
"""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena import terminations as T
from arena.referee import RefereeConfig, TimeControl, play_match
from arena.rules import VARIANTS, get_variant
from arena.rules.conformance import decode

REPO = Path(__file__).resolve().parents[2]
STARTER = REPO / "engines" / "examples" / "c"
DATA = REPO / "docs" / "rules" / "conformance"

if shutil.which("make") is None or shutil.which("gcc") is None:
    pytest.skip("the C starter needs make and gcc", allow_module_level=True)


def _make(directory: Path, *targets: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "-s", "-C", str(directory), f"CONFORMANCE={DATA}", *targets],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module")
def built() -> Iterator[Path]:
    """A built copy of the starter, world-readable (the sandbox uid must enter it)."""
    work = Path(tempfile.mkdtemp(prefix="bao-c-starter-"))
    os.chmod(work, 0o755)
    copy = work / "c"
    shutil.copytree(
        STARTER, copy, ignore=shutil.ignore_patterns("bao-engine", "check-rules", "*.zip")
    )
    result = _make(copy, "all", "check-rules")
    assert result.returncode == 0, result.stderr
    yield copy
    shutil.rmtree(work, ignore_errors=True)


def test_make_check_passes_every_conformance_line_and_the_perft_table(built: Path) -> None:
    result = _make(built, "check")
    assert result.returncode == 0, result.stdout + result.stderr
    for variant in VARIANTS:
        count = len(decode((DATA / f"{variant}.jsonl.gz").read_bytes()))
        assert f"{variant}: {count} lines ok" in result.stdout
    assert "perft: 14 positions ok" in result.stdout
    assert "protocol: bestmove ok" in result.stdout


def test_the_checker_names_the_first_line_that_differs(built: Path) -> None:
    lines = gzip.decompress((DATA / "bao-la-kete.jsonl.gz").read_bytes()).decode().splitlines()
    # Line 2 (North's first move) claims one legal move too few.
    lines[1] = lines[1].replace('"legal":["b3+",', '"legal":[', 1)
    result = subprocess.run(
        [str(built / "check-rules"), "bao-la-kete"],
        input="\n".join(lines[:5]) + "\n",
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "line 2: legal moves differs",
        "  file: b3- c3+ c3-",
        "  ours: b3+ b3- c3+ c3-",
    ]


def test_the_engine_answers_the_handshake_and_plays_a_legal_move(built: Path) -> None:
    script = "bep\nnewgame bao-kingulu\nposition startpos moves c1\nisready\ngo movetime 50\nquit\n"
    result = subprocess.run(
        [str(built / "bao-engine")], input=script, capture_output=True, text=True, timeout=30
    )
    out = result.stdout.splitlines()
    assert result.returncode == 0
    assert out[:2] == ["id name c-starter", "id author Bao Arena"]
    assert [line for line in out if line.startswith("variant ")] == [
        f"variant {v}" for v in VARIANTS
    ]
    assert "bepok" in out and "readyok" in out
    kingulu = get_variant("bao-kingulu")
    legal = kingulu.legal_moves(kingulu.apply(kingulu.initial_position(), "c1"))
    assert out[-1].startswith("bestmove ") and out[-1].split()[1] in legal


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize("variant", VARIANTS)
def test_the_packaged_engine_finishes_a_match_against_greedy_by_the_rules(
    built: Path, variant: str
) -> None:
    package = pytest.importorskip("engines.package")
    pytest.importorskip("engines.sandbox")
    assert _make(built, "package").returncode == 0
    work = built.parent
    starter = package.load_engine(built / "engine.zip", unpack_dir=work / f"unpacked-{variant}")
    greedy = package.load_engine(
        REPO / "engines" / "bundled" / "greedy", unpack_dir=work / f"greedy-{variant}"
    )
    record = play_match(starter, greedy, variant, TimeControl.parse("2+0.05"), 1, RefereeConfig())
    assert not record.aborted
    assert 2 <= len(record.games) <= 3
    for game in record.games:
        assert game.termination in T.RULES_TERMINATIONS, game.detail
    assert sum(record.score) == len(record.games)
