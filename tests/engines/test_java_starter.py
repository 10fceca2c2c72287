"""The Java starter (engines/examples/java): its manifest starts the JVM the sandbox allows,
``make check`` passes, and the packaged engine plays every variant in the real sandbox through
the real referee, from the legal moves it asks for.

The slow tests need a JDK and make (CI: scripts/install-toolchains.sh); they are skipped,
naming what is missing, where the host lacks them.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from arena import terminations as T
from arena.referee import EngineSlot, RefereeConfig, TimeControl, play_game
from arena.rules import VARIANTS
from engines.package import load_engine
from engines.sandbox import SandboxConfig, probe
from engines.sandbox.runtimes import JAVA_COMMAND

REPO = Path(__file__).resolve().parents[2]
STARTER = REPO / "engines" / "examples" / "java"

_found = probe()


def test_the_manifest_starts_java_with_the_flags_the_probe_uses() -> None:
    manifest = json.loads((STARTER / "bao-engine.json").read_text())
    assert manifest["name"] == "java-starter"
    assert manifest["command"] == [*JAVA_COMMAND, "-jar", "starter.jar"]


def test_the_readme_explains_every_flag_of_the_command() -> None:
    readme = (STARTER / "README.md").read_text()
    for word in JAVA_COMMAND[1:]:
        assert f"`{word}`" in readme, word


def make(*targets: str) -> subprocess.CompletedProcess[str]:
    missing = [tool for tool in ("make", "javac", "jar", "java") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"no {', '.join(missing)} here (scripts/install-toolchains.sh installs a JDK)")
    return subprocess.run(
        ["make", "-s", "-C", str(STARTER), *targets],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.slow
def test_make_check_runs_its_own_tests_and_make_package_writes_the_upload() -> None:
    done = make("check", "package")
    assert done.returncode == 0, done.stderr
    assert re.search(r"^StarterTest: \d+ checks passed$", done.stdout, re.MULTILINE), done.stdout
    with tempfile.TemporaryDirectory(prefix="bao-java-starter-") as tmp:
        package = load_engine(STARTER / "engine.zip", unpack_dir=Path(tmp) / "engine")
        assert package.argv == (*JAVA_COMMAND, "-jar", "starter.jar")
        assert sorted(p.name for p in package.root.iterdir()) == [
            "bao-engine.json",
            "starter.jar",
        ]


@pytest.mark.slow
@pytest.mark.skipif(not _found.bwrap_ok, reason=f"bwrap does not work here: {_found.bwrap_reason}")
@pytest.mark.parametrize("variant", VARIANTS)
def test_the_packaged_starter_plays_a_whole_game_in_the_sandbox(variant: str) -> None:
    done = make("package")
    assert done.returncode == 0, done.stderr
    config = RefereeConfig(sandbox=SandboxConfig(mode="bwrap", require_full=True))
    with tempfile.TemporaryDirectory(prefix="bao-java-starter-") as tmp:
        java = load_engine(STARTER / "engine.zip", unpack_dir=Path(tmp) / "java")
        rival = load_engine(REPO / "engines" / "bundled" / "random", unpack_dir=Path(tmp) / "r")
        south, north = EngineSlot(java, "java", config), EngineSlot(rival, "random", config)
        try:
            record = play_game(variant, south, north, TimeControl.parse("5+0.1"), config)
        finally:
            south.close()
            north.close()
    # The game ends by the rules, never by a fault of the starter.
    assert record.termination not in T.ENGINE_FAULTS or record.winner == "java", record.detail
    assert record.termination != T.ABORTED, record.detail
    assert len(record.moves) >= 2
