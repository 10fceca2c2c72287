"""The BEP protocol client: one engine seen through a ``Transport``.

Protocol: docs/protocol.md; what the referee does with it: docs/referee.md.

Every read has a deadline; every failure becomes an ``EngineFault`` carrying the termination
code (``arena.terminations``) the referee records. Lines an engine sends that the protocol does
not expect at that point are ignored: kept in ``log`` and handed to the record through
``take_ignored``; a line that should have been the reply but is not a valid one is
``invalid_output``.

**The readyok fence.** A move is asked for in one write, ``position``, ``isready``, ``go``
(``go``), and only a ``bestmove`` read after the ``readyok`` of that ``isready`` counts: an
engine answers commands in order, so whatever it wrote before it had read this ``isready`` (a
stale ``bestmove``, the reply to a ``stop`` or ``newgame``, a duplicate answer) arrives before
the ``readyok`` and is ignored. The fence costs no extra round trip, and still tells a stalled
engine (no ``readyok`` within the ready timeout: ``stall``) from a slow one (``readyok``, then
no ``bestmove`` in time: ``time_forfeit``). Between games ``resync`` sends ``stop`` (if a
``bestmove`` is still owed) and ``isready`` and drains to that ``readyok`` and the owed
``bestmove``, so a search cut short never answers the next game.

While it waits for a reply the client calls its ``watch`` (if set) when the wait starts (unless
it just did) and at least every ``WATCH_INTERVAL_MS``: the referee uses it to notice what the
reply stream cannot show, such as an engine that has written more stderr than its cap
(``output_limit`` at once, not when the reply finally comes or the wait times out). A
``watch`` ends the wait by raising.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, NoReturn

from arena import terminations as T
from arena.terminations import Termination

from .output_cap import LineBudget
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
_WATCH_INTERVAL_NS = WATCH_INTERVAL_MS * MS
#: A read that starts within this many ns of the last ``watch`` call does not call it again:
#: the lines of one move come in quick reads, and the watch costs more than the read.
WATCH_GAP_NS = 1_000_000
#: How many of the engine's last unexpected/ignored lines the client keeps (for debugging).
LOG_KEEP = 200
#: How many ignored lines ``take_ignored`` hands to one move of the record, and how many
#: characters of each: an engine cannot bloat the stored game by talking out of turn.
IGNORED_KEEP = 20
IGNORED_CHARS = 200
#: How much of a received line a fault detail quotes.
QUOTE_CHARS = 80
#: ``want legalmoves``: the engine is sent ``legalmoves <t1> <t2> ...`` with every move.
LEGALMOVES = "legalmoves"
#: The features an engine may ask for in the handshake with ``want <feature>``
#: (docs/protocol.md 3); a ``want`` of anything else is ignored (kept as an ignored line), so
#: an engine written for a later referee still plays.
FEATURES = frozenset({LEGALMOVES})


class EngineFault(Exception):
    """The engine broke the protocol; ``code`` is its termination (``arena.terminations``)."""

    def __init__(self, code: Termination, detail: str) -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail


@dataclass
class EngineId:
    """What the engine said in the handshake: ``id name``/``id author``, options, variants,
    and the known features (``FEATURES``) it asked for with ``want`` lines."""

    name: str = ""
    author: str = ""
    options: dict[str, dict[str, str]] = field(default_factory=dict)  # name -> {"type", "default"}
    variants: list[str] = field(default_factory=list)
    wants: set[str] = field(default_factory=set)


class BestMove(NamedTuple):
    """A ``bestmove`` reply: ``token`` as sent, ``info`` lines (without the ``info `` prefix)
    read after the fence's ``readyok``, ``sent_ns``/``received_ns`` the monotonic instants of
    the ``go`` written and the ``bestmove`` line read. (A named tuple: one is made per ply.)"""

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
    one, e.g. ``FakeTransport``, else ``time.monotonic_ns``). ``watch``: called before a read
    (unless called less than ``WATCH_GAP_NS`` before) and at least every ``WATCH_INTERVAL_MS``
    while a reply is awaited; whatever it raises ends
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
        # isready sent whose readyok was never read (a watch or a fault cut the wait short):
        # the next fence and resync count them, so a late readyok never opens a later fence.
        self.owed_readyok = 0
        self.broken = False  # after a fault that leaves the stream unusable (overflow, EOF)
        self.lines_read = 0  # every line read so far, for "what was last received" details
        self._watch_due = 0  # clock() from which the next read calls the watch again
        self.last_line: str | None = None
        self._ignored: list[str] = []
        self._ignored_dropped = 0

    # ------------------------------------------------------------------ low level

    def send(self, line: str, deadline_ns: int | None = None) -> int:
        """Write one command (or several, joined by ``\n``, in one write); returns the instant
        after the write. Raises ``EngineFault``: ``crash`` if the engine is gone, ``stall`` if
        it stopped reading its stdin."""
        try:
            return self.transport.write_line(line, deadline_ns)
        except TransportClosed as exc:
            self.broken = True
            why = exc.strerror or ""
            # The transport's own text already says it ("engine closed its stdin"): once.
            text = why if why.startswith("engine ") else f"engine closed its stdin ({why})"
            raise EngineFault(T.CRASH, text) from exc
        except WriteTimeout as exc:
            self.broken = True
            raise EngineFault(T.STALL, "engine stopped reading its stdin") from exc

    def _next(self, deadline_ns: int) -> ReadResult:
        """``transport.read_line(deadline_ns)``, in slices of ``WATCH_INTERVAL_MS`` with the
        ``watch`` called before each (unless it ran less than ``WATCH_GAP_NS`` ago; its
        exceptions propagate)."""
        watch = self.watch
        if watch is None:
            result = self.transport.read_line(deadline_ns)
        else:
            while True:
                now = self.clock()
                if now >= self._watch_due:
                    watch()
                    self._watch_due = now + WATCH_GAP_NS
                step = now + _WATCH_INTERVAL_NS
                if step >= deadline_ns:
                    result = self.transport.read_line(deadline_ns)
                    break
                result = self.transport.read_line(step)
                if result.status != TIMEOUT:
                    break
        if result.status == LINE:
            self.lines_read += 1
            self.last_line = result.line or ""
        return result

    def _read(self, deadline_ns: int, waiting_for: str, on_timeout: Termination, since: int) -> str:
        """The next line, or ``EngineFault``: ``on_timeout`` at the deadline, ``crash`` at EOF,
        ``output_limit`` on overflow. ``since``: ``lines_read`` when the command was sent."""
        return self._read_result(self._next(deadline_ns), waiting_for, on_timeout, since)

    def _keep(self, line: str) -> None:
        self.log.append(line)
        if len(self.log) > LOG_KEEP:
            del self.log[: len(self.log) - LOG_KEEP]

    def _ignore(self, line: str) -> None:
        """A line the protocol did not expect here: logged, and kept for the record."""
        self._keep(line)
        if not line.strip():
            return
        if len(self._ignored) < IGNORED_KEEP:
            self._ignored.append(line[:IGNORED_CHARS])
        else:
            self._ignored_dropped += 1

    def take_ignored(self) -> list[str]:
        """The lines ignored since the last call (at most ``IGNORED_KEEP``, each cut to
        ``IGNORED_CHARS``; a last entry ``(N more lines)`` counts the rest), and forget them."""
        taken = self._ignored
        if not taken:
            return []  # the usual case on the move path: nothing to hand over
        if self._ignored_dropped:
            taken.append(f"({self._ignored_dropped} more lines)")
        self._ignored, self._ignored_dropped = [], 0
        return taken

    def _received(self, since: int) -> str:
        """``; last line received: '...'`` if the engine sent a line since ``lines_read`` was
        ``since``, else "" (the tail of a timeout's detail)."""
        if self.lines_read > since and self.last_line is not None:
            return f"; last line received: {_quote(self.last_line)}"
        return ""

    # ------------------------------------------------------------------ commands

    def handshake(self, timeout_ms: int) -> EngineId:
        """``bep`` ... ``bepok`` within ``timeout_ms``; returns the ``EngineId``.

        Lines before the first ``id name`` (a start-up banner, a ``bepok`` printed before the
        engine read ``bep``) are ignored; the handshake goes on to its deadline. Raises
        ``EngineFault(handshake_failed)`` on timeout, the detail saying what arrived (``0 bytes
        arrived on stdout`` for an engine that never flushes); an EOF/overflow keeps its own
        code (``crash``/``output_limit``).
        """
        return self.finish_handshake(self.begin_handshake(timeout_ms))

    def begin_handshake(self, timeout_ms: int) -> tuple[int, int]:
        """Write ``bep`` and return at once (so several engines can start up together); pass
        the result to ``finish_handshake``. Raises ``EngineFault(crash)``."""
        since = self.lines_read
        return self.send("bep") + timeout_ms * MS, since

    def finish_handshake(self, started: tuple[int, int]) -> EngineId:
        """Read the handshake ``begin_handshake`` started, up to its deadline; as ``handshake``."""
        deadline, since = started
        ident = EngineId()
        while True:
            result = self._next(deadline)
            if result.status == TIMEOUT:
                raise EngineFault(T.HANDSHAKE_FAILED, self._handshake_timeout(ident, since))
            line = self._read_result(result, "bepok", T.HANDSHAKE_FAILED, since)
            words = line.split()
            if not words:
                continue
            head = words[0]
            if head == "id" and len(words) >= 3 and words[1] == "name":
                ident.name = line.split(None, 2)[2].strip()
            elif not ident.name:
                self._ignore(line)  # nothing counts before the engine's name
            elif head == "bepok":
                break
            elif head == "id" and len(words) >= 3 and words[1] == "author":
                ident.author = line.split(None, 2)[2].strip()
            elif head == "option" and len(words) >= 3 and words[1] == "name":
                name, props = _parse_option(words[2:])
                ident.options[name] = props
            elif head == "variant" and len(words) == 2:
                ident.variants.append(words[1])
            elif head == "want" and len(words) == 2 and words[1] in FEATURES:
                ident.wants.add(words[1])
            else:
                self._ignore(line)
        self.id = ident
        return ident

    def _handshake_timeout(self, ident: EngineId, since: int) -> str:
        detail = "timed out waiting for bepok"
        got = self.transport.bytes_read
        if got == 0:
            return (
                f"{detail}: 0 bytes arrived on stdout (is the engine's output flushed after "
                "every line? docs/protocol.md 1)"
            )
        if self.lines_read == since:
            return f"{detail}: {got} bytes arrived on stdout, but no complete line"
        if not ident.name:
            return f"{detail}: no 'id name' line yet{self._received(since)}"
        return f"{detail}{self._received(since)}"

    def setoption(self, name: str, value: str) -> None:
        """``setoption name <N> value <V>`` (no reply expected)."""
        self.send(f"setoption name {name} value {value}")

    def resync(self, timeout_ms: int) -> None:
        """Bring the stream back to a known state before a new game.

        If a ``bestmove`` is still owed (a forfeit or a ``watch`` cut the engine off), sends
        ``stop`` first. Then ``isready`` and drains until its ``readyok`` (after those of
        fences a ``watch`` cut short) *and* the owed ``bestmove`` (a threaded engine may answer
        ``readyok`` before it stops searching); a ``bestmove`` counts as the owed one only once
        the ``readyok`` of the ``go`` that asked for it has been read, so a stale line before
        it cannot stand in for it. Raises ``EngineFault(stall)`` if either does not come within
        ``timeout_ms``: the caller then restarts the engine.
        """
        since = self.lines_read
        deadline = self.clock() + timeout_ms * MS
        self.send("stop\nisready" if self.owes_bestmove else "isready", deadline)
        self.owed_readyok += 1
        while self.owed_readyok or self.owes_bestmove:
            waiting_for = "readyok" if self.owed_readyok else "the owed bestmove"
            line = self._read(deadline, waiting_for, T.STALL, since)
            if line.strip() == "readyok" and self.owed_readyok:
                self.owed_readyok -= 1
                continue
            # Only this resync's own readyok may still be owed: the owed go's fence is past.
            if self.owes_bestmove and self.owed_readyok <= 1 and line.startswith("bestmove"):
                self.owes_bestmove = False  # the late reply we were owed: dropped
            self._ignore(line)

    def newgame(self, variant_id: str) -> None:
        """``newgame <variant-id>`` (no reply; the next fence's ``readyok`` covers it)."""
        self.send(f"newgame {variant_id}")

    @property
    def wants_legal_moves(self) -> bool:
        """True if the engine asked for ``legalmoves`` lines (``want legalmoves``)."""
        return LEGALMOVES in self.id.wants

    def go(
        self,
        position_cmd: str,
        go_cmd: str,
        budget_ns: int,
        ready_timeout_ms: int,
        legal_moves: Sequence[str] | None = None,
        info_budget: LineBudget | None = None,
    ) -> BestMove:
        """Write ``position_cmd``, ``isready`` and ``go_cmd`` in one write; return the
        ``bestmove`` read after that ``isready``'s ``readyok`` (the fence: module docstring).
        ``legal_moves`` (the sorted tokens of the position, for an engine that asked for them)
        adds the line ``legalmoves <t1> <t2> ...`` right after ``position_cmd``, in the same
        write. ``info_budget``: what is left of the engine's ``info`` for this game
        (``output_cap``); a line it refuses is dropped as it is read.

        Lines before the ``readyok`` are ignored (``take_ignored``); after it, ``info`` lines
        are kept for the move, other lines ignored. The clock runs from the write to the
        instant the ``bestmove`` line is read; the read gives up ``budget_ns`` after the write
        (remaining clock + what is left of the grace). Raises ``EngineFault``: ``stall`` (no
        ``readyok`` within ``ready_timeout_ms``, or stdin full), ``time_forfeit`` (the
        ``readyok`` came but the ``bestmove`` did not, in time; the bestmove is then owed),
        ``invalid_output`` (a ``bestmove`` line without exactly one token), ``crash``,
        ``output_limit``. A timeout's detail quotes the last line received.
        """
        since = self.lines_read
        ready_ns = ready_timeout_ms * MS
        if legal_moves is not None:
            position_cmd = f"{position_cmd}\n{LEGALMOVES} {' '.join(legal_moves)}"
        sent = self.send(f"{position_cmd}\nisready\n{go_cmd}", self.clock() + ready_ns)
        self.owed_readyok += 1
        self.owes_bestmove = True
        clock_deadline = sent + budget_ns
        info: list[str] = []
        next_line = self._next
        while self.owed_readyok:
            # A silent engine is waited for up to the ready timeout even past its clock, so a
            # stuck one (stall) is told from a slow one (time_forfeit).
            result = next_line(sent + ready_ns)
            if result.status != LINE:
                self._raise_for(result, "readyok", T.STALL, since)
            line = result.line
            assert line is not None
            if line == "readyok" or line.strip() == "readyok":
                self.owed_readyok -= 1
            else:
                self._ignore(line)
        if self.clock() > clock_deadline:
            raise EngineFault(
                T.TIME_FORFEIT,
                f"readyok only {(self.clock() - sent) // MS} ms after the go, past the clock",
            )
        since = self.lines_read  # a timeout quotes what came after the readyok
        while True:
            result = next_line(clock_deadline)
            if result.status != LINE:
                self._raise_for(result, "bestmove", T.TIME_FORFEIT, since)
            line = result.line
            assert line is not None
            words = line.split()
            if not words:
                continue
            head = words[0]
            if head == "bestmove":
                self.owes_bestmove = False
                if len(words) != 2:
                    raise EngineFault(T.INVALID_OUTPUT, f"malformed bestmove line {_quote(line)}")
                return BestMove(words[1], info, sent, result.at_ns)
            if head == "info":
                text = line[4:].strip()
                if info_budget is None or info_budget.keep(text):
                    info.append(text)
            else:
                self._ignore(line)

    def _read_result(
        self, result: ReadResult, waiting_for: str, on_timeout: Termination, since: int
    ) -> str:
        """``result``'s line, or the ``EngineFault`` of its status (see ``_read``)."""
        if result.status != LINE:
            self._raise_for(result, waiting_for, on_timeout, since)
        return result.line or ""

    def _raise_for(
        self, result: ReadResult, waiting_for: str, on_timeout: Termination, since: int
    ) -> NoReturn:
        if result.status == TIMEOUT:
            raise EngineFault(
                on_timeout, f"timed out waiting for {waiting_for}{self._received(since)}"
            )
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


def _quote(line: str) -> str:
    return repr(line if len(line) <= QUOTE_CHARS else line[:QUOTE_CHARS] + "...")


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
