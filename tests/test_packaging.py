"""The package of pyproject.toml: ``pip install .`` gives ``bao-match`` with numpy, scipy and
pyseccomp (the sandbox's filter, ctypes over libseccomp) as its only dependencies (no Django,
Celery or database); ``.[service]`` adds the service's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _project() -> dict[str, object]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]  # type: ignore[no-any-return]


def test_the_core_and_the_service_extra_together_are_the_requirements() -> None:
    project = _project()
    core = project["dependencies"]
    service = project["optional-dependencies"]["service"]  # type: ignore[index]
    assert core == ["numpy>=2.2", "pyseccomp>=0.1.2", "scipy>=1.17"]
    required = [
        line.strip()
        for line in (ROOT / "requirements.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert sorted([*core, *service]) == sorted(required)  # type: ignore[misc]
    assert project["scripts"] == {"bao-match": "arena.bao_match.cli:main"}


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_pip_install_gives_bao_match_without_django(tmp_path: Path) -> None:
    # The tracked files as they are in the work tree (not the checkout itself: a build would
    # leave build/ and *.egg-info in it).
    src = tmp_path / "src"
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    for name in filter(None, listed):
        path = ROOT / os.fsdecode(name)
        if path.is_file():
            (src / path.relative_to(ROOT)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, src / path.relative_to(ROOT))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    # Build isolation fetches setuptools; numpy and scipy come from the index (PyPI or the
    # machine's pip configuration) or pip's cache.
    subprocess.run([str(py), "-m", "pip", "install", "-q", str(src)], check=True, cwd=tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "DJANGO"))}
    run = {"cwd": tmp_path, "env": env, "capture_output": True, "text": True}
    freeze = subprocess.run([str(py), "-m", "pip", "list", "--format=json"], **run)  # type: ignore[call-overload]
    installed = {p["name"].lower() for p in json.loads(freeze.stdout)}
    assert installed - {"pip", "setuptools"} == {"bao-arena", "numpy", "pyseccomp", "scipy"}
    no_django = subprocess.run([str(py), "-c", "import django"], **run)  # type: ignore[call-overload]
    assert no_django.returncode == 1 and "No module named 'django'" in no_django.stderr
    help_ = subprocess.run([str(venv / "bin" / "bao-match"), "--help"], **run)  # type: ignore[call-overload]
    assert help_.returncode == 0 and help_.stdout.startswith("usage: bao-match")
    where = subprocess.run(
        [str(py), "-c", "import engines, os; print(os.path.dirname(engines.__file__))"], **run
    )  # type: ignore[call-overload]
    bundled = Path(where.stdout.strip()) / "bundled"
    assert not bundled.is_relative_to(ROOT)
    summary = tmp_path / "summary.json"
    match = subprocess.run(  # type: ignore[call-overload]
        [
            str(venv / "bin" / "bao-match"),
            "--engine",
            str(bundled / "greedy"),
            "--engine",
            str(bundled / "random"),
            # A third engine: a round robin, rated by the fit (without threadpoolctl here).
            "--engine",
            str(bundled / "greedy"),
            "--time",
            "movetime=10",
            "--pairs",
            "1",
            "--json",
            str(summary),
        ],
        **run,
    )
    assert match.returncode == 0, match.stderr
    assert "Ratings after 6 games" in match.stdout
    ratings = json.loads(summary.read_text())["ratings"]["ratings"]
    assert sorted(r["name"] for r in ratings) == ["greedy", "greedy-2", "random"]
