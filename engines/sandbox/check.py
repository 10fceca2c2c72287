"""``python -m engines.sandbox.check``: which sandbox mode works on this host, and why.

Prints the probe (root? bwrap? unshare?), the mode ``auto`` would choose, then starts a tiny
engine in each mode that can work and reports what it saw (uid, network, import of
``arena.rules``) and how long the first line took (ms), then the runtimes an engine gets in
the mode ``auto`` chose (``engines.sandbox.runtimes``, docs/runtimes.md). Exit status 0 if
the full sandbox (bwrap) works, 1 if only the fallback does, 2 if engines cannot be started at
all.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import sys
import tempfile
import time
from pathlib import Path

from engines.package import EnginePackage
from engines.sandbox import SandboxConfig, SandboxError, probe, start_engine
from engines.sandbox.runtimes import probe_runtimes

_PROBE_ENGINE = """\
import json, os, socket
try:
    import arena.rules
    rules = "ok"
except Exception as exc:
    rules = repr(exc)
try:  # the bwrap sandbox's seccomp filter refuses the socket itself
    s = socket.socket()
    s.settimeout(1)
    s.connect(("127.0.0.1", 22))
    net = "open"
except OSError as exc:
    net = os.strerror(exc.errno or 0)
facts = {"uid": os.getuid(), "import arena.rules": rules, "tcp to 127.0.0.1": net}
print(json.dumps(facts), flush=True)
"""


def _try_mode(root: Path, mode: str) -> str:
    package = EnginePackage("sandbox-check", root, ("python3", "check.py"))
    started = time.perf_counter()
    try:
        engine = start_engine(package, SandboxConfig(mode=mode))
    except SandboxError as exc:
        return f"cannot start: {exc}"
    with engine:
        if not select.select([engine.stdout_fd], [], [], 10)[0]:
            return f"no output in 10 s; stderr: {engine.stderr_tail()!r}"
        line = os.read(engine.stdout_fd, 4096).decode(errors="replace").strip()
        elapsed = (time.perf_counter() - started) * 1e3
    try:
        seen = json.loads(line)
    except ValueError:
        return f"unexpected output {line!r}; stderr: {engine.stderr_tail()!r}"
    return f"works, first line after {elapsed:.0f} ms; the engine saw {seen}"


def main() -> int:
    found = probe()
    print(f"running as root: {found.root}")
    print(f"bwrap (full sandbox): {'works' if found.bwrap_ok else 'NO - ' + found.bwrap_reason}")
    print(
        f"seccomp filter: {'works' if not found.seccomp_reason else 'NO - ' + found.seccomp_reason}"
    )
    print(
        f"bwrap --disable-userns: {'yes' if found.disable_userns else 'no (the filter refuses it)'}"
    )
    print(
        "unshare (fallback namespaces): "
        f"{'works' if found.unshare_ok else 'NO - ' + found.unshare_reason}"
    )
    print(
        "size-capped tmpfs mounts (fallback /tmp, /dev/shm, scratch): "
        f"{'work' if found.mounts_ok else 'NO - ' + found.mounts_reason}"
    )
    if not found.root:
        print("auto would choose: nothing (the sandbox needs root to give engines their own uid)")
        return 2
    print(f"auto would choose: {'bwrap' if found.bwrap_ok else 'fallback (with a WARNING)'}")
    root = Path(tempfile.mkdtemp(prefix="bao-sandbox-check-"))
    os.chmod(root, 0o755)
    try:
        (root / "check.py").write_text(_PROBE_ENGINE)
        for mode in ("bwrap", "fallback"):
            if mode == "bwrap" and not found.bwrap_ok:
                continue
            print(f"{mode}: {_try_mode(root, mode)}")
        try:
            found_runtimes = probe_runtimes(SandboxConfig())
            offered = ", ".join(f"{r.name} {r.version}" for r in found_runtimes) or "none"
        except SandboxError as exc:
            offered = f"none: {exc}"
        print(f"runtimes engines get: {offered}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0 if found.bwrap_ok else 1


if __name__ == "__main__":
    sys.exit(main())
