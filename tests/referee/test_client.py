"""The BEP client against the scripted FakeTransport: no processes, exact fake time."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from arena import terminations as T
from arena.referee import EngineClient, EngineFault, FakeTransport
from arena.referee.client import MS, WATCH_INTERVAL_MS

HANDSHAKE = [
    "id name Kibao 1.2\n",
    "id author Mwalimu Ali\n",
    "option name Hash Size type spin default 16\n",
    "variant bao-la-kete\nvariant bao-kingulu\n",
    "hello there\n",
    "bepok\n",
]


def test_handshake_collects_id_options_and_variants() -> None:
    t = FakeTransport({"bep": HANDSHAKE})
    ident = EngineClient(t).handshake(1000)
    assert ident.name == "Kibao 1.2"
    assert ident.author == "Mwalimu Ali"
    assert ident.options == {"Hash Size": {"type": "spin", "default": "16"}}
    assert ident.variants == ["bao-la-kete", "bao-kingulu"]
    assert t.written == ["bep"]


def test_it_joins_lines_split_across_writes() -> None:
    t = FakeTransport(
        {"bep": ["id na", "me Split\nid au", "thor X\nvariant bao-kingulu\nbe", "pok\n"]}
    )
    client = EngineClient(t)
    ident = client.handshake(1000)
    assert (ident.name, ident.author, ident.variants) == ("Split", "X", ["bao-kingulu"])
    assert client.log == []


def test_unknown_handshake_lines_are_ignored_but_logged() -> None:
    client = EngineClient(FakeTransport({"bep": HANDSHAKE}))
    client.handshake(1000)
    assert client.log == ["hello there"]


def test_want_legalmoves_is_collected_and_unknown_wants_are_ignored_lines() -> None:
    t = FakeTransport(
        {
            "bep": [
                "want legalmoves\n",  # before id name: nothing counts yet
                "id name Asker\nwant colours\nwant legalmoves\nwant\nbepok\n",
            ]
        }
    )
    client = EngineClient(t)
    ident = client.handshake(1000)
    assert ident.wants == {"legalmoves"}
    assert client.wants_legal_moves is True
    assert client.take_ignored() == ["want legalmoves", "want colours", "want"]


def test_an_engine_that_asks_for_nothing_wants_no_legal_moves() -> None:
    client = EngineClient(FakeTransport({"bep": HANDSHAKE}))
    assert client.handshake(1000).wants == set()
    assert client.wants_legal_moves is False


def test_a_silent_engine_fails_the_handshake_at_its_timeout() -> None:
    t = FakeTransport({})
    start = t.now_ns
    with pytest.raises(EngineFault) as err:
        EngineClient(t).handshake(700)
    assert err.value.code == T.HANDSHAKE_FAILED
    assert t.now_ns - start == 700 * MS


def test_a_handshake_without_bepok_fails_saying_what_came_last() -> None:
    t = FakeTransport({"bep": ["id name NoOk\nvariant bao-kingulu\n"]})
    with pytest.raises(EngineFault) as err:
        EngineClient(t).handshake(500)
    assert err.value.code == T.HANDSHAKE_FAILED
    assert err.value.detail == (
        "timed out waiting for bepok; last line received: 'variant bao-kingulu'"
    )


def test_bepok_that_comes_too_late_fails_the_handshake() -> None:
    t = FakeTransport({"bep": ["id name Slow\n", (1200, "bepok\n")]})
    with pytest.raises(EngineFault) as err:
        EngineClient(t).handshake(1000)
    assert err.value.code == T.HANDSHAKE_FAILED


def test_bepok_without_a_name_is_skipped_and_the_handshake_times_out() -> None:
    t = FakeTransport({"bep": ["variant bao-kingulu\nbepok\n"]})
    client = EngineClient(t)
    with pytest.raises(EngineFault) as err:
        client.handshake(500)
    assert (err.value.code, err.value.detail) == (
        T.HANDSHAKE_FAILED,
        "timed out waiting for bepok: no 'id name' line yet; last line received: 'bepok'",
    )
    assert client.take_ignored() == ["variant bao-kingulu", "bepok"]


def test_a_bepok_printed_before_the_handshake_is_skipped() -> None:
    # A banner and a bare bepok at start-up, then the real handshake once bep is read.
    t = FakeTransport({"bep": ["bepok\n", (30, "hello\nid name Eager\nbepok\n")]})
    client = EngineClient(t)
    assert client.handshake(500).name == "Eager"
    assert client.take_ignored() == ["bepok", "hello"]


def test_an_engine_that_never_flushes_is_told_that_no_byte_arrived() -> None:
    t = FakeTransport({})
    with pytest.raises(EngineFault) as err:
        EngineClient(t).handshake(300)
    assert err.value.detail == (
        "timed out waiting for bepok: 0 bytes arrived on stdout (is the engine's output "
        "flushed after every line? docs/protocol.md 1)"
    )


def test_a_handshake_line_without_its_newline_is_reported_as_bytes() -> None:
    t = FakeTransport({"bep": ["id name NoNewline"]})
    with pytest.raises(EngineFault) as err:
        EngineClient(t).handshake(300)
    assert err.value.detail == (
        "timed out waiting for bepok: 17 bytes arrived on stdout, but no complete line"
    )


def test_an_engine_that_exits_during_the_handshake_crashes() -> None:
    t = FakeTransport({"bep": ["id name Gone\n"]}, eof_after=1)
    with pytest.raises(EngineFault) as err:
        EngineClient(t).handshake(500)
    assert err.value.code == T.CRASH


GO = ("position startpos", "go movetime 100")


def test_go_writes_position_isready_and_go_in_one_write() -> None:
    t = FakeTransport({"isready": ["readyok\n"], "go": [(40, "bestmove a1\n")]})
    writes: list[str] = []
    write = t.write_line
    t.write_line = lambda line, deadline=None: writes.append(line) or write(line, deadline)  # type: ignore[method-assign]
    EngineClient(t).go(*GO, 150 * MS, 1000)
    assert writes == ["position startpos\nisready\ngo movetime 100"]
    assert t.written == ["position startpos", "isready", "go movetime 100"]


def test_go_with_legal_moves_writes_them_after_the_position_in_the_same_write() -> None:
    t = FakeTransport({"isready": ["readyok\n"], "go": [(40, "bestmove a1\n")]})
    writes: list[str] = []
    write = t.write_line
    t.write_line = lambda line, deadline=None: writes.append(line) or write(line, deadline)  # type: ignore[method-assign]
    reply = EngineClient(t).go(*GO, 150 * MS, 1000, ["a1", "b1", "f1"])
    assert writes == ["position startpos\nlegalmoves a1 b1 f1\nisready\ngo movetime 100"]
    assert (reply.token, reply.elapsed_ns) == ("a1", 40 * MS)


def test_lines_before_the_readyok_are_ignored_and_kept_for_the_record() -> None:
    # A stale bestmove written on position (before the engine read isready) is never the reply.
    t = FakeTransport(
        {
            "position": ["bestmove stale\ninfo string old\n"],
            "isready": [(3, "readyok\n")],
            "go": [(30, "info depth 2\nbestmove fresh\n")],
        }
    )
    client = EngineClient(t)
    reply = client.go(*GO, 150 * MS, 1000)
    assert (reply.token, reply.info, reply.elapsed_ns) == ("fresh", ["depth 2"], 30 * MS)
    assert client.take_ignored() == ["bestmove stale", "info string old"]
    assert client.take_ignored() == []
    assert client.owes_bestmove is False


def test_no_readyok_is_a_stall_at_the_ready_timeout_even_with_clock_left() -> None:
    t = FakeTransport({"go": ["bestmove a1\n"]})
    start = t.now_ns
    with pytest.raises(EngineFault) as err:
        EngineClient(t).go(*GO, 5000 * MS, 700)
    assert (err.value.code, err.value.detail) == (
        T.STALL,
        "timed out waiting for readyok; last line received: 'bestmove a1'",
    )
    assert t.now_ns - start == 700 * MS


def test_a_silent_engine_past_its_clock_is_a_stall_not_a_forfeit() -> None:
    t = FakeTransport({})
    with pytest.raises(EngineFault) as err:
        EngineClient(t).go(*GO, 100 * MS, 700)
    assert (err.value.code, err.value.detail) == (T.STALL, "timed out waiting for readyok")


def test_a_readyok_after_the_clock_ran_out_is_a_time_forfeit() -> None:
    t = FakeTransport({"isready": [(300, "readyok\n")]})
    client = EngineClient(t)
    with pytest.raises(EngineFault) as err:
        client.go(*GO, 150 * MS, 1000)
    assert (err.value.code, err.value.detail) == (
        T.TIME_FORFEIT,
        "readyok only 300 ms after the go, past the clock",
    )
    assert client.owes_bestmove is True


def test_go_keeps_info_lines_and_reads_two_replies_in_one_write() -> None:
    t = FakeTransport(
        {
            "isready": ["readyok\n"],
            "go": [(40, "info depth 2 score 3 pv a1 b2\ninfo string hi\nbestmove a1\n")],
        }
    )
    client = EngineClient(t)
    reply = client.go("position startpos", "go movetime 100", 150 * MS, 1000)
    assert reply.token == "a1"
    assert reply.info == ["depth 2 score 3 pv a1 b2", "string hi"]
    assert reply.elapsed_ns == 40 * MS
    assert client.owes_bestmove is False


READY = {"isready": ["readyok\n"]}


def test_unknown_lines_during_a_search_are_ignored() -> None:
    t = FakeTransport({**READY, "go": ["thinking...\n\n", (10, "bestmove c1\n")]})
    client = EngineClient(t)
    assert client.go(*GO, 100 * MS, 1000).token == "c1"
    assert client.log == ["thinking..."]
    assert client.take_ignored() == ["thinking..."]


def test_a_malformed_bestmove_line_is_invalid_output() -> None:
    t = FakeTransport({**READY, "go": ["bestmove a1 b2\n"]})
    with pytest.raises(EngineFault) as err:
        EngineClient(t).go(*GO, 100 * MS, 1000)
    assert (err.value.code, err.value.detail) == (
        T.INVALID_OUTPUT,
        "malformed bestmove line 'bestmove a1 b2'",
    )


def test_an_empty_bestmove_is_invalid_output() -> None:
    t = FakeTransport({**READY, "go": ["bestmove\n"]})
    with pytest.raises(EngineFault) as err:
        EngineClient(t).go(*GO, 100 * MS, 1000)
    assert err.value.code == T.INVALID_OUTPUT


@pytest.mark.parametrize("reply", ["BESTMOVE f2+", "info bestmove f2+", "best move f2+"])
def test_a_reply_that_is_not_a_bestmove_line_forfeits_naming_what_came(reply: str) -> None:
    t = FakeTransport({**READY, "go": [f"{reply}\n"]})
    with pytest.raises(EngineFault) as err:
        EngineClient(t).go(*GO, 100 * MS, 1000)
    assert (err.value.code, err.value.detail) == (
        T.TIME_FORFEIT,
        f"timed out waiting for bestmove; last line received: {reply!r}",
    )


def test_no_bestmove_within_the_budget_is_a_time_forfeit_and_owes_the_move() -> None:
    t = FakeTransport({**READY, "go": [(300, "bestmove a1\n")]})
    client = EngineClient(t)
    with pytest.raises(EngineFault) as err:
        client.go("position startpos", "go movetime 200", 250 * MS, 1000)
    assert (err.value.code, err.value.detail) == (T.TIME_FORFEIT, "timed out waiting for bestmove")
    assert client.owes_bestmove is True


def test_a_late_bestmove_is_drained_by_resync_and_never_answers_the_next_go() -> None:
    replies = iter([[(300, "bestmove late1\n")], [(10, "bestmove fresh2\n")]])
    t = FakeTransport(
        on_line=lambda line: (
            next(replies) if line.startswith("go") else (["readyok\n"] if line == "isready" else [])
        )
    )
    client = EngineClient(t)
    with pytest.raises(EngineFault):
        client.go("position startpos", "go movetime 200", 250 * MS, 1000)
    client.resync(1000)
    client.newgame("bao-kingulu")
    reply = client.go("position startpos", "go movetime 200", 250 * MS, 1000)
    assert reply.token == "fresh2"
    assert client.take_ignored() == ["bestmove late1"]
    assert t.written[3:] == [
        "stop",
        "isready",
        "newgame bao-kingulu",
        "position startpos",
        "isready",
        "go movetime 200",
    ]


def test_resync_waits_for_the_owed_bestmove_even_after_readyok() -> None:
    # A threaded engine answers readyok at once and its search's bestmove only on stop.
    replies = {"go": [], "stop": [(20, "bestmove owed\n")], "isready": ["readyok\n"]}
    t = FakeTransport(replies)
    client = EngineClient(t)
    with pytest.raises(EngineFault):
        client.go("position startpos", "go movetime 10", 20 * MS, 1000)
    client.resync(500)
    assert client.owes_bestmove is False
    assert client.log == ["bestmove owed"]
    # Nothing of the old search is left: the next read times out cleanly.
    assert t.read_line(t.now_ns + MS).status == "timeout"


def _cut_short_while(flag: list[bool]) -> Callable[[], None]:
    """A watch that ends every wait (as the other engine's fault would) while ``flag[0]``."""

    def watch() -> None:
        if flag[0]:
            raise RuntimeError("the other engine overflowed")

    return watch


def test_a_stale_bestmove_before_the_owed_fence_does_not_stand_in_for_the_owed_one() -> None:
    # The go is cut short before its readyok; the stale line written on position precedes it.
    t = FakeTransport(
        {
            "position": ["bestmove stale\n"],
            "isready": ["readyok\n"],
            "stop": [(10, "bestmove owed\n")],
        }
    )
    stop = [True]
    client = EngineClient(t, watch=_cut_short_while(stop))
    with pytest.raises(RuntimeError):
        client.go(*GO, 100 * MS, 1000)
    stop[0] = False
    client.resync(500)
    assert client.take_ignored() == ["bestmove stale", "bestmove owed"]
    assert (client.owes_bestmove, client.owed_readyok) == (False, 0)
    assert t.read_line(t.now_ns + 100 * MS).status == "timeout"


def test_resync_fails_as_a_stall_if_the_owed_bestmove_never_comes() -> None:
    t = FakeTransport({"isready": ["readyok\n"]})
    client = EngineClient(t)
    with pytest.raises(EngineFault):
        client.go("position startpos", "go movetime 10", 20 * MS, 1000)
    with pytest.raises(EngineFault) as err:
        client.resync(300)
    assert (err.value.code, err.value.detail) == (
        T.STALL,
        "timed out waiting for the owed bestmove; last line received: 'readyok'",
    )


def test_an_overlong_line_is_an_output_limit() -> None:
    t = FakeTransport({**READY, "go": ["info " + "x" * 100 + "\nbestmove a1\n"]}, max_line_bytes=64)
    client = EngineClient(t)
    with pytest.raises(EngineFault) as err:
        client.go(*GO, 100 * MS, 1000)
    assert err.value.code == T.OUTPUT_LIMIT
    assert client.broken is True


def test_writing_to_a_closed_engine_is_a_crash() -> None:
    t = FakeTransport({}, eof_after=0)
    with pytest.raises(EngineFault) as err:
        EngineClient(t).go(*GO, 100 * MS, 1000)
    assert err.value.code == T.CRASH


def test_ignored_lines_are_capped_per_move() -> None:
    noise = "".join(f"noise {i} {'x' * 300}\n" for i in range(30))
    t = FakeTransport({"position": [noise], **READY, "go": ["bestmove a1\n"]})
    client = EngineClient(t)
    client.go(*GO, 100 * MS, 1000)
    ignored = client.take_ignored()
    assert len(ignored) == 21 and ignored[-1] == "(10 more lines)"
    assert all(len(line) == 200 for line in ignored[:20])
    assert ignored[0].startswith("noise 0 xxx")


def test_setoption_and_quit_are_written_verbatim() -> None:
    t = FakeTransport({})
    client = EngineClient(t)
    client.setoption("Hash Size", "32")
    client.quit()
    assert t.written == ["setoption name Hash Size value 32", "quit"]


def test_a_watch_ends_a_long_wait_for_bestmove_within_one_watch_interval() -> None:
    t = FakeTransport({**READY, "go": [(1000, "bestmove a1\n")]})
    start = t.now_ns
    calls: list[int] = []

    def watch() -> None:
        calls.append((t.now_ns - start) // MS)
        if t.now_ns - start >= 100 * MS:
            raise EngineFault(T.OUTPUT_LIMIT, "more than 10 bytes on stderr")

    client = EngineClient(t, watch=watch)
    with pytest.raises(EngineFault) as err:
        client.go("position startpos", "go movetime 2000", 2050 * MS, 1000)
    assert (err.value.code, err.value.detail) == (T.OUTPUT_LIMIT, "more than 10 bytes on stderr")
    # Called before the first read (the readyok's; not again for the bestmove's, at the same
    # instant), then every WATCH_INTERVAL_MS of fake time.
    assert WATCH_INTERVAL_MS == 20
    assert calls == [0, 20, 40, 60, 80, 100]
    assert client.owes_bestmove is True


def test_a_watch_does_not_change_the_reply_or_its_timing() -> None:
    t = FakeTransport({**READY, "go": [(93, "info depth 3\nbestmove a1\n")]})
    client = EngineClient(t, watch=lambda: None)
    reply = client.go("position startpos", "go movetime 200", 250 * MS, 1000)
    assert (reply.token, reply.info, reply.elapsed_ns) == ("a1", ["depth 3"], 93 * MS)


def test_the_readyok_of_a_fence_a_watch_cut_short_is_drained_by_resync() -> None:
    answered = iter([True, True, False])  # the third isready goes unanswered

    def engine(line: str) -> list[str]:
        if line == "stop":
            return ["bestmove a1\n"]
        return ["readyok\n"] if line == "isready" and next(answered) else []

    t = FakeTransport(on_line=engine)
    stop = [True]
    client = EngineClient(t, watch=_cut_short_while(stop))
    with pytest.raises(RuntimeError):
        client.go(*GO, 100 * MS, 1000)
    assert client.owed_readyok == 1
    stop[0] = False
    client.resync(100)  # reads both readyok lines: the cut fence's and its own
    assert client.owed_readyok == 0
    # So the next fence cannot take a stale readyok for its own.
    with pytest.raises(EngineFault) as err:
        client.go(*GO, 100 * MS, 1000)
    assert err.value.code == T.STALL


def test_nul_and_control_characters_in_handshake_and_info_lines_become_u_fffd() -> None:
    t = FakeTransport(
        {
            "bep": ["id name a\x00b\nid author x\x1b[31my\nbepok\n"],
            **READY,
            "go": ["info string has\x00nul\tand tab\nbestmove a1\n"],
        }
    )
    client = EngineClient(t)
    ident = client.handshake(100)
    assert (ident.name, ident.author) == ("a\ufffdb", "x\ufffd[31my")
    reply = client.go(*GO, 100 * MS, 1000)
    assert reply.info == ["string has\ufffdnul\tand tab"]


def test_a_closed_stdin_is_said_once_in_the_fault() -> None:
    import errno

    from arena.referee.transport import TransportClosed

    class Closed(FakeTransport):
        def write_line(self, line: str, deadline_ns: int | None = None) -> int:
            raise TransportClosed(errno.EPIPE, "engine closed its stdin")

    client = EngineClient(Closed({}))
    with pytest.raises(EngineFault) as caught:
        client.send("isready")
    assert (caught.value.code, caught.value.detail) == (T.CRASH, "engine closed its stdin")
