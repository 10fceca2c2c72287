"""Line transports between the referee and one engine: the interface, the pipe, a scripted fake.

The engine client (``client.py``) only talks to a ``Transport``, so its protocol handling is
tested without processes (``FakeTransport``) and runs for real over ``PipeTransport``.

Every read takes an absolute deadline in ``time.monotonic_ns()`` nanoseconds and never blocks
past it. A read returns a ``ReadResult`` whose status is one of ``LINE``, ``TIMEOUT``, ``EOF``
(the engine closed its stdout: it exited or crashed) or ``OVERFLOW`` (a line longer than the
line cap, or more stdout bytes in total than the output cap).
"""

from __future__ import annotations

import errno
import os
import re
import select
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import NamedTuple, Protocol

from arena.engine_text import clean_engine_text, decode_engine_output

LINE = "line"
TIMEOUT = "timeout"
EOF = "eof"
OVERFLOW = "overflow"

#: Longest engine line accepted, in bytes (without the newline). Long pv lines fit easily.
DEFAULT_MAX_LINE_BYTES = 64 * 1024
#: A run of complete lines that decodes to itself: printable ASCII, tabs, newlines (no ``\r``).
_PLAIN_LINES = re.compile(rb"[\t\n\x20-\x7e]*")
#: Total stdout bytes accepted from one engine process before ``OVERFLOW``.
DEFAULT_MAX_STDOUT_BYTES = 16 * 2**20


class ReadResult(NamedTuple):
    """One read: ``status`` (LINE/TIMEOUT/EOF/OVERFLOW), the ``line`` (without ``\\n``, only
    for LINE) and ``at_ns``, the ``monotonic_ns`` instant the line became available (for LINE)
    or the read gave up. (A named tuple: one is made per line on the move path, and it is
    cheaper to build than a frozen dataclass.)"""

    status: str
    line: str | None
    at_ns: int
    detail: str = ""


class TransportClosed(OSError):
    """A write failed because the engine closed its stdin (it exited or crashed)."""


class WriteTimeout(OSError):
    """A write could not complete before its deadline: the engine stopped reading stdin."""


class Transport(Protocol):
    """What the engine client needs from a connection to one engine."""

    @property
    def bytes_read(self) -> int:
        """Bytes received from the engine's stdout so far (for diagnostics: 0 means the engine
        never flushed anything)."""
        ...

    def write_line(self, line: str, deadline_ns: int | None = None) -> int:
        """Send ``line`` plus ``\\n`` in one write (``line`` may hold several commands joined
        by ``\\n``); returns ``monotonic_ns()`` just after the write.

        Raises ``TransportClosed`` if the engine is gone, ``WriteTimeout`` if it stopped reading
        and the pipe stayed full until ``deadline_ns``.
        """
        ...

    def read_line(self, deadline_ns: int) -> ReadResult:
        """The next line, or TIMEOUT at ``deadline_ns``, EOF, OVERFLOW. Never blocks longer."""
        ...

    def close(self) -> None:
        """Release the connection (idempotent). Does not kill the process."""
        ...


class _FileLike(Protocol):
    def fileno(self) -> int: ...


class EngineProcessPipes(Protocol):
    """The two pipe ends ``PipeTransport.for_process`` needs (``engines.sandbox.EngineProcess``
    has them; the referee does not import the sandbox for this)."""

    @property
    def stdin(self) -> _FileLike: ...

    @property
    def stdout_fd(self) -> int: ...


#: ``FakeTransport``'s ``on_line``: the chunks the fake engine writes for the line it received
#: (``None`` for none); chunks as in its ``script``.
OnLine = Callable[[str], Iterable[str | tuple[int, str]] | None]


class PipeTransport:
    """A transport over the stdin / raw stdout fd of an ``engines.sandbox.EngineProcess``.

    Reads ``poll`` the raw stdout fd and split lines in an own buffer (no Python buffering, so a
    deadline is exact). ``max_line_bytes`` caps one line, ``max_stdout_bytes`` the total stdout
    of the process; either overflow is sticky: every later read returns OVERFLOW.
    Lines become text through ``arena.engine_text.decode_engine_output``: undecodable bytes and
    control characters (NUL included) are replaced by U+FFFD, so whatever an engine writes can be
    stored (a reply holding one then fails to parse: ``invalid_output``).
    """

    def __init__(
        self,
        stdin_fd: int,
        stdout_fd: int,
        *,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        max_stdout_bytes: int = DEFAULT_MAX_STDOUT_BYTES,
    ) -> None:
        self._in = stdin_fd
        self._out = stdout_fd
        os.set_blocking(self._out, False)
        os.set_blocking(self._in, False)
        self.max_line_bytes = max_line_bytes
        self.max_stdout_bytes = max_stdout_bytes
        self._buf = bytearray()  # the start of a line whose newline has not arrived yet
        self._lines: deque[str] = deque()  # complete lines, already decoded
        self._eof = False
        self._overflow = ""
        self.stdout_bytes = 0
        self._poll_in = select.poll()
        self._poll_in.register(self._out, select.POLLIN | select.POLLHUP | select.POLLERR)
        self._poll_out = select.poll()
        self._poll_out.register(self._in, select.POLLOUT | select.POLLERR)

    @property
    def bytes_read(self) -> int:
        return self.stdout_bytes

    @classmethod
    def for_process(cls, process: EngineProcessPipes, **caps: int) -> PipeTransport:
        """A transport over an ``EngineProcess`` (uses ``process.stdin`` and ``stdout_fd``)."""
        stdin = process.stdin
        return cls(stdin.fileno(), int(process.stdout_fd), **caps)

    def write_line(self, line: str, deadline_ns: int | None = None) -> int:
        data = (line + "\n").encode("utf-8")
        done = 0
        while done < len(data):
            try:
                # Usually one write takes it all (no copy); a full pipe takes part of it.
                written = os.write(self._in, data[done:] if done else data)
            except BlockingIOError:
                # The engine is not reading: wait for room until the deadline.
                timeout_ms = _remaining_ms(deadline_ns)
                if timeout_ms == 0:
                    raise WriteTimeout(errno.EAGAIN, "engine stopped reading its stdin") from None
                self._poll_out.poll(timeout_ms)
                continue
            except (BrokenPipeError, ConnectionResetError) as exc:
                raise TransportClosed(errno.EPIPE, "engine closed its stdin") from exc
            except OSError as exc:
                if exc.errno == errno.EBADF:
                    raise TransportClosed(errno.EBADF, "engine stdin is closed") from exc
                raise
            done += written
        return time.monotonic_ns()

    def read_line(self, deadline_ns: int) -> ReadResult:
        while True:
            if self._lines:
                return ReadResult(LINE, self._lines.popleft(), time.monotonic_ns())
            if self._overflow:
                return ReadResult(OVERFLOW, None, time.monotonic_ns(), self._overflow)
            if self._eof:
                return ReadResult(EOF, None, time.monotonic_ns())
            timeout_ms = _remaining_ms(deadline_ns)
            if timeout_ms == 0 and not self._poll_in.poll(0):
                return ReadResult(TIMEOUT, None, time.monotonic_ns())
            if timeout_ms and not self._poll_in.poll(timeout_ms):
                continue  # re-check the deadline (poll may wake a little early)
            self._fill()

    def _fill(self) -> None:
        try:
            chunk = os.read(self._out, 65536)
        except BlockingIOError:
            return
        except OSError:
            self._eof = True
            return
        if not chunk:
            self._eof = True
            if self._buf:  # a last line without newline still counts
                self._lines.append(_decode(bytes(self._buf)))
                self._buf.clear()
            return
        self.stdout_bytes += len(chunk)
        if self.stdout_bytes > self.max_stdout_bytes:
            self._overflow = f"more than {self.max_stdout_bytes} bytes on stdout"
            return
        if b"\n" not in chunk:
            self._buf += chunk  # a line arriving in pieces (amortised: a bytearray)
            if len(self._buf) > self.max_line_bytes:
                self._overflow = f"a line longer than {self.max_line_bytes} bytes on stdout"
            return
        # One split per read (a reply usually arrives whole: readyok, info, bestmove), and
        # one decode when the read holds nothing to replace.
        data = bytes(self._buf) + chunk if self._buf else chunk
        cut = data.rfind(b"\n")
        rest = data[cut + 1 :]  # the unfinished next line
        cap = self.max_line_bytes
        if _PLAIN_LINES.fullmatch(data, 0, cut):  # ASCII: as many characters as bytes
            lines = data[:cut].decode("ascii").split("\n")
            raws: list[bytes] | None = None
        else:
            raws = data[:cut].split(b"\n")
            lines = []
        if cut > cap:  # a line may be too long
            for i, raw in enumerate(raws if raws is not None else lines):
                if len(raw) > cap:
                    # Overflow is sticky: the lines before this one are still read, none after.
                    self._overflow = f"a line longer than {cap} bytes on stdout"
                    if raws is None:
                        del lines[i:]
                    else:
                        del raws[i:]
                    break
        if raws is not None:
            lines = [_decode(raw[:-1] if raw.endswith(b"\r") else raw) for raw in raws]
        self._lines.extend(lines)
        if self._overflow:
            return
        if rest:
            self._buf = bytearray(rest)
        else:
            self._buf.clear()
        if len(rest) > cap:
            self._overflow = f"a line longer than {cap} bytes on stdout"

    def close(self) -> None:
        # The process owner closes the fds; we only stop using them.
        self._eof = True


def _remaining_ms(deadline_ns: int | None) -> int:
    """Milliseconds to ``deadline_ns`` rounded up (poll granularity), 0 if past.

    -1 means no deadline.
    """
    if deadline_ns is None:
        return -1
    left = deadline_ns - time.monotonic_ns()
    if left <= 0:
        return 0
    return (left + 999_999) // 1_000_000


def _decode(raw: bytes) -> str:
    return decode_engine_output(raw)


class FakeTransport:
    """A scripted transport for tests: a fake clock, and replies triggered by the referee's lines.

    ``script`` maps a command (the exact line, or its first word) to the chunks of output the
    "engine" writes when it receives it; a chunk is raw text that may hold several lines or part
    of one, or a ``(delay_ms, text)`` pair that becomes readable ``delay_ms`` after the command
    (fake time). ``on_line`` may instead compute the chunks. ``eof_after`` closes the output
    after that many commands. Time is simulated: ``now_ns`` advances only when a read waits,
    so tests are exact and instant; ``clock`` is to be passed to the client as its time source.
    Lines are cleaned like ``PipeTransport``'s (``arena.engine_text.clean_engine_text``).
    """

    def __init__(
        self,
        script: dict[str, list[str | tuple[int, str]]] | None = None,
        *,
        on_line: OnLine | None = None,
        eof_after: int | None = None,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    ) -> None:
        self.script = dict(script or {})
        self.on_line = on_line
        self.eof_after = eof_after
        self.max_line_bytes = max_line_bytes
        self.now_ns = 1_000_000_000
        self.written: list[str] = []
        self._pending: list[tuple[int, int, str]] = []  # (ready_at_ns, seq, text)
        self._seq = 0
        self._buf = ""
        self._closed_out = False
        self.closed = False
        self.bytes_read = 0

    def clock(self) -> int:
        return self.now_ns

    def feed(self, text: str, delay_ms: int = 0) -> None:
        """Make ``text`` readable ``delay_ms`` from now (fake time)."""
        self._seq += 1
        self._pending.append((self.now_ns + delay_ms * 1_000_000, self._seq, text))
        self._pending.sort()

    def write_line(self, line: str, deadline_ns: int | None = None) -> int:
        # Several commands in one write reach the fake engine one by one, in order.
        for part in line.split("\n"):
            self._receive(part)
        return self.now_ns

    def _receive(self, line: str) -> None:
        if self.closed or (self.eof_after is not None and len(self.written) >= self.eof_after):
            raise TransportClosed(errno.EPIPE, "fake engine is gone")
        self.written.append(line)
        chunks: list[str | tuple[int, str]] = []
        if self.on_line is not None:
            chunks = list(self.on_line(line) or [])
        elif line in self.script:
            chunks = list(self.script[line])
        elif line.split(" ", 1)[0] in self.script:
            chunks = list(self.script[line.split(" ", 1)[0]])
        for chunk in chunks:
            if isinstance(chunk, tuple):
                self.feed(chunk[1], chunk[0])
            else:
                self.feed(chunk)
        if self.eof_after is not None and len(self.written) >= self.eof_after:
            self._closed_out = True

    def read_line(self, deadline_ns: int) -> ReadResult:
        while True:
            cut = self._buf.find("\n")
            if cut >= 0:
                line, self._buf = self._buf[:cut], self._buf[cut + 1 :]
                if len(line.encode("utf-8", "surrogatepass")) > self.max_line_bytes:
                    return ReadResult(OVERFLOW, None, self.now_ns, "line too long")
                return ReadResult(LINE, clean_engine_text(line.rstrip("\r")), self.now_ns)
            if len(self._buf.encode("utf-8", "surrogatepass")) > self.max_line_bytes:
                return ReadResult(OVERFLOW, None, self.now_ns, "line too long")
            if self._pending and self._pending[0][0] <= max(self.now_ns, deadline_ns):
                ready_at, _, text = self._pending.pop(0)
                self.now_ns = max(self.now_ns, ready_at)
                self._buf += text
                self.bytes_read += len(text.encode("utf-8", "surrogatepass"))
                continue
            if self._closed_out and not self._pending:
                return ReadResult(EOF, None, self.now_ns)
            self.now_ns = max(self.now_ns, deadline_ns)
            return ReadResult(TIMEOUT, None, self.now_ns)

    def close(self) -> None:
        self.closed = True
