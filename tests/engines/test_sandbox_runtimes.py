"""The runtimes a worker offers (engines/sandbox/runtimes.py) and the /etc links the sandbox
shows so that ``java`` on ``PATH`` works (engines/sandbox/commands.py).

The real runs start programs in the sandbox as an engine would; each is skipped, naming why,
where the host lacks the sandbox or the runtime (CI installs node and a JDK:
scripts/install-toolchains.sh).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from engines.package import EnginePackage
from engines.sandbox import SandboxConfig, commands, probe, runtimes

_found = probe()
needs_bwrap = pytest.mark.skipif(
    not _found.bwrap_ok, reason=f"bwrap does not work here: {_found.bwrap_reason}"
)


def host_version(argv: list[str], pattern: str) -> str | None:
    """The version ``argv`` prints on the host (outside any sandbox), or None if absent."""
    if shutil.which(argv[0], path="/usr/bin:/bin") is None:
        return None
    done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=30)
    found = re.search(pattern, done.stdout + done.stderr, re.MULTILINE)
    return found.group(1) if found else None


@pytest.fixture
def world_dir() -> Iterator[Path]:
    """A directory the unprivileged engine uid can read (pytest's tmp_path is root-only)."""
    path = Path(tempfile.mkdtemp(prefix="bao-runtimes-test-"))
    os.chmod(path, 0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


# --------------------------------------------------------------------------- /etc links


def test_etc_link_dirs_follows_each_chain_into_etc_and_keeps_the_outermost(
    tmp_path: Path,
) -> None:
    usr, etc = tmp_path / "usr", tmp_path / "etc"
    for d in ("bin", "lib/jvm/jdk/bin", "lib/jvm/jdk/lib"):
        (usr / d).mkdir(parents=True)
    for d in ("alternatives", "java-17/security", "ssl/certs/java"):
        (etc / d).mkdir(parents=True)
    (usr / "lib/jvm/jdk/bin/java").write_text("")
    (etc / "alternatives/java").symlink_to(usr / "lib/jvm/jdk/bin/java")
    (usr / "bin/java").symlink_to(etc / "alternatives/java")
    (usr / "lib/jvm/jdk/lib/jvm.cfg").symlink_to(etc / "java-17/jvm.cfg")
    (usr / "lib/jvm/jdk/lib/java.security").symlink_to(etc / "java-17/security/java.security")
    (usr / "lib/jvm/jdk/lib/cacerts").symlink_to(etc / "ssl/certs/java/cacerts")
    (usr / "bin/passwd-link").symlink_to(etc / "passwd")  # straight into /etc: never shown
    (usr / "bin/local").symlink_to("../lib/jvm/jdk/bin/java")  # stays in /usr

    found = commands.etc_link_dirs((str(usr / "bin"), str(usr / "lib/jvm")), str(etc))

    assert found == [str(etc / "alternatives"), str(etc / "java-17"), str(etc / "ssl/certs/java")]


def test_etc_link_dirs_is_empty_without_links_into_etc(tmp_path: Path) -> None:
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin/tool").write_text("")
    assert commands.etc_link_dirs((str(tmp_path / "bin"),), str(tmp_path / "etc")) == []


def test_the_bwrap_sandbox_mounts_each_etc_link_dir_read_only() -> None:
    base = commands.BWRAP_BASE
    pairs = [tuple(base[i : i + 3]) for i in range(len(base) - 2)]
    for path in commands.etc_link_dirs():
        assert ("--ro-bind-try", path, path) in pairs
    assert ("--ro-bind-try", "/etc", "/etc") not in pairs


# --------------------------------------------------------------------------- what a command needs


def package(root: Path, *argv: str) -> EnginePackage:
    return EnginePackage("t", root, tuple(argv))


def test_a_bare_command_word_needs_that_program(tmp_path: Path) -> None:
    assert runtimes.required_programs(package(tmp_path, "ruby", "x.rb")) == ["ruby"]
    assert runtimes.required_programs(package(tmp_path, *runtimes.JAVA_COMMAND)) == ["java"]


def test_a_script_needs_its_interpreter_through_env_or_by_path(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("#!/usr/bin/env -S node --stack-size=500\n")
    (tmp_path / "b").write_text("#!/usr/local/bin/python3.12 -u\nprint()\n")
    (tmp_path / "c").write_text("#!\n")
    assert runtimes.required_programs(package(tmp_path, "./a")) == ["node"]
    assert runtimes.required_programs(package(tmp_path, "./b")) == ["/usr/local/bin/python3.12"]
    assert runtimes.required_programs(package(tmp_path, "./c")) == []


def test_an_elf_binary_needs_libc_when_dynamic_and_libstdcxx_when_it_links_it(
    tmp_path: Path,
) -> None:
    header = b"\x7fELF\x02\x01\x01" + b"\0" * 57 + b"/lib64/ld-linux-x86-64.so.2\0"
    (tmp_path / "c").write_bytes(header + b"libc.so.6\0")
    (tmp_path / "cxx").write_bytes(header + b"libstdc++.so.6\0libc.so.6\0")
    (tmp_path / "static").write_bytes(b"\x7fELF\x02\x01\x01" + b"\0" * 200)
    assert runtimes.required_programs(package(tmp_path, "./c")) == ["libc"]
    assert runtimes.required_programs(package(tmp_path, "./cxx")) == ["libc", "libstdc++"]
    assert runtimes.required_programs(package(tmp_path, "./static")) == []


def test_programs_map_to_the_runtime_of_the_table_or_none() -> None:
    assert runtimes.runtime_for("python3") == "python"
    assert runtimes.runtime_for("/usr/bin/python3") == "python"
    assert runtimes.runtime_for("nodejs") == "node"
    assert runtimes.runtime_for("java") == "java"
    assert runtimes.runtime_for("libstdc++") == "libstdc++"
    assert runtimes.runtime_for("ruby") is None
    assert runtimes.runtime_for("/usr/local/bin/python3.12") is None


def test_only_programs_inside_usr_are_on_the_sandbox_path() -> None:
    assert runtimes.program_on_sandbox_path("env")
    assert runtimes.program_on_sandbox_path("/usr/bin/env")
    assert not runtimes.program_on_sandbox_path("no-such-program-bao")
    assert not runtimes.program_on_sandbox_path("/usr/local/bin/no-such-python")


# --------------------------------------------------------------------------- real sandbox runs


def run_in_sandbox(root: Path, *argv: str) -> tuple[int | None, str]:
    """Start ``argv`` in the bwrap sandbox as an engine; (exit status, stdout + stderr)."""
    from engines.sandbox import start_engine

    engine = start_engine(package(root, *argv), SandboxConfig(mode="bwrap"))
    try:
        status = engine.wait(30)
        out = os.read(engine.stdout_fd, 1 << 16).decode(errors="replace")
        return status, out + engine.stderr_tail()
    finally:
        engine.kill()


@pytest.mark.slow
@needs_bwrap
def test_java_on_path_starts_in_the_sandbox_with_the_starter_flags(world_dir: Path) -> None:
    version = host_version(["java", "-version"], r'version "([^"]+)"')
    if version is None:
        pytest.skip("no java on this host (scripts/install-toolchains.sh installs a JDK)")
    status, text = run_in_sandbox(world_dir, *runtimes.JAVA_COMMAND, "-version")
    assert status == 0, text
    assert f'version "{version}"' in text


@pytest.mark.slow
@needs_bwrap
def test_node_on_path_starts_in_the_sandbox(world_dir: Path) -> None:
    version = host_version(["node", "--version"], r"^v(\S+)")
    if version is None:
        pytest.skip("no node on this host (scripts/install-toolchains.sh installs nodejs)")
    status, text = run_in_sandbox(world_dir, "node", "--version")
    assert (status, text.strip()) == (0, f"v{version}")


@pytest.mark.slow
@needs_bwrap
def test_the_probe_reports_what_the_host_has_and_nothing_it_lacks() -> None:
    missing = runtimes.RuntimeSpec("ruby", "ruby", ("ruby",), ("ruby", "--version"), r"(\S+)")
    found = runtimes.probe_runtimes(SandboxConfig(mode="bwrap"), (*runtimes.RUNTIMES, missing))
    by_name = {r.name: r for r in found}
    python = host_version(["/usr/bin/python3", "--version"], r"Python (\S+)")
    assert by_name["python"] == runtimes.Runtime("python", python or "", "python3")
    assert by_name["libc"].version == host_version(["getconf", "GNU_LIBC_VERSION"], r"glibc (\S+)")
    node = host_version(["node", "--version"], r"^v(\S+)")
    assert (by_name["node"].version if "node" in by_name else None) == node
    java = host_version(["java", "-version"], r'version "([^"]+)"')
    assert (by_name["java"].version if "java" in by_name else None) == java
    assert "ruby" not in by_name
    assert [r.name for r in found] == [n for n in runtimes.RUNTIME_NAMES if n in by_name]
