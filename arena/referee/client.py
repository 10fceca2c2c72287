"""The BEP protocol client: one engine seen through a ``Transport``.

Protocol: ``/tmp/bep.md``, docs/referee.md.

Every read has a deadline; every failure becomes an ``EngineFault`` carrying the termination
code (``arena.terminations``) the referee records. Lines an engine sends that the protocol does
not expect at that point are ignored and kept in ``log``; a line that should have been the reply
but is not a valid one is ``invalid_output``.

Late lines (a ``bestmove`` arriving after a time forfeit) are never taken for a later reply:
``resync`` sends ``stop`` and ``isready`` and drains every line until ``readyok`` and, if a
``bestmove`` is still owed, until that too (see ``resync``).

While it waits for a reply the client calls its ``watch`` (if set) at least every
``WATCH_INTERVAL_MS``: the referee uses it to notice what the reply stream cannot show, such as
an engine that has written more stderr than its cap (``output_limit`` at once, not when the
reply finally comes or the wait times out). A ``watch`` ends the wait by raising.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NoReturn

from arena import terminations as T

from .transport import (
    LINE,
    OVERFLOW,
    TIMEOUT,
    ReadResult,
    Transport,
    TransportClosed,
    WriteTimeout,
)

MS = 1_000_000  # ns per ms
#: Longest wait between two calls of ``EngineClient.watch`` while a reply is awaited, in ms.
#: Short enough to stop a flood promptly, long enough that idle waits cost nothing measurable.
WATCH_INTERVAL_MS = 20
#: How many of the engine's last unexpected/ignored lines the client keeps (for the record).
LOG_KEEP = 200


class EngineFault(Exception):
    """The engine broke the protocol; ``code`` is its termination (``arena.terminations``)."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail


@dataclass
class EngineId:
    """What the engine said in the handshake: ``id name``/``id author``, options, variants."""

    name: str = ""
    author: str = ""
    options: dict[str, dict[str, str]] = field(default_factory=dict)  # name -> {"type", "default"}
    variants: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class BestMove:
    """A ``bestmove`` reply: ``token`` as sent, ``info`` lines (without the ``info `` prefix) seen
    since the ``go``, ``sent_ns``/``received_ns`` the monotonic instants of the ``go`` written
    and the ``bestmove`` line read."""

    token: str
    info: list[str]
    sent_ns: int
    received_ns: int

    @property
    def elapsed_ns(self) -> int:
        return self.received_ns - self.sent_ns


class EngineClient:
    """Speaks BEP to one engine over ``transport``.

    ``clock`` is the monotonic time source in ns (default: the transport's ``clock`` if it has
    one, e.g. ``FakeTransport``, else ``time.monotonic_ns``). ``watch``: called before every read
    and at least every ``WATCH_INTERVAL_MS`` while a reply is awaited; whatever it raises ends
    the wait and propagates (an ``EngineFault`` of this engine, or the caller's own exception
    when the watch looks at other engines too). Methods raise ``EngineFault``.
    """

    def __init__(
        self,
        transport: Transport,
        *,
        clock: Callable[[], int] | None = None,
        watch: Callable[[], None] | None = None,
    ) -> None:
        self.transport = transport
        # ``clock`` is not part of ``Transport`` (a real pipe has no time of its own), so it is
        # looked up; the annotation states what a transport's ``clock`` must be.
        transport_clock: Callable[[], int] = getattr(transport, "clock", time.monotonic_ns)
        self.clock = clock or transport_clock
        self.watch = watch
        self.id = EngineId()
        self.log: list[str] = []
        self.owes_bestmove = False  # a go was sent and its bestmove never read
        # isready sent whose readyok was never read (a watch cut the ping short): resync drains
        # them, so a late readyok never answers a later ping.
        self.owed_readyok = 0
        self.broken = False  # after a fault that leaves the stream unusable (overflow, EOF)

    # ------------------------------------------------------------------ low level

    def send(self, line: str, deadline_ns: int | None = None) -> int:
        """Write one command; returns the instant after the write. Raises ``EngineFault``:
        ``crash`` if the engine is gone, ``stall`` if it stopped reading its stdin."""
        try:
            return self.transport.write_line(line, deadline_ns)
        except TransportClosed as exc:
            self.broken = True
            raise EngineFault(T.CRASH, f"engine closed its stdin ({exc.strerror})") from exc
        except WriteTimeout as exc:
            self.broken = True
            raise EngineFault(T.STALL, "engine stopped reading its stdin") from exc

    def _next(self, deadline_ns: int) -> ReadResult:
        """``transport.read_line(deadline_ns)``, in slices of ``WATCH_INTERVAL_MS`` with the
        ``watch`` called before each (its exceptions propagate)."""
        if self.watch is None:
            return self.transport.read_line(deadline_ns)
        while True:
            self.watch()
            step = min(deadline_ns, self.clock() + WATCH_INTERVAL_MS * MS)
            result = self.transport.read_line(step)
            if result.status != TIMEOUT or step >= deadline_ns:
                return result

    def _read(self, deadline_ns: int, waiting_for: str, on_timeout: str) -> str:
        """The next line, or ``EngineFault``: ``on_timeout`` at the deadline, ``crash`` at EOF,
        ``output_limit`` on overflow."""
        result: ReadResult = self._next(deadline_ns)
        if result.status != LINE:
            self._raise_for(result, waiting_for, on_timeout)
        return result.line or ""

    def _keep(self, line: str) -> None:
        self.log.append(line)
        if len(self.log) > LOG_KEEP:
            del self.log[: len(self.log) - LOG_KEEP]

    # ------------------------------------------------------------------ commands

    def handshake(self, timeout_ms: int) -> EngineId:
        """``bep`` ... ``bepok`` within ``timeout_ms``; returns the ``EngineId``.

        Raises ``EngineFault(handshake_failed)`` on timeout, or if ``bepok`` came without an
        ``id name`` (an EOF/overflow keeps its own code: ``crash``/``output_limit``).
        """
        deadline = self.send("bep") + timeout_ms * MS
        ident = EngineId()
        while True:
            line = self._read(deadline, "bepok", T.HANDSHAKE_FAILED)
            words = line.split()
            if not words:
                continue
            head = words[0]
            if head == "bepok":
                break
            if head == "id" and len(words) >= 3 and words[1] in ("name", "author"):
                value = line.split(None, 2)[2].strip()
                if words[1] == "name":
                    ident.name = value
                else:
                    ident.author = value
            elif head == "option" and len(words) >= 3 and words[1] == "name":
                name, props = _parse_option(words[2:])
                ident.options[name] = props
            elif head == "variant" and len(words) == 2:
                ident.variants.append(words[1])
            else:
                self._keep(line)
        if not ident.name:
            raise EngineFault(T.HANDSHAKE_FAILED, "bepok without an 'id name' line")
        self.id = ident
        return ident

    def setoption(self, name: str, value: str) -> None:
        """``setoption name <N> value <V>`` (no reply expected)."""
        self.send(f"setoption name {name} value {value}")

    def ping(self, timeout_ms: int) -> None:
        """``isready``; waits for ``readyok`` within ``timeout_ms``, ignoring other lines.

        Raises ``EngineFault(stall)`` on timeout (``crash``/``output_limit`` as usual).
        """
        deadline = self.send("isready", self.clock() + timeout_ms * MS) + timeout_ms * MS
        self.owed_readyok += 1
        while True:
            line = self._read(deadline, "readyok", T.STALL)
            if line.strip() == "readyok":
                self.owed_readyok -= 1
                if not self.owed_readyok:
                    return
                continue  # the late answer to a ping a watch cut short
            self._note_stray(line)

    def _note_stray(self, line: str) -> None:
        if line.startswith("bestmove"):
            self.owes_bestmove = False  # the late reply we were owed: dropped, never counted
            self._keep("(late) " + line)
        else:
            self._keep(line)

    def resync(self, timeout_ms: int) -> None:
        """Bring the stream back to a known state before a new game.

        If a ``bestmove`` is still owed (a forfeit or a ``watch`` cut the engine off), sends
        ``stop`` first. Then ``isready`` and drains until its ``readyok`` (after those of pings
        a ``watch`` cut short) *and* the owed ``bestmove`` (a threaded engine may answer
        ``readyok`` before it stops searching). Raises ``EngineFault(stall)``
        if either does not come within ``timeout_ms``: the caller then restarts the engine.
        """
        deadline = self.clock() + timeout_ms * MS
        if self.owes_bestmove:
            self.send("stop", deadline)
        self.send("isready", deadline)
        self.owed_readyok += 1
        while self.owed_readyok or self.owes_bestmove:
            waiting_for = "readyok" if self.owed_readyok else "the owed bestmove"
            line = self._read(deadline, waiting_for, T.STALL)
            if line.strip() == "readyok" and self.owed_readyok:
                self.owed_readyok -= 1
            else:
                self._note_stray(line)

    def newgame(self, variant_id: str) -> None:
        """``newgame <variant-id>`` (no reply; the next ``isready`` confirms it)."""
        self.send(f"newgame {variant_id}")

    def go(self, position_cmd: str, go_cmd: str, budget_ns: int) -> BestMove:
        """Send ``position_cmd`` then ``go_cmd``; read ``info`` lines until ``bestmove``.

        The clock runs from the instant ``go_cmd`` is written to the instant the ``bestmove``
        line is read; the read gives up ``budget_ns`` after the ``go`` (remaining clock + grace).
        Raises ``EngineFault``: ``time_forfeit`` (deadline; the bestmove is then owed),
        ``invalid_output`` (a ``bestmove`` line without exactly one token), ``crash``,
        ``output_limit``, ``stall`` (stdin full). Lines other than ``info``/``bestmove`` are
        ignored (kept in ``log``).
        """
        self.send(position_cmd, self.clock() + budget_ns)
        sent = self.send(go_cmd, self.clock() + budget_ns)
        self.owes_bestmove = True
        deadline = sent + budget_ns
        info: list[str] = []
        while True:
            result = self._next(deadline)
            if result.status != LINE:
                # Re-raise through _read's mapping (TIMEOUT -> time_forfeit).
                self._raise_for(result, "bestmove", T.TIME_FORFEIT)
            line = result.line or ""
            words = line.split()
            if not words:
                continue
            if words[0] == "bestmove":
                self.owes_bestmove = False
                if len(words) != 2:
                    raise EngineFault(T.INVALID_OUTPUT, f"malformed bestmove line {line[:200]!r}")
                return BestMove(words[1], info, sent, result.at_ns)
            if words[0] == "info":
                info.append(line[4:].strip())
            else:
                self._keep(line)

    def _raise_for(self, result: ReadResult, waiting_for: str, on_timeout: str) -> NoReturn:
        if result.status == TIMEOUT:
            raise EngineFault(on_timeout, f"timed out waiting for {waiting_for}")
        self.broken = True
        if result.status == OVERFLOW:
            raise EngineFault(T.OUTPUT_LIMIT, result.detail or "output limit exceeded")
        raise EngineFault(
            T.CRASH, f"engine closed its stdout while the referee waited for {waiting_for}"
        )

    def stop(self) -> None:
        """``stop``: the engine should answer its ``bestmove`` now."""
        self.send("stop")

    def quit(self) -> None:
        """``quit``, ignoring a dead pipe (the process owner kills it anyway)."""
        with contextlib.suppress(TransportClosed, WriteTimeout):
            self.transport.write_line("quit", self.clock() + 100 * MS)


def _parse_option(words: list[str]) -> tuple[str, dict[str, str]]:
    """``option name <N> type <T> default <D>`` -> (N, {"type": T, "default": D}); N may hold
    spaces (everything up to ``type``), D is the rest of the line."""
    name_words: list[str] = []
    props: dict[str, str] = {}
    i = 0
    while i < len(words) and words[i] != "type":
        name_words.append(words[i])
        i += 1
    if i + 1 < len(words):
        props["type"] = words[i + 1]
        i += 2
    if i < len(words) and words[i] == "default":
        props["default"] = " ".join(words[i + 1 :])
    return " ".join(name_words), props
