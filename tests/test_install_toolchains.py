"""scripts/install-toolchains.sh: silent when every toolchain is there, and it names exactly
the Debian packages of the missing ones (run unprivileged here, so nothing is installed)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def work() -> Iterator[Path]:
    """A directory the unprivileged uid may enter (pytest's tmp_path is root's alone)."""
    path = Path(tempfile.mkdtemp(prefix="bao-toolchains-test-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "install-toolchains.sh"
TOOLS = ("make", "gcc", "cargo", "rustc", "node", "javac")


def _run(
    tools: tuple[str, ...], work: Path, *, as_nobody: bool = False
) -> subprocess.CompletedProcess[str]:
    """The script (a copy in ``work``, which the unprivileged uid can read wherever the checkout
    is) with a PATH holding only stand-ins of ``tools`` (and ``id``)."""
    script = work / SCRIPT.name
    shutil.copy(SCRIPT, script)
    script.chmod(0o755)
    bin_dir = work / "bin"
    bin_dir.mkdir()
    for tool in tools:
        stub = bin_dir / tool
        stub.write_text("#!/bin/sh\nexit 0\n")
        stub.chmod(0o755)
    os.symlink(shutil.which("id") or "/usr/bin/id", bin_dir / "id")
    setpriv = shutil.which("setpriv") or "/usr/bin/setpriv"
    prefix = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"] if as_nobody else []
    return subprocess.run(
        [*prefix, "/bin/sh", str(script)],
        env={"PATH": str(bin_dir)},
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_it_prints_nothing_and_succeeds_when_every_toolchain_is_there(work: Path) -> None:
    done = _run(TOOLS, work)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_it_names_the_debian_packages_of_what_is_missing(work: Path) -> None:
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        pytest.skip("root, and no setpriv to run the script unprivileged")
    done = _run(("make", "gcc", "rustc"), work, as_nobody=os.geteuid() == 0)
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == (
        "install-toolchains: missing cargo nodejs default-jdk-headless and we are not root; "
        "run: apt-get install -y cargo nodejs default-jdk-headless\n"
    )
