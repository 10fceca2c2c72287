"""What the sandbox is asked for: the mode, the per-engine limits, and the one error it raises.

Part of the sandbox (``engines.sandbox`` is the interface). Standard library only; no Django.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

MODES = ("auto", "bwrap", "fallback", "off")


class SandboxError(RuntimeError):
    """The engine cannot be started safely: an infrastructure fault (the referee records
    ``aborted``), never the engine's fault."""


@dataclass(frozen=True)
class SandboxLimits:
    """Per-engine limits. Bytes, seconds and counts; every value must be positive.

    ``max_processes`` counts the engine's own processes (threads included: a JVM with the serial
    collector runs 14 or 15, node 7, the Python engines 2; docs/sandbox.md), ``max_file_bytes``
    is the largest file it may write (``EFBIG`` / ``SIGXFSZ`` beyond), ``stderr_keep_bytes`` the
    tail of stderr kept for the record, ``max_stderr_bytes`` the stderr volume past which
    ``EngineProcess.stderr_overflow`` is set (the referee then ends the game ``output_limit``).
    ``tmp_bytes`` caps ``/tmp`` and, separately, ``/dev/shm``; ``scratch_bytes`` caps the
    scratch directory (``HOME``); past a cap writes fail with ``ENOSPC``. These are tmpfs, so
    they are memory: on top of ``memory_bytes`` (address space per process) an engine may hold
    up to ``2 * tmp_bytes + scratch_bytes`` in files. Mode ``off`` caps nothing.
    """

    cpu_seconds: int = 300
    memory_bytes: int = 1 << 30
    max_processes: int = 32
    max_file_bytes: int = 8 << 20
    max_open_files: int = 64
    stderr_keep_bytes: int = 65536
    max_stderr_bytes: int = 1 << 20
    tmp_bytes: int = 64 << 20
    scratch_bytes: int = 64 << 20

    def __post_init__(self) -> None:
        for name, value in self.__dict__.items():
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"SandboxLimits.{name} must be a positive int, not {value!r}")


@dataclass(frozen=True)
class SandboxConfig:
    """How engines are started. ``mode`` is one of ``MODES``; ``require_full`` refuses anything
    weaker than ``bwrap`` (``SandboxError``). Raises ``ValueError`` for an unknown mode."""

    mode: str = "auto"
    require_full: bool = False
    limits: SandboxLimits = field(default_factory=SandboxLimits)
    #: A delegated cgroup v2 directory ("" = none): each engine then also runs in a child
    #: cgroup of it with ``memory.max = cgroup_memory_bytes`` (``engines.sandbox.cgroup``).
    cgroup_parent: str = ""
    cgroup_memory_bytes: int = 1 << 30
    #: Cores the engine's cgroup may use together (``cpu.max``), where the delegated directory
    #: enables the cpu controller for its children; None: no kernel CPU cap.
    cgroup_cpu_cores: float | None = 1.25

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"sandbox mode must be one of {', '.join(MODES)}, not {self.mode!r}")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> SandboxConfig:
        """Read ``BAO_SANDBOX_MODE`` (default ``auto``) and ``BAO_SANDBOX_REQUIRE_FULL``
        (``1``/``0``, ``true``/``false``...). Raises ``ValueError`` on junk values."""
        env = os.environ if environ is None else environ
        mode = env.get("BAO_SANDBOX_MODE", "auto").strip().lower() or "auto"
        flag = env.get("BAO_SANDBOX_REQUIRE_FULL", "0").strip().lower()
        if flag not in ("", "0", "1", "false", "true", "no", "yes", "off", "on"):
            raise ValueError(f"BAO_SANDBOX_REQUIRE_FULL must be 0 or 1, not {flag!r}")
        return cls(mode=mode, require_full=flag in ("1", "true", "yes", "on"))
