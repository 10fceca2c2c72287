"""What the referee needs of an engine's process and of whoever starts it. No Django.

The real ones are ``engines.sandbox.EngineProcess`` and ``engines.sandbox.start_engine``; the
referee's tests swap in fakes (``tests/referee/fakes.py``) through ``RefereeConfig.starter`` and
``transport_factory``, so these are protocols, which both fit. The referee reads the sandbox's
extras (``stderr_overflow``, ``stderr_tail()``, ``limits``, ``oom_killed()``, ``alive_pids()``,
and the watchdog's ``memory_bytes()``/``sigkill_all()``) only where a process has them: a fake
may lack them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from .transport import Transport

if TYPE_CHECKING:
    from engines.package import EnginePackage
    from engines.sandbox import SandboxConfig


class Killable(Protocol):
    """Anything a stop kills (``MatchControl.attach``)."""

    def kill(self) -> None:
        """Kill every process of the engine at once (idempotent); never blocks for long."""
        ...


class EngineProcessLike(Killable, Protocol):
    """A running engine as ``EngineSlot`` drives it (``engines.sandbox.EngineProcess``)."""

    def poll(self) -> int | None:
        """The exit status (negative: killed by that signal), or None while it runs."""
        ...

    def wait(self, timeout: float) -> int | None:
        """Wait at most ``timeout`` seconds for it to exit; its status, or None on timeout
        (it never raises ``TimeoutExpired``)."""
        ...


class Starter(Protocol):
    """``RefereeConfig.starter``: starts ``package`` under the sandbox ``config`` (called
    without one when ``RefereeConfig.sandbox`` is None); ``engines.sandbox.start_engine``
    fits. Any exception it raises aborts the game (``StartError``)."""

    def __call__(
        self, package: EnginePackage, config: SandboxConfig = ..., /
    ) -> EngineProcessLike: ...


#: ``RefereeConfig.transport_factory``: the line transport to a process the starter started
#: (default: ``PipeTransport.for_process``).
TransportFactory = Callable[[EngineProcessLike], Transport]
