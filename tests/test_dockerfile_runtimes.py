"""The image keeps the promise of docs/runtimes.md: the Dockerfile installs the Debian package
of every runtime of the table, on Debian's own Python, and the table is the probe's table
(``engines.sandbox.runtimes.RUNTIMES``). Both files are parsed; no docker daemon is needed."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from engines.sandbox import ENGINE_PYTHON
from engines.sandbox.runtimes import JAVA_COMMAND, RUNTIME_NAMES, RUNTIMES

REPO = Path(__file__).resolve().parents[1]


def dockerfile_packages(text: str) -> list[str]:
    """The packages of every ``apt-get install`` in the Dockerfile's RUN lines."""
    joined = re.sub(r"\\\n", " ", text)
    found: list[str] = []
    for line in joined.splitlines():
        if not line.startswith("RUN "):
            continue
        for command in line[4:].split("&&"):
            words = shlex.split(command)
            if words[:2] == ["apt-get", "install"]:
                found += [w for w in words[2:] if not w.startswith("-")]
    return found


def runtimes_table(text: str) -> list[dict[str, str]]:
    """The rows of the table under "## The promised table" in docs/runtimes.md, by header."""
    section = text.split("## The promised table", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in rows[0].strip("|").split("|")]
    table = []
    for line in rows[2:]:
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        table.append(dict(zip(header, cells, strict=True)))
    return table


def unquote(cell: str) -> str:
    return cell.split("`")[1] if "`" in cell else cell


DOCKERFILE = (REPO / "Dockerfile").read_text()
TABLE = runtimes_table((REPO / "docs" / "runtimes.md").read_text())


def test_the_parsers_read_what_the_files_hold() -> None:
    assert dockerfile_packages("RUN apt-get update \\\n && apt-get install -y a \\\n  b\n") == [
        "a",
        "b",
    ]
    assert len(TABLE) == len(RUNTIMES)


def test_the_table_names_the_probed_runtimes_in_order() -> None:
    assert [unquote(row["runtime"]) for row in TABLE] == list(RUNTIME_NAMES)


def test_the_image_installs_the_package_of_every_promised_runtime_and_the_sandbox() -> None:
    packages = dockerfile_packages(DOCKERFILE)
    promised = [unquote(row["Debian package"]) for row in TABLE]
    assert promised == ["python3", "nodejs", "openjdk-17-jre-headless", "libc6", "libstdc++6"]
    assert set(promised) <= set(packages), sorted(set(promised) - set(packages))
    assert "bubblewrap" in packages
    # Nothing installed that the table does not explain, but the sandbox and the venv.
    assert set(packages) - set(promised) == {"bubblewrap", "python3-venv"}


def test_the_image_builds_on_debians_python_the_sandbox_gives_engines() -> None:
    assert re.search(r"^FROM debian:bookworm(-slim)?$", DOCKERFILE, re.MULTILINE)
    assert ENGINE_PYTHON == "/usr/bin/python3"  # what Debian's python3 package installs
    assert "python3 -m venv /opt/venv" in DOCKERFILE


def test_the_table_gives_each_command_as_the_probe_runs_it() -> None:
    commands = {unquote(row["runtime"]): row["manifest `command` starts with"] for row in TABLE}
    assert f"`{' '.join(JAVA_COMMAND)}`" == commands["java"]
    for spec in RUNTIMES:
        if spec.command and spec.name != "java":
            assert commands[spec.name].startswith(f"`{spec.command}`"), spec.name
