"""The BEP client against the scripted FakeTransport: no processes, exact fake time."""

from __future__ import annotations

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


def test_a_silent_engine_fails_the_handshake_at_its_timeout() -> None:
    t = FakeTransport({})
    start = t.now_ns
    with pytest.raises(EngineFault) as err:
        EngineClient(t).handshake(700)
    assert err.value.code == T.HANDSHAKE_FAILED
    assert t.now_ns - start == 700 * MS


def test_a_handshake_without_bepok_fails() -> None:
    t = FakeTransport({"bep": ["id name NoOk\nvariant bao-kingulu\n"]})
    with pytest.raises(EngineFault) as err:
        EngineClient(t).handshake(500)
    assert err.value.code == T.HANDSHAKE_FAILED
    assert err.value.detail == "timed out waiting for bepok"


def test_bepok_that_comes_too_late_fails_the_handshake() -> None:
    t = FakeTransport({"bep": ["id name Slow\n", (1200, "bepok\n")]})
    with pytest.raises(EngineFault) as err:
        EngineClient(t).handshake(1000)
    assert err.value.code == T.HANDSHAKE_FAILED


def test_bepok_without_a_name_fails_the_handshake() -> None:
    t = FakeTransport({"bep": ["variant bao-kingulu\nbepok\n"]})
    with pytest.raises(EngineFault) as err:
        EngineClient(t).handshake(500)
    assert (err.value.code, err.value.detail) == (
        T.HANDSHAKE_FAILED, "bepok without an 'id name' line")


def test_an_engine_that_exits_during_the_handshake_crashes() -> None:
    t = FakeTransport({"bep": ["id name Gone\n"]}, eof_after=1)
    with pytest.raises(EngineFault) as err:
        EngineClient(t).handshake(500)
    assert err.value.code == T.CRASH


def test_ping_skips_stray_lines_until_readyok() -> None:
    t = FakeTransport({"isready": ["info string warming up\nnoise\n", (30, "readyok\n")]})
    client = EngineClient(t)
    client.ping(100)
    assert client.log == ["info string warming up", "noise"]


def test_no_readyok_is_a_stall() -> None:
    t = FakeTransport({"isready": [(2500, "readyok\n")]})
    with pytest.raises(EngineFault) as err:
        EngineClient(t).ping(2000)
    assert (err.value.code, err.value.detail) == (T.STALL, "timed out waiting for readyok")


def test_go_keeps_info_lines_and_reads_two_replies_in_one_write() -> None:
    t = FakeTransport(
        {"go": [(40, "info depth 2 score 3 pv a1 b2\ninfo string hi\nbestmove a1\n")]}
    )
    client = EngineClient(t)
    reply = client.go("position startpos", "go movetime 100", 150 * MS)
    assert reply.token == "a1"
    assert reply.info == ["depth 2 score 3 pv a1 b2", "string hi"]
    assert reply.elapsed_ns == 40 * MS
    assert t.written == ["position startpos", "go movetime 100"]
    assert client.owes_bestmove is False


def test_unknown_lines_during_a_search_are_ignored() -> None:
    t = FakeTransport({"go": ["thinking...\n\n", (10, "bestmove c1\n")]})
    client = EngineClient(t)
    assert client.go("position startpos", "go movetime 50", 100 * MS).token == "c1"
    assert client.log == ["thinking..."]


def test_a_malformed_bestmove_line_is_invalid_output() -> None:
    t = FakeTransport({"go": ["bestmove a1 b2\n"]})
    with pytest.raises(EngineFault) as err:
        EngineClient(t).go("position startpos", "go movetime 50", 100 * MS)
    assert err.value.code == T.INVALID_OUTPUT


def test_an_empty_bestmove_is_invalid_output() -> None:
    t = FakeTransport({"go": ["bestmove\n"]})
    with pytest.raises(EngineFault) as err:
        EngineClient(t).go("position startpos", "go movetime 50", 100 * MS)
    assert err.value.code == T.INVALID_OUTPUT


def test_no_bestmove_within_the_budget_is_a_time_forfeit_and_owes_the_move() -> None:
    t = FakeTransport({"go": [(300, "bestmove a1\n")]})
    client = EngineClient(t)
    with pytest.raises(EngineFault) as err:
        client.go("position startpos", "go movetime 200", 250 * MS)
    assert err.value.code == T.TIME_FORFEIT
    assert client.owes_bestmove is True


def test_a_late_bestmove_is_drained_by_resync_and_never_answers_the_next_go() -> None:
    replies = iter([[(300, "bestmove late1\n")], [(10, "bestmove fresh2\n")]])
    t = FakeTransport(
        on_line=lambda line: next(replies) if line.startswith("go")
        else (["readyok\n"] if line == "isready" else [])
    )
    client = EngineClient(t)
    with pytest.raises(EngineFault):
        client.go("position startpos", "go movetime 200", 250 * MS)
    client.resync(1000)
    client.newgame("bao-kingulu")
    reply = client.go("position startpos", "go movetime 200", 250 * MS)
    assert reply.token == "fresh2"
    assert "(late) bestmove late1" in client.log
    assert t.written[2:] == [
        "stop", "isready", "newgame bao-kingulu", "position startpos", "go movetime 200"]


def test_resync_waits_for_the_owed_bestmove_even_after_readyok() -> None:
    # A threaded engine answers readyok at once and its search's bestmove only on stop.
    replies = {"go": [], "stop": [(20, "bestmove owed\n")], "isready": ["readyok\n"]}
    t = FakeTransport(replies)
    client = EngineClient(t)
    with pytest.raises(EngineFault):
        client.go("position startpos", "go movetime 10", 20 * MS)
    client.resync(500)
    assert client.owes_bestmove is False
    assert client.log == ["(late) bestmove owed"]
    # Nothing of the old search is left: the next read times out cleanly.
    assert t.read_line(t.now_ns + MS).status == "timeout"


def test_resync_fails_as_a_stall_if_the_owed_bestmove_never_comes() -> None:
    t = FakeTransport({"isready": ["readyok\n"]})
    client = EngineClient(t)
    with pytest.raises(EngineFault):
        client.go("position startpos", "go movetime 10", 20 * MS)
    with pytest.raises(EngineFault) as err:
        client.resync(300)
    assert (err.value.code, err.value.detail) == (
        T.STALL, "timed out waiting for the owed bestmove")


def test_an_overlong_line_is_an_output_limit() -> None:
    t = FakeTransport({"go": ["info " + "x" * 100 + "\nbestmove a1\n"]}, max_line_bytes=64)
    client = EngineClient(t)
    with pytest.raises(EngineFault) as err:
        client.go("position startpos", "go movetime 50", 100 * MS)
    assert err.value.code == T.OUTPUT_LIMIT
    assert client.broken is True


def test_writing_to_a_closed_engine_is_a_crash() -> None:
    t = FakeTransport({}, eof_after=0)
    with pytest.raises(EngineFault) as err:
        EngineClient(t).ping(100)
    assert err.value.code == T.CRASH


def test_setoption_and_quit_are_written_verbatim() -> None:
    t = FakeTransport({})
    client = EngineClient(t)
    client.setoption("Hash Size", "32")
    client.quit()
    assert t.written == ["setoption name Hash Size value 32", "quit"]


def test_a_watch_ends_a_long_wait_for_bestmove_within_one_watch_interval() -> None:
    t = FakeTransport({"go": [(1000, "bestmove a1\n")]})
    start = t.now_ns
    calls: list[int] = []

    def watch() -> None:
        calls.append((t.now_ns - start) // MS)
        if t.now_ns - start >= 100 * MS:
            raise EngineFault(T.OUTPUT_LIMIT, "more than 10 bytes on stderr")

    client = EngineClient(t, watch=watch)
    with pytest.raises(EngineFault) as err:
        client.go("position startpos", "go movetime 2000", 2050 * MS)
    assert (err.value.code, err.value.detail) == (T.OUTPUT_LIMIT, "more than 10 bytes on stderr")
    # Called before the first read, then every WATCH_INTERVAL_MS of fake time.
    assert WATCH_INTERVAL_MS == 20
    assert calls == [0, 20, 40, 60, 80, 100]
    assert client.owes_bestmove is True


def test_a_watch_does_not_change_the_reply_or_its_timing() -> None:
    t = FakeTransport({"go": [(93, "info depth 3\nbestmove a1\n")]})
    client = EngineClient(t, watch=lambda: None)
    reply = client.go("position startpos", "go movetime 200", 250 * MS)
    assert (reply.token, reply.info, reply.elapsed_ns) == ("a1", ["depth 3"], 93 * MS)
    with pytest.raises(EngineFault) as err:
        client.ping(70)
    assert (err.value.code, t.now_ns - reply.received_ns) == (T.STALL, 70 * MS)


def test_the_readyok_of_a_ping_a_watch_cut_short_is_drained_by_resync() -> None:
    answered = iter([True, True, False])  # the third isready goes unanswered
    t = FakeTransport(
        on_line=lambda line: ["readyok\n"] if line == "isready" and next(answered) else []
    )
    stop = [True]

    def watch() -> None:
        if stop[0]:
            raise RuntimeError("the other engine overflowed")

    client = EngineClient(t, watch=watch)
    with pytest.raises(RuntimeError):
        client.ping(100)
    assert client.owed_readyok == 1
    stop[0] = False
    client.resync(100)  # reads both readyok lines: the cut ping's and its own
    assert client.owed_readyok == 0
    # So the next ping cannot take a stale readyok for its answer.
    with pytest.raises(EngineFault) as err:
        client.ping(100)
    assert err.value.code == T.STALL


def test_nul_and_control_characters_in_handshake_and_info_lines_become_u_fffd() -> None:
    t = FakeTransport({
        "bep": ["id name a\x00b\nid author x\x1b[31my\nbepok\n"],
        "go": ["info string has\x00nul\tand tab\nbestmove a1\n"],
    })
    client = EngineClient(t)
    ident = client.handshake(100)
    assert (ident.name, ident.author) == ("a\ufffdb", "x\ufffd[31my")
    reply = client.go("position startpos", "go movetime 50", 100 * MS)
    assert reply.info == ["string has\ufffdnul\tand tab"]
