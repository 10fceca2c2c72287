"""Which sandbox mode an engine gets: what works on this host (``probe``), and the choice
between ``bwrap``, the ``fallback`` and ``off`` that a ``SandboxConfig`` asks for
(``choose_mode``), with a WARNING for anything weaker than ``bwrap``.

Part of the sandbox (``engines.sandbox`` is the interface). Standard library only; no Django.
"""

from __future__ import annotations

import logging
import os
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

from engines.sandbox import commands, seccomp, state
from engines.sandbox.config import SandboxConfig, SandboxError, SandboxLimits

LOG = logging.getLogger("engines.sandbox")


@dataclass(frozen=True)
class Probe:
    """What works on this host (``probe()``). Reasons are "" when the thing works.

    ``mounts_reason``: why the fallback's size-capped tmpfs mounts (``mounts.py``) fail
    inside ``unshare``'s namespaces."""

    root: bool
    bwrap_reason: str
    unshare_reason: str
    mounts_reason: str = ""
    #: Whether this bwrap has ``--disable-userns`` (0.8+); the seccomp filter refuses nested
    #: user namespaces either way.
    disable_userns: bool = False
    #: Why the seccomp filter cannot be built here ("" when it can: ``seccomp.available``).
    seccomp_reason: str = "not probed"

    @property
    def bwrap_ok(self) -> bool:
        return self.root and not self.bwrap_reason

    @property
    def unshare_ok(self) -> bool:
        return self.root and not self.unshare_reason

    @property
    def mounts_ok(self) -> bool:
        return self.unshare_ok and not self.mounts_reason


_probe_lock = threading.Lock()
_probe_cache: Probe | None = None


def probe(refresh: bool = False) -> Probe:
    """Find out (once per process, about 40 ms) which sandbox modes work on this host."""
    global _probe_cache
    with _probe_lock:
        if _probe_cache is None or refresh:
            root = os.geteuid() == 0
            limits = SandboxLimits()
            no_userns = _bwrap_has("--disable-userns")
            bwrap = (
                _try(
                    [
                        commands.BWRAP,
                        *commands.BWRAP_BASE,
                        *(commands.BWRAP_NO_USERNS if no_userns else []),
                        *commands.bwrap_writable(limits),
                        "--",
                        "/usr/bin/true",
                    ],
                    as_uid=state.UID_BASE - 1,
                )
                if root
                else "not root"
            )
            if root and not os.path.exists(commands.BWRAP):
                bwrap = "bwrap is not installed (scripts/install-sandbox.sh installs it)"
            unshare = (
                _try([commands.TOOLS["unshare"], *commands.UNSHARE_ARGS, "--", "/usr/bin/true"])
                if root
                else "not root"
            )
            mounts = (
                _try(
                    [
                        commands.TOOLS["unshare"],
                        *commands.UNSHARE_ARGS,
                        "--",
                        *commands.mounts_argv(limits),
                        "--probe",
                    ]
                )
                if root and not unshare
                else "needs unshare"
            )
            _probe_cache = Probe(
                root=root,
                bwrap_reason=bwrap,
                unshare_reason=unshare,
                mounts_reason=mounts,
                disable_userns=no_userns,
                seccomp_reason=seccomp.available(),
            )
        return _probe_cache


def _bwrap_has(option: str) -> bool:
    """Whether ``bwrap --help`` lists ``option`` (False without a bwrap)."""
    try:
        done = subprocess.run(
            [commands.BWRAP, "--help"], capture_output=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return option.encode() in done.stdout + done.stderr


def _try(argv: list[str], as_uid: int | None = None) -> str:
    """ "" if ``argv`` exits 0 within 5 s, else why not (its stderr, shortened)."""
    ids: commands.RunAs = (
        {} if as_uid is None else {"user": as_uid, "group": as_uid, "extra_groups": []}
    )
    try:
        done = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=5,
            cwd="/",
            env=commands.base_env(),
            check=False,
            **ids,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{Path(argv[0]).name}: {exc}"
    if done.returncode != 0:
        err = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"{Path(argv[0]).name} exited {done.returncode}: {err[-1] if err else 'no message'}"
    return ""


def choose_mode(config: SandboxConfig) -> str:
    """The mode ``config`` gets on this host (``bwrap``, ``fallback`` or ``off``), with a WARNING
    once per reason for a weaker one. Raises ``SandboxError`` when it asks for what cannot run
    here: ``require_full`` or ``bwrap`` without a working bwrap, any mode but ``off`` without
    root, ``off`` with ``require_full``."""
    if config.mode == "off":
        if config.require_full:
            raise SandboxError("sandbox mode 'off' contradicts require_full")
        return "off"
    found = probe()
    if not found.root:
        raise SandboxError("the engine sandbox needs root (to give engines their own uid)")
    if config.mode in ("auto", "bwrap") and found.bwrap_ok:
        if found.seccomp_reason:
            if config.require_full:
                raise SandboxError(f"the full sandbox needs its {found.seccomp_reason}")
            warn_once(f"engines run in bwrap WITHOUT the seccomp filter: {found.seccomp_reason}")
        return "bwrap"
    if config.require_full or config.mode == "bwrap":
        raise SandboxError(f"the full sandbox (bwrap) does not work here: {found.bwrap_reason}")
    if config.mode == "auto":
        warn_once(
            "engines run in the FALLBACK sandbox because bwrap does not work here: "
            f"{found.bwrap_reason}"
        )
    if not found.unshare_ok:
        warn_once(
            "fallback sandbox without namespaces (unshare failed: "
            f"{found.unshare_reason}): engines have network access, no pid namespace and "
            "no size cap on their scratch directory and the host's /tmp"
        )
    elif not found.mounts_ok:
        warn_once(
            "fallback sandbox without size-capped tmpfs mounts (engines/sandbox/mounts.py failed: "
            f"{found.mounts_reason}): engines can fill their scratch directory and the host's "
            "/tmp, /var/tmp and /dev/shm"
        )
    return "fallback"


_warned: set[str] = set()


def warn_once(message: str) -> None:
    """Log ``message`` as a WARNING of ``engines.sandbox``, once per process (loud, but not once
    per game)."""
    if message not in _warned:
        _warned.add(message)
        LOG.warning(message)
