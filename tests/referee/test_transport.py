"""PipeTransport over plain OS pipes (no engine process): lines, deadlines, caps, closed ends."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator

import pytest

from arena.referee.transport import (
    EOF,
    LINE,
    OVERFLOW,
    TIMEOUT,
    PipeTransport,
    TransportClosed,
    WriteTimeout,
)

MS = 1_000_000


class Pipes:
    """The referee's ends (a PipeTransport) and the "engine's" ends (raw fds)."""

    def __init__(self, **caps: int) -> None:
        self.engine_stdin_r, referee_w = os.pipe()
        referee_r, self.engine_stdout_w = os.pipe()
        self.fds = [self.engine_stdin_r, referee_w, referee_r, self.engine_stdout_w]
        self.t = PipeTransport(referee_w, referee_r, **caps)

    def say(self, data: bytes) -> None:
        os.write(self.engine_stdout_w, data)

    def close(self) -> None:
        for fd in self.fds:
            with contextlib.suppress(OSError):
                os.close(fd)


@pytest.fixture
def pipes() -> Iterator[Pipes]:
    p = Pipes(max_line_bytes=32, max_stdout_bytes=200)
    yield p
    p.close()


def _soon() -> int:
    return time.monotonic_ns() + 200 * MS


def test_it_joins_partial_writes_and_splits_two_lines_in_one_write(pipes: Pipes) -> None:
    pipes.say(b"info dep")
    assert pipes.t.read_line(time.monotonic_ns() + 5 * MS).status == TIMEOUT
    pipes.say(b"th 1\r\nbestmove c1\nready")
    assert pipes.t.read_line(_soon()).line == "info depth 1"
    assert pipes.t.read_line(_soon()).line == "bestmove c1"
    pipes.say(b"ok\n")
    assert pipes.t.read_line(_soon()).line == "readyok"


def test_a_read_returns_at_its_deadline(pipes: Pipes) -> None:
    start = time.monotonic_ns()
    result = pipes.t.read_line(start + 30 * MS)
    waited = time.monotonic_ns() - start
    assert result.status == TIMEOUT
    assert 30 * MS <= waited < 80 * MS


def test_eof_delivers_a_last_unterminated_line_then_eof(pipes: Pipes) -> None:
    pipes.say(b"bestmove a1")
    os.close(pipes.engine_stdout_w)
    assert (pipes.t.read_line(_soon()).status, pipes.t.read_line(_soon()).status) == (LINE, EOF)
    assert pipes.t.read_line(_soon()).status == EOF


def test_undecodable_bytes_are_replaced_not_fatal(pipes: Pipes) -> None:
    pipes.say(b"bestmove \xff\xfe\n")
    assert pipes.t.read_line(_soon()).line == "bestmove \ufffd\ufffd"


def test_a_line_over_the_cap_is_an_overflow_and_it_sticks(pipes: Pipes) -> None:
    pipes.say(b"x" * 40)
    result = pipes.t.read_line(_soon())
    assert (result.status, result.detail) == (OVERFLOW, "a line longer than 32 bytes on stdout")
    pipes.say(b"\nreadyok\n")
    assert pipes.t.read_line(_soon()).status == OVERFLOW


def test_lines_before_an_overlong_one_in_the_same_read_are_still_read(pipes: Pipes) -> None:
    pipes.say(b"readyok\n" + b"info " + b"x" * 40 + b"\nbestmove a1\n")
    assert pipes.t.read_line(_soon()).line == "readyok"
    result = pipes.t.read_line(_soon())
    assert (result.status, result.detail) == (OVERFLOW, "a line longer than 32 bytes on stdout")
    assert pipes.t.read_line(_soon()).status == OVERFLOW


def test_a_read_with_control_characters_is_cleaned_line_by_line(pipes: Pipes) -> None:
    # One read holding a CRLF line, a stray CR and a NUL inside lines, and a clean line.
    pipes.say(b"readyok\r\ninfo a\rb\ninfo \x00\nbestmove a1\n")
    lines = [pipes.t.read_line(_soon()).line for _ in range(4)]
    assert lines == ["readyok", "info a\ufffdb", "info \ufffd", "bestmove a1"]


def test_a_line_in_pieces_is_joined_across_reads(pipes: Pipes) -> None:
    pipes.say(b"best")
    assert pipes.t.read_line(time.monotonic_ns() + 5 * MS).status == TIMEOUT
    pipes.say(b"move")
    assert pipes.t.read_line(time.monotonic_ns() + 5 * MS).status == TIMEOUT
    pipes.say(b" a1\r\n\n")
    assert [pipes.t.read_line(_soon()).line for _ in range(2)] == ["bestmove a1", ""]


def test_too_much_stdout_in_total_is_an_overflow(pipes: Pipes) -> None:
    statuses = []
    for _ in range(12):
        pipes.say(b"info string 12345678\n")  # 21 bytes each, 252 in all > 200
        statuses.append(pipes.t.read_line(_soon()).status)
    assert statuses[:9] == [LINE] * 9
    assert statuses[-1] == OVERFLOW
    assert pipes.t.read_line(_soon()).detail == "more than 200 bytes on stdout"


def test_writes_reach_the_engine_as_lines(pipes: Pipes) -> None:
    pipes.t.write_line("isready")
    pipes.t.write_line("go movetime 10")
    assert os.read(pipes.engine_stdin_r, 100) == b"isready\ngo movetime 10\n"


def test_a_full_pipe_times_out_the_write_instead_of_blocking(pipes: Pipes) -> None:
    line = "position startpos moves " + "a1 " * 2000
    with pytest.raises(WriteTimeout):
        for _ in range(1000):  # the engine never reads: the pipe buffer fills
            pipes.t.write_line(line, time.monotonic_ns() + 20 * MS)


def test_writing_after_the_engine_closed_its_stdin_is_transport_closed(pipes: Pipes) -> None:
    os.close(pipes.engine_stdin_r)
    with pytest.raises(TransportClosed):
        pipes.t.write_line("isready")
