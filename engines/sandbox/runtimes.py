"""The runtimes a worker offers engines, probed inside the sandbox, and the one a command needs.

``RUNTIMES`` is the promised table (docs/runtimes.md): Python, node, Java and the C and C++
runtime libraries. ``probe_runtimes`` starts each runtime's probe as an engine would be started
(``start_engine``, the same sandbox config, limits and ``PATH``), so a runtime it reports is one
an engine gets: Java is probed with the command the Java starter's manifest uses
(``JAVA_COMMAND``: ``MALLOC_ARENA_MAX=2`` and ``JAVA_FLAGS``), because the bare ``java``
cannot create its JVM under the 1 GiB address-space limit.

``required_programs`` reads what a package's command needs before it runs: a program name on
the sandbox ``PATH`` (``["node", "main.js"]``), the interpreter of a ``#!`` script (through
``/usr/bin/env``), or, for an ELF binary, the C runtime (its loader) and the C++ one when it
links ``libstdc++.so.6``. ``runtime_for`` maps a program to the runtime of the table that
provides it (``None``: a program the table does not promise, e.g. ``ruby``).

Part of the sandbox (``engines.sandbox`` is the interface). Standard library only; no Django.
"""

from __future__ import annotations

import os
import re
import select
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from engines.package import EnginePackage
from engines.sandbox.config import SandboxConfig, SandboxError
from engines.sandbox.launch import start_engine

#: The JVM flags under which ``java`` starts within the sandbox's 1 GiB address-space limit
#: (``SandboxLimits.memory_bytes``); each is explained, with what it saves, in
#: engines/examples/java/README.md.
JAVA_FLAGS = (
    "-Xmx256m",
    "-XX:CompressedClassSpaceSize=64m",
    "-XX:ReservedCodeCacheSize=32m",
    "-XX:+UseSerialGC",
)
#: How a Java engine is started: glibc's malloc reserves 64 MiB of address space per arena, up
#: to 8 per core, so ``MALLOC_ARENA_MAX=2`` (set through ``env``: the sandbox scrubs the
#: environment) keeps them from eating the limit. The Java starter's manifest command is this,
#: then ``-jar starter.jar`` (a test checks it).
JAVA_COMMAND = ("env", "MALLOC_ARENA_MAX=2", "java", *JAVA_FLAGS)
#: The sandbox's ``PATH`` (``commands.base_env``): where a bare program name is looked up.
SANDBOX_PATH = ("/usr/bin", "/bin")
#: Most bytes of an ELF binary searched for its ``libstdc++.so.6`` dependency.
ELF_SCAN_BYTES = 64 << 20
#: Seconds one probe may take (a JVM's first start on a cold disk is the slowest).
PROBE_TIMEOUT_S = 20.0


@dataclass(frozen=True)
class RuntimeSpec:
    """One promised runtime. ``name``: its stable id (``python``, ``node``, ``java``, ``libc``,
    ``libstdc++``); ``command``: what a manifest's ``command`` starts with to use it ("" for a
    library, which an ELF binary loads); ``programs``: the program names and paths that mean this
    runtime; ``probe``: the argv that prints its version inside the sandbox; ``pattern``: the
    regular expression whose first group is the version, searched in stdout + stderr."""

    name: str
    command: str
    programs: tuple[str, ...]
    probe: tuple[str, ...]
    pattern: str


RUNTIMES: tuple[RuntimeSpec, ...] = (
    RuntimeSpec(
        "python",
        "python3",
        ("python3", "/usr/bin/python3", "/bin/python3"),
        ("python3", "-I", "-c", "import sys; print(sys.version.split()[0])"),
        r"^(\d+\.\d+\.\d+)",
    ),
    RuntimeSpec(
        "node",
        "node",
        ("node", "nodejs", "/usr/bin/node", "/usr/bin/nodejs", "/bin/node"),
        # Runs JavaScript, not only the binary: V8 must start under the address-space limit.
        ("node", "-e", "console.log(process.versions.node)"),
        r"^(\d+\.\d+\.\d+)",
    ),
    RuntimeSpec(
        "java",
        "java",
        ("java", "/usr/bin/java", "/bin/java"),
        (*JAVA_COMMAND, "-version"),
        r'version "([^"]+)"',
    ),
    RuntimeSpec("libc", "", ("libc",), ("getconf", "GNU_LIBC_VERSION"), r"glibc (\d+\.\d+)"),
    RuntimeSpec(
        "libstdc++",
        "",
        ("libstdc++",),
        ("find", "/usr/lib", "-maxdepth", "2", "-name", "libstdc++.so.6.*"),
        r"libstdc\+\+\.so\.(6\.\d+\.\d+)$",
    ),
)
RUNTIME_NAMES = tuple(spec.name for spec in RUNTIMES)


@dataclass(frozen=True)
class Runtime:
    """A runtime found by a probe: ``name`` of ``RUNTIMES``, its ``version`` text (``3.11.2``,
    ``17.0.15``), and the ``command`` a manifest names ("" for a library)."""

    name: str
    version: str
    command: str


def probe_runtimes(
    config: SandboxConfig, specs: tuple[RuntimeSpec, ...] = RUNTIMES
) -> list[Runtime]:
    """Run each probe of ``specs`` in the sandbox ``config`` asks for; the runtimes that
    answered with a version, in ``specs`` order. A probe that cannot start, exits non-zero, times
    out (``PROBE_TIMEOUT_S``) or prints no version means that runtime is not offered.
    Raises ``SandboxError`` when the sandbox itself cannot start engines here."""
    root = Path(tempfile.mkdtemp(prefix="bao-runtime-probe-"))
    os.chmod(root, 0o755)  # the leased engine uid must read it
    try:
        found = []
        for spec in specs:
            version = _probe_one(spec, root, config)
            if version:
                found.append(Runtime(spec.name, version, spec.command))
        return found
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _probe_one(spec: RuntimeSpec, root: Path, config: SandboxConfig) -> str:
    package = EnginePackage(f"runtime-{spec.name}", root, spec.probe)
    engine = start_engine(package, config)  # SandboxError: the sandbox itself is broken
    try:
        out = b""
        deadline = time.monotonic() + PROBE_TIMEOUT_S
        while (left := deadline - time.monotonic()) > 0:
            if not select.select([engine.stdout_fd], [], [], left)[0]:
                break
            chunk = os.read(engine.stdout_fd, 65536)
            if not chunk:
                break
            out += chunk
        status = engine.wait(max(0.0, deadline - time.monotonic()))
        text = out.decode("utf-8", "replace") + "\n" + engine.stderr_tail()
    finally:
        engine.kill()
    if status != 0:
        return ""
    match = re.search(spec.pattern, text, re.MULTILINE)
    return match.group(1) if match else ""


_here_lock = threading.Lock()
_here: dict[tuple[str, SandboxConfig], Runtime | None] = {}


def offered_here(name: str, config: SandboxConfig) -> Runtime | None:
    """The runtime ``name`` of ``RUNTIMES`` as the sandbox ``config`` offers it on this host, or
    None; probed once per process and name (``probe_runtimes``), then remembered (a runtime
    installed later counts once the worker restarts). Raises
    ``KeyError`` for a name not in the table, ``SandboxError`` as ``probe_runtimes``."""
    spec = next((s for s in RUNTIMES if s.name == name), None)
    if spec is None:
        raise KeyError(name)
    with _here_lock:
        if (name, config) not in _here:
            found = probe_runtimes(config, (spec,))
            _here[(name, config)] = found[0] if found else None
        return _here[(name, config)]


def runtime_for(program: str) -> str | None:
    """The name of the runtime of ``RUNTIMES`` that provides ``program`` (a bare name, a path,
    or ``libc``/``libstdc++``), or None when the table promises no such program."""
    for spec in RUNTIMES:
        if program in spec.programs:
            return spec.name
    return None


def required_programs(package: EnginePackage) -> list[str]:
    """What ``package``'s command needs from the host, in the order it is needed: a program
    name looked up on ``SANDBOX_PATH`` (``node``), an absolute interpreter path
    (``/usr/local/bin/python3.12``), ``libc`` and ``libstdc++`` for a dynamically linked ELF
    binary. [] for a static binary or an unreadable file (the start then shows the fault)."""
    first = package.argv[0]
    if first in ("env", "/usr/bin/env", "/bin/env"):
        return _after_env(package.argv[1:])
    if "/" not in first:
        return [first]
    path = Path(package.root) / first
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return []
    if head.startswith(b"#!"):
        return _interpreter(head)
    if head.startswith(b"\x7fELF"):
        return _elf_needs(path)
    return []


def _interpreter(head: bytes) -> list[str]:
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if not words:
        return []
    if PurePosixPath(words[0]).name == "env":
        return _after_env(words[1:])
    return [words[0]]


def _after_env(words: list[str] | tuple[str, ...]) -> list[str]:
    """The program ``env [-S] [NAME=value]... program ...`` runs, looked up on PATH."""
    rest = [w for w in words if not w.startswith("-") and "=" not in w]
    return [rest[0]] if rest else ["env"]


def _elf_needs(path: Path) -> list[str]:
    # A program header of type PT_INTERP names the dynamic loader: the binary needs libc. The
    # libstdc++ soname among its strings is how a C++ binary's dependency shows (static ones
    # have no loader and need nothing).
    if b"ld-linux" not in _read(path, 1 << 16):
        return []
    needs = ["libc"]
    if b"libstdc++.so.6\0" in _read(path, ELF_SCAN_BYTES):
        needs.append("libstdc++")
    return needs


def _read(path: Path, size: int) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read(size)
    except OSError:
        return b""


def program_on_sandbox_path(program: str) -> bool:
    """True if ``program`` (a bare name, looked up on ``SANDBOX_PATH``, or an absolute path)
    is an executable file an engine can reach on this host: inside ``/usr`` or the top-level
    links to it (the only host tree the sandbox mounts), or a promised library."""
    if program in ("libc", "libstdc++"):
        return True
    if "/" not in program:
        return any(os.access(f"{d}/{program}", os.X_OK) for d in SANDBOX_PATH)
    real = os.path.realpath(program)
    return real.startswith("/usr/") and os.path.isfile(real) and os.access(real, os.X_OK)


__all__ = [
    "JAVA_COMMAND",
    "JAVA_FLAGS",
    "RUNTIMES",
    "RUNTIME_NAMES",
    "Runtime",
    "RuntimeSpec",
    "SandboxError",
    "offered_here",
    "probe_runtimes",
    "program_on_sandbox_path",
    "required_programs",
    "runtime_for",
]
