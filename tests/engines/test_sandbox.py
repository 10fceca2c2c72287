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
import stat
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
    commands,
    modes,
    probe,
    procs,
    start_engine,
    state,
)
from engines.sandbox import process as engine_process

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


@pytest.fixture(autouse=True)
def engines_are_killed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[EngineProcess]]:
    """Every engine a test starts is killed at teardown, even when the test fails before its
    own kill(): otherwise its processes, uid lease and scratch directory would outlive it."""
    started: list[EngineProcess] = []

    def tracked(package: EnginePackage, config: SandboxConfig | None = None) -> EngineProcess:
        engine = sandbox.start_engine(package, config or SandboxConfig())
        started.append(engine)
        return engine

    monkeypatch.setattr(sys.modules[__name__], "start_engine", tracked)
    try:
        yield started
    finally:
        for engine in started:
            engine.kill()


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


def fs_size(path: str) -> tuple[int, int]:
    """(size, bytes in use) of the file system holding ``path``."""
    st = os.statvfs(path)
    return st.f_blocks * st.f_frsize, (st.f_blocks - st.f_bfree) * st.f_frsize


def pids_in_mount_ns(inode: int) -> set[int]:
    """Pids of every process in the mount namespace with that inode number."""
    found = set()
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.stat(f"/proc/{name}/ns/mnt").st_ino == inode:
                    found.add(int(name))
            except OSError:
                continue
    return found


def real_dir(path: str) -> bool:
    return os.path.isdir(path) and not os.path.islink(path)


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
def test_an_engine_that_exited_in_its_own_pid_namespace_is_reaped_without_a_scan(
    mode: str, world_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package, marker = hostile(world_dir, "fork_children.py", "exit-on-eof")
    engine = start_engine(package, SandboxConfig(mode=mode))
    assert read_lines(engine, 1) == ["forked 3"]
    engine.stdin.close()  # it exits, as after quit; its children and the daemon do not
    assert engine.wait(10) == 0
    scans: list[int] = []
    real_scan = engine_process.pids_of_uid
    monkeypatch.setattr(
        engine_process, "pids_of_uid", lambda uid: scans.append(uid) or real_scan(uid)
    )
    engine.kill()
    # With a pid namespace the kernel ended the rest before the wrapper could exit: kill()
    # only reaps. Without one (a fallback without unshare) it must search the uid.
    assert engine.pid_namespace == (mode == "bwrap" or _found.unshare_ok)
    assert (scans == []) == engine.pid_namespace
    assert engine.alive_pids() == set()
    assert marker_pids(marker) == set()


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
def test_all_engine_processes_die_with_a_killed_referee(
    mode: str, world_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _package, marker = hostile(world_dir, "fork_children.py")
    referee = subprocess.Popen(
        [sys.executable, str(HERE / "dying_referee.py"), mode, str(world_dir), marker],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    scratch: Path | None = None
    try:
        assert referee.stdout is not None
        engine_pid, uid, where, said = referee.stdout.readline().decode().split(" ", 3)
        scratch = None if where == "-" else Path(where)
        assert said.strip() == "forked 3"
        assert len(engine_pids(marker)) == 4
        referee.kill()
        referee.wait(5)
        assert wait_for(lambda: not marker_pids(marker), timeout=3.0), marker_pids(marker)
        assert wait_for(lambda: not running(int(engine_pid)))
        # bwrap keeps no scratch directory on the host. The fallback's stays, as nobody called
        # kill(): the next lease of that uid sweeps it (here, the only uid on offer).
        assert (scratch is None) == (mode == "bwrap")
        if scratch is not None:
            assert scratch.is_dir()
            monkeypatch.setattr(state, "UID_BASE", int(uid))
            monkeypatch.setattr(state, "UID_COUNT", 1)
            state.lease_uid().release()
            assert not scratch.exists()
    finally:
        referee.kill()
        referee.wait(5)
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


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
    # The seccomp filter refuses the socket itself (bwrap, and the fallback with its mounts);
    # without it, bwrap's private loopback refuses the connection and unshare's, left down, is
    # unreachable.
    filtered = not _found.seccomp_reason and (mode == "bwrap" or _found.mounts_ok)
    unfiltered = "ECONNREFUSED" if mode == "bwrap" else "ENETUNREACH"
    err = "EPERM" if filtered else unfiltered
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
        else:  # the fallback shows the host, file modes keep the engine uid out, and its own
            # /tmp covers the host's
            assert lines[: len(paths)] == [
                f"{p} {'ENOENT' if p.startswith('/tmp/') else 'EACCES'}" for p in paths
            ]
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
            "PYTHONPATH": str(state.engine_library()),
        }
        # Its private copy of the package, not the package itself.
        assert facts["cwd"] == str(engine.root) != str(world_dir)
        # As in bwrap, the engine root is a read-only mount of its own.
        assert (facts["write_own_file"], facts["create_in_root"]) == ("EACCES", "EROFS")
    assert facts["groups"] == []
    # The note went to the engine's own /tmp, never the host's.
    assert not Path(f"/tmp/bao-note-{marker}").exists()
    scratch = engine.scratch
    assert (scratch is None) == (mode == "bwrap")
    assert_all_gone(engine, marker)
    assert scratch is None or not scratch.exists()


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
def test_files_past_the_tmp_and_scratch_caps_fail_with_enospc_and_are_freed_at_kill(
    mode: str, world_dir: Path
) -> None:
    if mode == "fallback" and not _found.mounts_ok:
        pytest.skip(f"no capped mounts in the fallback here: {_found.mounts_reason}")
    tmp, scratch = 3 << 20, 5 << 20
    limits = SandboxLimits(tmp_bytes=tmp, scratch_bytes=scratch)
    # In the fallback the host's other world-writable directories share the engine's /tmp,
    # already full when they come.
    shared = [d for d in ("/var/tmp", "/run/lock") if mode == "fallback" and real_dir(d)]
    package, marker = hostile(world_dir, "fill_files.py", "/tmp", "/dev/shm", "HOME", *shared)
    engine = start_engine(package, SandboxConfig(mode=mode, limits=limits))
    lines = read_lines(engine, 4 + len(shared))
    assert lines == [
        f"/tmp {tmp} ENOSPC",
        f"/dev/shm {tmp} ENOSPC",
        f"HOME {scratch} ENOSPC",
        *[f"{d} 0 ENOSPC" for d in shared],
        "done",
    ], engine.stderr_tail()
    # From the host, through the engine's own view of the file system: full, at the caps.
    (pid,) = engine_pids(marker)
    view = f"/proc/{pid}/root"
    home = "/scratch" if mode == "bwrap" else str(engine.scratch)
    assert fs_size(f"{view}/tmp") == (tmp, tmp)
    assert fs_size(f"{view}/dev/shm") == (tmp, tmp)
    assert fs_size(f"{view}{home}") == (scratch, scratch)
    # The host's own directories got none of it.
    places = {"/tmp": 0, "/dev/shm": 1} | {d: 3 + i for i, d in enumerate(shared)}
    on_host = [f"{d}/fill-{marker}-{k}-0" for d, k in places.items()]
    assert [f for f in on_host if os.path.exists(f)] == []
    assert engine.scratch is None or os.listdir(engine.scratch) == []
    namespace = os.stat(f"/proc/{pid}/ns/mnt").st_ino
    assert_all_gone(engine, marker)
    # The mount namespace went with the last engine process, and its tmpfs mounts with it.
    assert pids_in_mount_ns(namespace) == set()
    assert engine.scratch is None or not engine.scratch.exists()


@pytest.mark.parametrize("mode", SANDBOXED)
def test_the_rest_of_the_sandbox_file_system_is_read_only(mode: str, world_dir: Path) -> None:
    if mode == "fallback" and not _found.mounts_ok:
        pytest.skip(f"no capped mounts in the fallback here: {_found.mounts_reason}")
    # bwrap's root and /dev are tmpfs without a cap: they must take no file. In the fallback
    # the engine root is a read-only mount; / and /dev are the host's, closed by file modes.
    package, marker = hostile(world_dir, "fill_files.py", "/", "/dev", ".")
    engine = start_engine(package, SandboxConfig(mode=mode))
    errs = ("EROFS", "EROFS") if mode == "bwrap" else ("EACCES", "EACCES")
    assert read_lines(engine, 4) == [f"/ 0 {errs[0]}", f"/dev 0 {errs[1]}", ". 0 EROFS", "done"]
    assert_all_gone(engine, marker)


@needs_root
def test_a_fallback_without_capped_mounts_warns_and_leaves_the_scratch_directory_uncapped(
    world_dir: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # Shows the fallback caps can fail: where the mounts are refused, the scratch directory is
    # a plain host directory, and the log says so once.
    monkeypatch.setattr(
        modes, "_probe_cache", sandbox.Probe(True, "simulated", "", "simulated refusal")
    )
    monkeypatch.setattr(modes, "_warned", set())
    package, marker = hostile(world_dir, "fill_files.py", "HOME")
    limits = SandboxLimits(scratch_bytes=1 << 20)
    with caplog.at_level(logging.WARNING, logger="engines.sandbox"):
        engine = start_engine(package, SandboxConfig(mode="fallback", limits=limits))
    assert [r.getMessage() for r in caplog.records] == [
        "fallback sandbox without size-capped tmpfs mounts (engines/sandbox/mounts.py failed: "
        "simulated refusal): engines can fill their scratch directory and the host's /tmp, "
        "/var/tmp and /dev/shm"
    ]
    # The script's own bound (16 files of 4 MiB), far past the 1 MiB that was asked for.
    assert read_lines(engine, 2) == [f"HOME {64 << 20} none", "done"]
    assert engine.scratch is not None and len(os.listdir(engine.scratch)) == 16
    assert_all_gone(engine, marker)
    assert not engine.scratch.exists()


@needs_root
def test_the_mount_helper_refuses_a_bad_line_before_the_engine_runs(world_dir: Path) -> None:
    # Run in a mount namespace of its own, as the fallback does: nothing reaches the host.
    helper = [sys.executable, "-I", "-S", str(sandbox.MOUNTS_HELPER)]
    missing = str(world_dir / "absent")
    cases = [
        ([*helper, "--tmp-bytes"], "bao-sandbox-mounts: bad argument '--tmp-bytes'"),
        (
            [*helper, "--chdir", "/", "--", "/usr/bin/true"],
            "bao-sandbox-mounts: missing option --tmp-bytes",
        ),
        (
            [*helper, "--tmp-bytes", "1048576", "--keep", missing, "--chdir", "/", "--", "true"],
            f"bao-sandbox-mounts: [Errno 2] No such file or directory: {missing!r}",
        ),
    ]
    for argv, said in cases:
        done = subprocess.run(
            ["unshare", "--mount", "--fork", "--", *argv], capture_output=True, check=False
        )
        assert (done.returncode, done.stderr.decode().strip()) == (125, said)


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
        # The engine is its pid namespace's init in both modes: all 16 are its own.
        expected = 16
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


def test_stderr_since_an_offset_gives_what_came_after_it_and_the_bytes_cut(
    world_dir: Path,
) -> None:
    package, marker = hostile(world_dir, "flood_stderr.py", "100")  # 1400 bytes
    limits = SandboxLimits(stderr_keep_bytes=140)
    engine = start_engine(package, SandboxConfig(mode="off", limits=limits))
    assert read_lines(engine, 1) == ["done"]
    assert wait_for(lambda: engine.stderr_bytes == 1400)
    assert engine.stderr_since(1386) == ("line 00000099\n", 0)
    assert engine.stderr_since(1260) == (engine.stderr_tail(), 0)  # the whole tail
    assert engine.stderr_since(0) == (engine.stderr_tail(), 1260)
    assert engine.stderr_since(1400) == ("", 0)
    assert_all_gone(engine, marker)


# --------------------------------------------------------------------------- choosing a mode


@needs_root
def test_auto_falls_back_loudly_and_require_full_refuses_when_bwrap_is_broken(
    world_dir: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(commands, "BWRAP", "/nonexistent/bwrap")
    monkeypatch.setattr(modes, "_warned", set())
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


@pytest.mark.parametrize("mode", SANDBOXED)
def test_an_engine_stored_where_only_the_service_reads_runs_from_its_copy(
    mode: str, tmp_path: Path
) -> None:
    # Like var/engines/: 0700 directories of the service; the engine uid reaches none of it.
    root = tmp_path / "engine"
    root.mkdir(mode=0o700)
    os.chmod(tmp_path, 0o700)
    package, marker = hostile(root, "facts.py")
    os.chmod(root / "facts.py", 0o600)
    engine = start_engine(package, SandboxConfig(mode=mode))
    facts = json.loads(read_lines(engine, 1)[0])
    assert facts["uid"] == engine.uid
    assert_all_gone(engine, marker)


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
    with pytest.raises(ValueError, match="tmp_bytes"):
        SandboxLimits(tmp_bytes=0)
    assert (SandboxLimits().tmp_bytes, SandboxLimits().scratch_bytes) == (64 << 20, 64 << 20)
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
        modes, "_probe_cache", sandbox.Probe(True, "simulated", "simulated refusal")
    )
    monkeypatch.setattr(modes, "_warned", set())
    package, marker = hostile(world_dir, "fork_children.py")
    with caplog.at_level(logging.WARNING, logger="engines.sandbox"):
        engine = start_engine(package, SandboxConfig(mode="fallback"))
    assert [r.getMessage() for r in caplog.records] == [
        (
            "fallback sandbox without namespaces (unshare failed: simulated refusal): "
            "engines have network access, no pid namespace and no size cap on their scratch "
            "directory and the host's /tmp"
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
        # Only the listing of the state dir: os is global, and lease_uid's rmtree of a stale
        # scratch dir of the leased uid (left by an earlier run) scans with it too.
        if path != sandbox.STATE_DIR:
            return real_scandir(path)  # type: ignore[call-overload]
        return iter([Vanished(), *real_scandir(path)])  # type: ignore[call-overload]

    state.prepare_state_dir()
    monkeypatch.setattr(state.os, "scandir", scandir)
    lease = state.lease_uid()
    try:
        assert lease.held
        assert sandbox.UID_BASE <= lease.uid < sandbox.UID_BASE + sandbox.UID_COUNT
    finally:
        lease.release()


def test_a_uid_released_clean_is_leased_again_without_a_scan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scans: list[int] = []
    monkeypatch.setattr(procs, "pids_of_uid", lambda uid: scans.append(uid) or set())
    uid = sandbox.UID_BASE + sandbox.UID_COUNT  # one uid of our own, outside the real range
    (tmp_path / str(uid)).write_bytes(b"")  # leased before, by a holder that died
    # A holder that dies (or releases without checking) leaves the uid to be scanned.
    procs.UidLease(tmp_path, uid, 1).release()
    procs.UidLease(tmp_path, uid, 1).release(clean=True)
    assert scans == [uid, uid]
    # After a clean release the next lease trusts it, once: it holds the uid dirty again.
    lease = procs.UidLease(tmp_path, uid, 1)
    assert (scans, (tmp_path / str(uid)).read_bytes()) == ([uid, uid], b"")
    lease.release()
    procs.UidLease(tmp_path, uid, 1).release()
    assert scans == [uid, uid, uid]


def test_a_uid_never_leased_before_is_not_scanned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scans: list[int] = []
    monkeypatch.setattr(procs, "pids_of_uid", lambda uid: scans.append(uid) or set())
    uid = sandbox.UID_BASE + sandbox.UID_COUNT  # one uid of our own, outside the real range
    # Its lock file does not exist yet: no holder of this lock directory can have left a
    # process under it.
    procs.UidLease(tmp_path, uid, 1).release()
    assert scans == []
    # Released without a check, it is scanned on its next lease.
    procs.UidLease(tmp_path, uid, 1).release()
    assert scans == [uid]


@pytest.mark.parametrize("mode", SANDBOXED)
def test_an_engine_killed_with_nothing_left_releases_its_uid_clean(
    mode: str, world_dir: Path
) -> None:
    package, marker = hostile(world_dir, "fork_children.py")
    engine = start_engine(package, SandboxConfig(mode=mode))
    assert read_lines(engine, 1) == ["forked 3"]
    lock = sandbox.STATE_DIR / "uids" / str(engine.uid)
    assert lock.read_bytes() == b""  # held: dirty
    assert_all_gone(engine, marker)
    assert lock.read_bytes() == procs.CLEAN


# --------------------------------------------------------------------------- what an engine sees


def snoop(engine: EngineProcess) -> dict[str, object]:
    lines = read_lines(engine, 1)
    assert len(lines) == 1, engine.stderr_tail()
    found: dict[str, object] = json.loads(lines[0])
    return found


@pytest.mark.parametrize("mode", SANDBOXED)
def test_an_engine_runs_from_a_copy_only_its_uid_reads_and_never_reads_another_engines(
    mode: str, world_dir: Path
) -> None:
    other_root = world_dir / "other"
    other_root.mkdir()
    (other_root / "secret.txt").write_text("the other engine's opening book\n")
    other = start_engine(
        EnginePackage("other", other_root, ("python3", "-c", "import time; time.sleep(60)")),
        SandboxConfig(mode=mode),
    )
    # Root owns the copy, the engine's group reads it: it can neither write nor chmod it.
    st = os.stat(other.root / "secret.txt")
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (0, other.uid, 0o640)
    st = os.stat(other.root)
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (0, other.uid, 0o750)
    mine = world_dir / "mine"
    mine.mkdir()
    package, marker = hostile(
        mine, "snoop.py", str(other.root / "secret.txt"), str(other.root), str(sandbox.STATE_DIR)
    )
    engine = start_engine(package, SandboxConfig(mode=mode))
    found = snoop(engine)
    # bwrap mounts none of it; the fallback's own /tmp covers a state directory under /tmp,
    # and elsewhere the copy's modes keep other uids out.
    under_tmp = sandbox.STATE_DIR.resolve().is_relative_to("/tmp")
    hidden = "ENOENT" if mode == "bwrap" or under_tmp else "EACCES"
    assert found[str(other.root / "secret.txt")] == {"error": hidden}
    assert found[str(other.root)] == {"error": hidden}
    # The state directory can be crossed (to reach one's own copy), not listed; in the
    # fallback's own /tmp it holds just the mount points of the engine's own places.
    if hidden == "ENOENT" and mode == "fallback":
        assert engine.scratch is not None
        own = [engine.root.name, state.engine_library().name, engine.scratch.name]
        assert found[str(sandbox.STATE_DIR)] == {"ok": sorted(own)}
    else:
        assert found[str(sandbox.STATE_DIR)] == {"error": hidden}
    copies = (engine.root, other.root)
    assert_all_gone(engine, marker)
    other.kill()
    assert [p for p in copies if p.exists()] == []


@pytest.mark.parametrize("mode", SANDBOXED)
def test_pid_1_of_the_engine_shows_no_host_path_or_uid_and_no_other_process_is_visible(
    mode: str, world_dir: Path
) -> None:
    package, marker = hostile(world_dir, "snoop.py")
    engine = start_engine(package, SandboxConfig(mode=mode))
    found = snoop(engine)
    cmdline = found["/proc/1/cmdline"]
    assert isinstance(cmdline, dict) and "ok" in cmdline, found
    words = cmdline["ok"].split("\0")
    for leak in (str(sandbox.STATE_DIR), str(world_dir), str(REPO), str(engine.uid), "/tmp"):
        assert not any(leak in word for word in words), (leak, words)
    # Every step execs the next (fallback), or bwrap runs no reaper (--as-pid-1): pid 1 is the
    # engine itself, and its own pid namespace shows nothing of the host.
    assert words[:3] == ["python3", "snoop.py", marker]
    assert found["pids"] == [1]
    assert_all_gone(engine, marker)


@needs_root
def test_the_fallback_hides_the_hosts_sockets_under_run(world_dir: Path) -> None:
    if not _found.mounts_ok:
        pytest.skip(f"no mounts in the fallback here: {_found.mounts_reason}")
    package, marker = hostile(world_dir, "snoop.py", "/run", "/run/postgresql", "/var/run")
    engine = start_engine(package, SandboxConfig(mode="fallback"))
    found = snoop(engine)
    lock = ["lock"] if real_dir("/run/lock") else []
    assert found["/run"] == {"ok": lock}
    assert found["/run/postgresql"] == {"error": "ENOENT"}
    assert found["/var/run"] in ({"ok": lock}, {"error": "ENOENT"})
    assert_all_gone(engine, marker)
