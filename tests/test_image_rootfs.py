"""The sandbox run as a compose worker would run it: inside a root filesystem made from the
Dockerfile's Debian packages (scripts/image-rootfs.sh), the image's own /usr/bin/python3 probes
the runtimes in the full bwrap sandbox and finds every runtime of docs/runtimes.md at the
version its table states, and the Java and JavaScript starters play there.

Slow, and skipped unless ``BAO_IMAGE_ROOTFS`` names such a root filesystem (build one with
``scripts/image-rootfs.sh DIR``: about 3 minutes, 630 MB, root and network).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from engines.sandbox.runtimes import RUNTIME_NAMES

from .test_dockerfile_runtimes import TABLE, unquote

REPO = Path(__file__).resolve().parents[1]
ROOTFS = os.environ.get("BAO_IMAGE_ROOTFS", "")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not ROOTFS or not Path(ROOTFS, "usr/bin/python3").exists(),
        reason="BAO_IMAGE_ROOTFS names no root filesystem (scripts/image-rootfs.sh DIR makes one)",
    ),
]

PROBE = """
import json
from engines.sandbox import SandboxConfig
from engines.sandbox.runtimes import probe_runtimes
found = probe_runtimes(SandboxConfig(mode="bwrap", require_full=True))
print(json.dumps([[r.name, r.version] for r in found]))
"""


def in_image(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(REPO / "scripts" / "image-rootfs.sh"), "--run", ROOTFS, "--", *argv],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_image_offers_every_promised_runtime_at_the_version_of_the_table() -> None:
    done = in_image("/usr/bin/python3", "-c", PROBE)
    assert done.returncode == 0, done.stderr
    found = dict(json.loads(done.stdout))
    assert list(found) == list(RUNTIME_NAMES)
    for row in TABLE:
        name, version = unquote(row["runtime"]), row["version in the image"].split()[0]
        if version.endswith(".x"):  # "17.0.x": any update of 17.0
            assert found[name].startswith(version[:-1]), (name, found[name], version)
        else:
            assert found[name] == version, (name, found[name], version)


@pytest.mark.parametrize("starter", ["java", "js"])
def test_a_starter_plays_a_match_in_the_image(starter: str) -> None:
    build = subprocess.run(
        ["make", "-s", "-C", str(REPO / "engines" / "examples" / starter), "package"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if build.returncode != 0:
        pytest.skip(f"cannot build the {starter} starter here: {build.stderr[-300:]}")
    done = in_image(
        "/usr/bin/python3", "-m", "arena.referee", "--variant", "bao-la-kete", "--time",
        "5+0.1", "--engine", f"engines/examples/{starter}/engine.zip",
        "--engine", "engines/bundled/random",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    games = [line for line in done.stdout.splitlines() if line.startswith("game ")]
    assert len(games) >= 2, done.stdout
    for line in games:
        assert line.split()[-3] in ("bao_hamna", "no_legal_move", "repetition", "ply_cap"), line
