"""The bwrap sandbox's hardening, tried by a hostile engine (``hostile/escape.py``) in a real
sandbox: no nested user namespace, the seccomp filter's refusals (``EPERM``, not a kill), and
a pid 1 that is the engine itself, so ``/proc/1`` shows nothing of the host."""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from engines import sandbox
from engines.package import EnginePackage
from engines.sandbox import SandboxConfig, commands, probe, seccomp, start_engine

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
_found = probe()
needs_bwrap = pytest.mark.skipif(
    not _found.bwrap_ok, reason=f"bwrap does not work here: {_found.bwrap_reason}"
)
needs_seccomp = pytest.mark.skipif(bool(_found.seccomp_reason), reason=_found.seccomp_reason)

REFUSED = [
    "unshare",
    "clone(CLONE_NEWUSER)",
    "ptrace(ATTACH, 1)",
    "ptrace(TRACEME)",
    "socket(AF_NETLINK)",
    "socket(AF_INET)",
    "keyctl",
    "bpf",
    "mount",
    "perf_event_open",
    "userfaultfd",
    "process_vm_readv",
]


@contextlib.contextmanager
def run_escape(mode: str) -> Iterator[tuple[dict[str, object], str, int]]:
    """What ``hostile/escape.py`` found in one sandbox of ``mode``; its world-readable root;
    its uid. Every process is gone after."""
    root = Path(tempfile.mkdtemp(prefix="bao-seccomp-test-"))
    os.chmod(root, 0o755)
    shutil.copyfile(HERE / "hostile" / "escape.py", root / "escape.py")
    marker = f"bao-marker-{uuid.uuid4().hex}"
    package = EnginePackage("escape", root, ("python3", "escape.py", marker))
    engine = start_engine(package, SandboxConfig(mode=mode))
    try:
        ready = select.select([engine.stdout_fd], [], [], 30)[0]
        assert ready, engine.stderr_tail()
        line = os.read(engine.stdout_fd, 1 << 20).decode()
        assert line.endswith("\n"), (line, engine.stderr_tail())
        yield json.loads(line), str(root), engine.uid
    finally:
        engine.kill()
        assert engine.alive_pids() == set()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def escape() -> Iterator[tuple[dict[str, object], str, int]]:
    """``run_escape`` in bwrap."""
    if not _found.bwrap_ok:
        pytest.skip(f"bwrap does not work here: {_found.bwrap_reason}")
    with run_escape("bwrap") as found:
        yield found


def test_the_filter_compiles_to_whole_bpf_instructions() -> None:
    if _found.seccomp_reason:
        pytest.skip(_found.seccomp_reason)
    program = seccomp.build()
    # One 8-byte instruction per check: about two per refused call, with the arch checks.
    assert len(program) % 8 == 0 and len(seccomp.DENIED) < len(program) // 8 < 4096


def test_bwrap_refuses_nested_user_namespaces_with_its_own_option_too() -> None:
    options = commands.bwrap_argv(
        EnginePackage("t", Path("/x"), ("true",)),
        Path("/x"),
        Path("/l"),
        5,
        sandbox.SandboxLimits(),
    )
    assert "--unshare-user" in options and "--as-pid-1" in options
    assert "--disable-userns" in options


@needs_bwrap
def test_a_nested_user_namespace_is_refused(escape: tuple[dict[str, object], str, int]) -> None:
    found = escape[0]
    assert found["unshare -Urm id"] == "unshare: unshare failed: Operation not permitted"


@needs_bwrap
@needs_seccomp
@pytest.mark.parametrize("attempt", REFUSED)
def test_the_seccomp_filter_refuses_with_eperm(
    attempt: str, escape: tuple[dict[str, object], str, int]
) -> None:
    assert escape[0][attempt] == "EPERM"


@needs_bwrap
def test_threads_children_and_unix_sockets_still_work(
    escape: tuple[dict[str, object], str, int],
) -> None:
    found = escape[0]
    assert (found["thread"], found["fork"], found["socket(AF_UNIX)"]) == ("ok", "ok", "ok")


@needs_bwrap
def test_pid_1_is_the_engine_and_shows_no_host_path(
    escape: tuple[dict[str, object], str, int],
) -> None:
    found, root, uid = escape
    assert found["pid"] == 1
    assert str(found["/proc/1/cmdline"]).split("\0")[:2] == ["python3", "escape.py"]
    assert (found["/proc/1/root"], found["/proc/1/cwd"]) == ("/", "/engine")
    assert found["/proc/1/exe"] == os.path.realpath("/usr/bin/python3")
    assert found["/proc/1/environ"] == (
        "PATH=/usr/bin:/bin\0LANG=C.UTF-8\0HOME=/scratch\0PYTHONPATH=/bao/lib\0PWD=/engine\0"
    )
    shown = "".join(str(found[f"/proc/1/{part}"]) for part in ("cmdline", "environ", "maps"))
    for leak in (str(sandbox.STATE_DIR), root, str(REPO), "bwrap", str(uid), "/tmp"):
        assert leak not in shown, leak


@pytest.mark.skipif(not _found.mounts_ok, reason=f"no fallback mounts: {_found.mounts_reason}")
@needs_seccomp
def test_the_fallback_loads_the_same_filter() -> None:
    with run_escape("fallback") as (found, _root, _uid):
        pass
    assert {attempt: found[attempt] for attempt in REFUSED} == dict.fromkeys(REFUSED, "EPERM")
    assert found["unshare -Urm id"] == "unshare: unshare failed: Operation not permitted"
    assert (found["thread"], found["fork"], found["socket(AF_UNIX)"]) == ("ok", "ok", "ok")
