"""Starting an engine in the sandbox (``start_engine``): the mode chosen, a uid leased, the
package copied for that uid alone, the command line of the mode spawned, the cgroup joined.

Part of the sandbox (``engines.sandbox`` is the interface). Standard library only; no Django.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from engines.package import EnginePackage
from engines.sandbox import commands, modes, seccomp, state
from engines.sandbox.cgroup import CgroupError, EngineCgroup
from engines.sandbox.config import SandboxConfig, SandboxError
from engines.sandbox.files import give_to_uid
from engines.sandbox.process import EngineProcess
from engines.sandbox.procs import UidLease


def start_engine(package: EnginePackage, config: SandboxConfig = SandboxConfig()) -> EngineProcess:
    """Start ``package`` in the sandbox ``config`` asks for; returns the running process.

    In every mode but ``off`` the engine runs from a private copy of ``package.root`` that only
    its leased uid can read (``files.give_to_uid``), removed by ``kill()``.

    Raises ``SandboxError`` when it cannot be started safely: ``require_full`` and bwrap does not
    work here, a mode that needs root, no free uid, an engine root that cannot be copied, or the
    process cannot be spawned. A program that starts and then fails (say a missing
    interpreter) is not an error here: it shows up as an early exit with its stderr.
    """
    mode = modes.choose_mode(config)
    root = Path(package.root)
    if not root.is_dir():
        raise SandboxError(f"engine root {root} is not a directory")
    state.prepare_state_dir()
    lease = state.lease_uid() if mode != "off" else None
    scratch: Path | None = None
    info_r: int | None = None  # bwrap's --info-fd: it names the pid namespace's init
    info_w: int | None = None
    copy: Path | None = None
    lib = state.REPO_ROOT  # mode off imports from the checkout itself
    args_fd = -1
    seccomp_fd = -1
    try:
        ids: commands.RunAs = {}
        env = commands.base_env()
        pass_fds: tuple[int, ...] = ()
        executable: str | None = None
        mounts: tuple[tuple[str, int], ...] = ()
        tmp, scratch_cap = config.limits.tmp_bytes, config.limits.scratch_bytes
        if lease is not None:
            copy = give_to_uid(
                root, state.STATE_DIR / f"engine-{lease.uid}-{secrets.token_hex(8)}", lease.uid
            )
            lib = state.engine_library()
        if mode == "bwrap":
            assert lease is not None and copy is not None
            env.update(HOME=commands.SCRATCH_IN, PYTHONPATH=commands.LIB_IN)
            info_r, info_w = os.pipe2(os.O_CLOEXEC | os.O_NONBLOCK)
            # --info-fd: bwrap names the pid namespace's init there (see kill()).
            options = ["--info-fd", str(info_w)]
            found = modes.probe()
            if not found.seccomp_reason:
                seccomp_fd = seccomp.program_fd()
            bwrap_options = commands.bwrap_argv(
                package,
                copy,
                lib,
                lease.uid,
                config.limits,
                disable_userns=found.disable_userns,
                seccomp_fd=seccomp_fd if seccomp_fd >= 0 else None,
            )
            args_fd = commands.args_file([*options, *bwrap_options])
            # Only the options hold host paths and uids: bwrap reads them from the memory file,
            # so its command line (pid 1's, inside) is the engine's command alone.
            argv = [
                "bwrap",
                "--args",
                str(args_fd),
                "--",
                *commands.prlimit_argv(config.limits),
                *package.argv,
            ]
            executable = commands.BWRAP
            pass_fds = (args_fd, info_w, *([seccomp_fd] if seccomp_fd >= 0 else []))
            ids = {"user": lease.uid, "group": lease.uid, "extra_groups": []}
            mounts = ((commands.SCRATCH_IN, scratch_cap), ("/tmp", tmp), ("/dev/shm", tmp))
        else:
            scratch = Path(tempfile.mkdtemp(prefix="scratch-", dir=state.STATE_DIR))
            if lease is None:
                env.update(HOME=str(scratch), PYTHONPATH=str(lib))
                argv = list(package.argv)
            else:
                assert copy is not None
                os.chown(scratch, lease.uid, lease.uid)
                env.update(HOME=str(scratch), PYTHONPATH=str(lib))
                found = modes.probe()
                if found.mounts_ok and not found.seccomp_reason:
                    seccomp_fd = seccomp.program_fd()
                    pass_fds = (seccomp_fd,)
                argv = commands.fallback_argv(
                    package,
                    copy,
                    lib,
                    lease.uid,
                    scratch,
                    config.limits,
                    found.unshare_ok,
                    found.mounts_ok,
                    seccomp_fd if seccomp_fd >= 0 else None,
                )
                if found.mounts_ok:
                    mounts = (("/tmp", tmp), ("/dev/shm", tmp), (str(scratch), scratch_cap))
        started = time.monotonic_ns()
        popen = subprocess.Popen(
            argv,
            executable=executable,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
            cwd=str(copy or root),
            env=env,
            start_new_session=True,
            close_fds=True,
            pass_fds=pass_fds,
            **ids,
        )
    except (OSError, subprocess.SubprocessError, ValueError) as exc:
        _undo_start(scratch, copy, lease, info_r)
        raise SandboxError(f"cannot start engine {package.name!r} ({mode}): {exc}") from exc
    except BaseException:
        _undo_start(scratch, copy, lease, info_r)
        raise
    finally:
        for fd in (args_fd, seccomp_fd):
            if fd >= 0:
                os.close(fd)
        if info_w is not None:
            os.close(info_w)  # bwrap has its copy
    namespaced = mode == "bwrap" or (mode == "fallback" and modes.probe().unshare_ok)
    process = EngineProcess(
        popen,
        mode,
        config.limits,
        lease,
        scratch,
        started,
        copy or root,
        copy is not None,
        pid_namespace=namespaced,
        info_fd=info_r,
        memory_mounts=mounts,
    )
    if config.cgroup_parent and mode != "off":
        try:
            process.cgroup = EngineCgroup.create(
                Path(config.cgroup_parent),
                f"engine-{process.uid}",
                config.cgroup_memory_bytes,
                config.cgroup_cpu_cores,
            )
            process.cgroup.adopt(process.pid)
        except CgroupError as exc:
            process.kill()
            raise SandboxError(f"cannot start engine {package.name!r} ({mode}): {exc}") from exc
    return process


def _undo_start(
    scratch: Path | None, copy: Path | None, lease: UidLease | None, info_fd: int | None
) -> None:
    if info_fd is not None:
        os.close(info_fd)
    for path in (scratch, copy):
        if path is not None:
            shutil.rmtree(path, ignore_errors=True)
    if lease is not None:
        lease.release()
