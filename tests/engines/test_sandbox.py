"""The sandbox against small hostile programs (tests/engines/hostile/).

Every mode this host allows is tested.

Each test runs real processes and ends by checking that no process of the engine is left, both
through ``EngineProcess.alive_pids()`` and by scanning /proc for the marker word every hostile
script carries in its argv.
"""

from __future__ import annotations

import json
import logging
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.rules import VARIANTS
from engines import sandbox
from engines.package import EnginePackage
from engines.sandbox import (
    EngineProcess,
    SandboxConfig,
    SandboxError,
    SandboxLimits,
    probe,
    start_engine,
)

HERE = Path(__file__).resolve().parent
HOSTILE = HERE / "hostile"
REPO = HERE.parent.parent

_found = probe()
SANDBOXED = [
    pytest.param(
        "bwrap",
        marks=pytest.mark.skipif(
            not _found.bwrap_ok,
            reason=f"bwrap does not work here: {_found.bwrap_reason}",
        ),
    ),
    pytest.param(
        "fallback",
        marks=pytest.mark.skipif(
            not _found.root, reason="the fallback sandbox needs root to switch uids"
        ),
    ),
]
needs_root = pytest.mark.skipif(
    not _found.root, reason="the sandbox needs root to lease engine uids"
)


# --------------------------------------------------------------------------- helpers


@pytest.fixture
def world_dir() -> Iterator[Path]:
    """A directory the unprivileged engine uid can read (pytest's tmp_path is root-only)."""
    path = Path(tempfile.mkdtemp(prefix="bao-sandbox-test-"))
    os.chmod(path, 0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def hostile(root: Path, script: str, *args: str) -> tuple[EnginePackage, str]:
    """A package running hostile/<script> with a fresh marker word as its first argument."""
    marker = f"bao-marker-{uuid.uuid4().hex}"
    shutil.copyfile(HOSTILE / script, root / script)
    os.chmod(root / script, 0o644)
    return EnginePackage(name=script, root=root, argv=("python3", script, marker, *args)), marker


def marker_pids(marker: str, python_only: bool = False) -> set[int]:
    """Live pids whose command line holds ``marker`` (zombies have an empty command line).

    ``python_only``: just the engine's own Python processes, not the sandbox wrappers
    (bwrap, unshare) whose argv also holds the engine's command."""
    found = set()
    needle = marker.encode()
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/cmdline", "rb") as fh:
                    cmdline = fh.read()
            except OSError:
                continue
            if needle in cmdline and (not python_only or cmdline.startswith(b"python3\0")):
                found.add(int(name))
    return found


def engine_pids(marker: str) -> set[int]:
    return marker_pids(marker, python_only=True)


def read_lines(engine: EngineProcess, count: int, timeout: float = 10.0) -> list[str]:
    """The next ``count`` stdout lines (fewer at EOF or timeout)."""
    buf = b""
    deadline = time.monotonic() + timeout
    while buf.count(b"\n") < count:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([engine.stdout_fd], [], [], left)[0]:
            break
        chunk = os.read(engine.stdout_fd, 65536)
        if not chunk:
            break
        buf += chunk
    return buf.decode().splitlines()[:count]


def running(pid: int) -> bool:
    """True if ``pid`` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def wait_for(predicate, timeout: float = 5.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return bool(predicate())


def assert_all_gone(engine: EngineProcess, marker: str) -> None:
    engine.kill()
    assert engine.alive_pids() == set()
    assert marker_pids(marker) == set()


# --------------------------------------------------------------------------- processes


@pytest.mark.slow
@pytest.mark.parametrize("mode", SANDBOXED)
def test_children_that_keep_running_and_a_daemon_are_all_gone_after_kill(
    mode: str, world_dir: Path
) -> None:
    package, marker = hostile(world_dir, "fork_children.py")
    engine = start_engine(package, SandboxConfig(mode=mode))
    assert engine.mode == mode
    assert read_lines(engine, 1) == ["forked 3"]
    # The parent, two children and the daemon grandchild (the third child was reaped).
    assert len(engine_pids(marker)) == 4
    assert marker_pids(marker) <= engine.alive_pids()
    assert_all_gone(engine, marker)
    assert engine.poll() == -signal.SIGKILL


@pytest.mark.parametrize("mode", SANDBOXED)
def test_an_engine_that_ignores_sigterm_and_stdin_eof_is_killed(mode: str, world_dir: Path) -> None:
    package, marker = hostile(world_dir, "ignore_term.py")
    with start_engine(package, SandboxConfig(mode=mode)) as engine:
        assert read_lines(engine, 1) == ["ready"]
        engine.stdin.close()
        assert read_lines(engine, 1) == ["eof"]
        for pid in engine_pids(marker):
            os.kill(pid, signal.SIGTERM)
        assert engine.wait(0.3) is None  # still running
    assert engine.alive_pids() == set()
    assert marker_pids(marker) == set()
    assert engine.wait(0) == -signal.SIGKILL
    engine.kill()  # idempotent


@pytest.mark.slow
@pytest.mark.parametrize("mode", SANDBOXED)
def test_all_engine_processes_die_with_a_killed_referee(mode: str, world_dir: Path) -> None:
    _package, marker = hostile(world_dir, "fork_children.py")
    referee = subprocess.Popen(
        [sys.executable, str(HERE / "dying_referee.py"), mode, str(world_dir), marker],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert referee.stdout is not None
        engine_pid, said = referee.stdout.readline().decode().split(" ", 1)
        assert said.strip() == "forked 3"
        assert len(engine_pids(marker)) == 4
        referee.kill()
        referee.wait(5)
        assert wait_for(lambda: not marker_pids(marker), timeout=3.0), marker_pids(marker)
        assert wait_for(lambda: not running(int(engine_pid)))
    finally:
        referee.kill()
        referee.wait(5)


@pytest.mark.parametrize("mode", SANDBOXED)
def test_exit_codes_and_signal_deaths_read_like_popen(mode: str, world_dir: Path) -> None:
    code = EnginePackage(
        name="three", root=world_dir, argv=("python3", "-c", "raise SystemExit(3)")
    )
    # A real fault: in the fallback the engine is its pid namespace's init, which the kernel
    # shields from signals it sends itself (os.kill(os.getpid(), SIGSEGV) would be ignored).
    segv = EnginePackage(
        name="segv",
        root=world_dir,
        argv=("python3", "-c", "import ctypes; ctypes.string_at(0)"),
    )
    with start_engine(code, SandboxConfig(mode=mode)) as engine:
        assert engine.wait(10) == 3
    with start_engine(segv, SandboxConfig(mode=mode)) as engine:
        assert engine.wait(10) == -signal.SIGSEGV


# --------------------------------------------------------------------------- isolation


@pytest.mark.parametrize("mode", SANDBOXED)
def test_the_network_is_unreachable_inside(mode: str, world_dir: Path) -> None:
    if mode == "fallback" and not _found.unshare_ok:
        pytest.skip(f"fallback without namespaces has network: {_found.unshare_reason}")
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = str(listener.getsockname()[1])
        package, marker = hostile(world_dir, "connect.py", port, "5432", "6379")
        engine = start_engine(package, SandboxConfig(mode=mode))
        lines = read_lines(engine, 4)
    # bwrap brings up a private loopback (refused); unshare leaves it down (unreachable).
    err = "ECONNREFUSED" if mode == "bwrap" else "ENETUNREACH"
    assert lines == [f"{port} {err}", f"5432 {err}", f"6379 {err}", "done"]
    assert_all_gone(engine, marker)


def test_the_same_listener_is_reachable_without_a_sandbox(world_dir: Path) -> None:
    # Shows the network test can fail: mode "off" reaches the host's loopback.
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = str(listener.getsockname()[1])
        package, marker = hostile(world_dir, "connect.py", port)
        engine = start_engine(package, SandboxConfig(mode="off"))
        assert read_lines(engine, 2) == [f"{port} ok", "done"]
    assert_all_gone(engine, marker)


@pytest.mark.parametrize("mode", SANDBOXED)
def test_files_outside_the_sandbox_cannot_be_read(mode: str, world_dir: Path) -> None:
    other = Path(tempfile.mkdtemp(prefix="bao-other-engine-"))  # 0700, like another engine's dir
    secret = world_dir.parent / f"bao-secret-{uuid.uuid4().hex}"
    secret.write_text("DATABASE_URL=postgres://arena:hunter2@db/arena\n")
    os.chmod(secret, 0o600)
    try:
        paths = ["/etc/shadow", "/root", str(secret), str(other)]
        package, marker = hostile(
            world_dir,
            "read_files.py",
            *paths,
            str(REPO / "requirements.txt"),
            str(REPO),
        )
        engine = start_engine(package, SandboxConfig(mode=mode))
        lines = read_lines(engine, len(paths) + 3)
        if mode == "bwrap":  # none of it is even mounted
            assert lines == [f"{p} ENOENT" for p in (*paths, REPO / "requirements.txt", REPO)] + [
                "done"
            ]
        else:  # the fallback shows the host; file modes keep the engine uid out
            assert lines[: len(paths)] == [f"{p} EACCES" for p in paths]
        assert_all_gone(engine, marker)
    finally:
        secret.unlink()
        shutil.rmtree(other)


@pytest.mark.parametrize("mode", SANDBOXED)
def test_the_engine_sees_a_scrubbed_environment_its_own_uid_and_read_only_files(
    mode: str, world_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgres://arena:hunter2@db/arena")
    monkeypatch.setenv("DJANGO_SECRET_KEY", "s3cret")
    package, marker = hostile(world_dir, "facts.py")
    engine = start_engine(package, SandboxConfig(mode=mode))
    lines = read_lines(engine, 1)
    assert len(lines) == 1, engine.stderr_tail()
    facts = json.loads(lines[0])
    assert engine.uid >= sandbox.UID_BASE
    assert (facts["uid"], facts["euid"], facts["gid"]) == (
        engine.uid,
        engine.uid,
        engine.uid,
    )
    assert facts["variants"] == list(VARIANTS)
    assert facts["executable"] == "/usr/bin/python3"
    assert facts["write_home"] == "ok"
    assert facts["write_tmp"] == "ok"
    assert facts["setsid_pgid"] is True
    if mode == "bwrap":
        assert facts["env"] == {
            "PATH": "/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "HOME": "/scratch",
            "PYTHONPATH": "/bao/lib",
            "PWD": "/engine",
        }
        assert facts["cwd"] == "/engine"
        # The file is root's 0644 (EACCES comes first); creating hits the read-only mount.
        assert (facts["write_own_file"], facts["create_in_root"]) == ("EACCES", "EROFS")
    else:
        assert facts["env"] == {
            "PATH": "/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "HOME": str(engine.scratch),
            "PYTHONPATH": str(sandbox.STATE_DIR / "lib"),
        }
        assert facts["cwd"] == str(world_dir)
        assert (facts["write_own_file"], facts["create_in_root"]) == (
            "EACCES",
            "EACCES",
        )
    assert facts["groups"] == []
    scratch = engine.scratch
    assert_all_gone(engine, marker)
    assert not scratch.exists()
    Path(f"/tmp/bao-note-{marker}").unlink(missing_ok=True)  # the fallback shares the host /tmp


def test_mode_off_runs_as_the_service_with_the_scrubbed_environment(
    world_dir: Path,
) -> None:
    package, marker = hostile(world_dir, "facts.py")
    engine = start_engine(package, SandboxConfig(mode="off"))
    facts = json.loads(read_lines(engine, 1)[0])
    assert facts["uid"] == os.getuid()
    assert facts["env"] == {
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "HOME": str(engine.scratch),
        "PYTHONPATH": str(REPO),
    }
    assert_all_gone(engine, marker)


# --------------------------------------------------------------------------- limits


@pytest.mark.parametrize("mode", SANDBOXED)
def test_a_file_over_the_size_limit_is_refused_with_efbig(mode: str, world_dir: Path) -> None:
    package, marker = hostile(world_dir, "big_file.py")
    limits = SandboxLimits(max_file_bytes=1 << 20)
    engine = start_engine(package, SandboxConfig(mode=mode, limits=limits))
    assert read_lines(engine, 1) == [f"written {1 << 20} EFBIG"]
    assert_all_gone(engine, marker)


@pytest.mark.parametrize("mode", SANDBOXED)
def test_unbounded_allocation_ends_in_memory_error_below_the_limit(
    mode: str, world_dir: Path
) -> None:
    package, marker = hostile(world_dir, "eat_memory.py")
    engine = start_engine(
        package, SandboxConfig(mode=mode, limits=SandboxLimits(memory_bytes=256 << 20))
    )
    words = read_lines(engine, 1)[0].split()
    assert words[:2] == ["MemoryError", "after"] and words[3] == "MiB"
    # The interpreter itself takes some tens of MiB of address space.
    assert 128 <= int(words[2]) < 256
    assert engine.wait(10) == 0
    assert_all_gone(engine, marker)


@pytest.mark.slow
@pytest.mark.parametrize("mode", SANDBOXED)
def test_two_fork_bombs_at_once_each_stop_at_their_own_process_limit(
    mode: str, world_dir: Path
) -> None:
    limits = SandboxLimits(max_processes=16)
    bombs = []
    for _ in range(2):
        package, marker = hostile(world_dir, "fork_bomb.py")
        bombs.append((start_engine(package, SandboxConfig(mode=mode, limits=limits)), marker))
    try:
        # In bwrap the namespace's init (bwrap itself) is one of the 16.
        expected = 15 if mode == "bwrap" else 16
        for engine, marker in bombs:
            assert read_lines(engine, 1) == ["refused EAGAIN"]
            assert wait_for(lambda m=marker: len(engine_pids(m)) == expected), len(
                engine_pids(marker)
            )
        time.sleep(0.2)
        for _engine, marker in bombs:
            assert len(engine_pids(marker)) == expected
        # The host is fine: we can still start processes.
        assert subprocess.run(["/usr/bin/true"], check=False).returncode == 0
    finally:
        for engine, marker in bombs:
            assert_all_gone(engine, marker)


@pytest.mark.parametrize("mode", [*SANDBOXED, "off"])
def test_a_stderr_flood_is_flagged_and_only_its_tail_is_kept(mode: str, world_dir: Path) -> None:
    lines = 100_000  # 14 bytes each
    package, marker = hostile(world_dir, "flood_stderr.py", str(lines))
    limits = SandboxLimits(max_stderr_bytes=64 << 10, stderr_keep_bytes=1000)
    engine = start_engine(package, SandboxConfig(mode=mode, limits=limits))
    assert read_lines(engine, 1) == ["done"]
    assert wait_for(lambda: engine.stderr_bytes == 14 * lines)
    expected = b"".join(b"line %08d\n" % i for i in range(lines - 80, lines))[-1000:]
    assert engine.stderr_overflow is True
    assert engine.stderr_tail() == expected.decode()
    assert_all_gone(engine, marker)


def test_a_quiet_engine_does_not_overflow(world_dir: Path) -> None:
    package, marker = hostile(world_dir, "flood_stderr.py", "3")
    engine = start_engine(package, SandboxConfig(mode="off"))
    assert read_lines(engine, 1) == ["done"]
    assert wait_for(lambda: engine.stderr_bytes == 42)
    assert engine.stderr_overflow is False
    assert engine.stderr_tail() == "line 00000000\nline 00000001\nline 00000002\n"
    assert_all_gone(engine, marker)


# --------------------------------------------------------------------------- choosing a mode


@needs_root
def test_auto_falls_back_loudly_and_require_full_refuses_when_bwrap_is_broken(
    world_dir: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(sandbox, "BWRAP", "/nonexistent/bwrap")
    monkeypatch.setattr(sandbox, "_warned", set())
    try:
        found = probe(refresh=True)
        assert not found.bwrap_ok and "bwrap" in found.bwrap_reason
        with pytest.raises(SandboxError, match="full sandbox"):
            start_engine(
                EnginePackage("x", world_dir, ("true",)),
                SandboxConfig(require_full=True),
            )
        with pytest.raises(SandboxError, match="full sandbox"):
            start_engine(EnginePackage("x", world_dir, ("true",)), SandboxConfig(mode="bwrap"))
        with (
            caplog.at_level(logging.WARNING, logger="engines.sandbox"),
            start_engine(EnginePackage("x", world_dir, ("true",)), SandboxConfig()) as engine,
        ):
            assert engine.mode == "fallback"
            assert engine.wait(10) == 0
        assert any(
            r.levelno == logging.WARNING
            and "FALLBACK" in r.getMessage()
            and "bwrap" in r.getMessage()
            for r in caplog.records
        )
    finally:
        monkeypatch.undo()
        probe(refresh=True)


@needs_root
def test_an_engine_root_the_engine_uid_cannot_read_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "engine"
    root.mkdir(mode=0o700)
    with pytest.raises(SandboxError, match="world-readable"):
        start_engine(EnginePackage("x", root, ("true",)), SandboxConfig(mode="fallback"))


def test_off_contradicts_require_full(world_dir: Path) -> None:
    with pytest.raises(SandboxError, match="contradicts"):
        start_engine(
            EnginePackage("x", world_dir, ("true",)),
            SandboxConfig(mode="off", require_full=True),
        )


def test_a_missing_program_in_mode_off_is_a_sandbox_error(world_dir: Path) -> None:
    with pytest.raises(SandboxError, match="cannot start"):
        start_engine(EnginePackage("x", world_dir, ("./absent",)), SandboxConfig(mode="off"))


def test_config_values_are_checked() -> None:
    with pytest.raises(ValueError, match="mode"):
        SandboxConfig(mode="docker")
    with pytest.raises(ValueError, match="cpu_seconds"):
        SandboxLimits(cpu_seconds=0)
    with pytest.raises(ValueError, match="REQUIRE_FULL"):
        SandboxConfig.from_env({"BAO_SANDBOX_REQUIRE_FULL": "maybe"})
    assert SandboxConfig.from_env({"BAO_SANDBOX_REQUIRE_FULL": "1"}) == SandboxConfig(
        require_full=True
    )
    assert SandboxConfig.from_env({"BAO_SANDBOX_MODE": "fallback"}).mode == "fallback"
    assert SandboxConfig.from_env({}) == SandboxConfig()


@needs_root
def test_without_namespaces_the_uid_still_finds_and_kills_every_process(
    world_dir: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # As in a default docker container, where unshare is refused: no pid namespace to tear down,
    # so the daemon (own session, orphaned) is found and killed through its leased uid alone.
    monkeypatch.setattr(
        sandbox, "_probe_cache", sandbox.Probe(True, "simulated", "simulated refusal")
    )
    monkeypatch.setattr(sandbox, "_warned", set())
    package, marker = hostile(world_dir, "fork_children.py")
    with caplog.at_level(logging.WARNING, logger="engines.sandbox"):
        engine = start_engine(package, SandboxConfig(mode="fallback"))
    assert [r.getMessage() for r in caplog.records] == [
        (
            "fallback sandbox without namespaces (unshare failed: simulated refusal): "
            "engines have network access and no pid namespace"
        )
    ]
    assert read_lines(engine, 1) == ["forked 3"]
    assert len(engine_pids(marker)) == 4
    assert engine_pids(marker) <= engine.alive_pids()
    assert_all_gone(engine, marker)


def test_leasing_a_uid_ignores_a_scratch_dir_that_vanishes_while_it_looks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Another referee removes its own scratch dir between our listing and our stat.
    real_scandir = os.scandir

    class Vanished:
        name = "scratch-vanished"
        path = str(sandbox.STATE_DIR / "scratch-vanished")

        def stat(self, follow_symlinks: bool = True) -> os.stat_result:
            raise FileNotFoundError(self.path)

    def scandir(path: object) -> object:
        # Only the listing of the state dir: os is global, and _lease's rmtree of a stale
        # scratch dir of the leased uid (left by an earlier run) scans with it too.
        if path != sandbox.STATE_DIR:
            return real_scandir(path)  # type: ignore[call-overload]
        return iter([Vanished(), *real_scandir(path)])  # type: ignore[call-overload]

    sandbox._prepare_state_dir()
    monkeypatch.setattr(sandbox.os, "scandir", scandir)
    lease = sandbox._lease()
    try:
        assert lease.held
        assert sandbox.UID_BASE <= lease.uid < sandbox.UID_BASE + sandbox.UID_COUNT
    finally:
        lease.release()
