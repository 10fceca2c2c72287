"""arena.engine_text: what becomes of the bytes an engine writes (no processes, no database)."""

from __future__ import annotations

import json

import pytest

from arena.engine_text import (
    REPLACEMENT,
    clean_engine_text,
    decode_engine_output,
    storable,
    storable_text,
)

R = REPLACEMENT


def test_the_replacement_is_u_fffd() -> None:
    assert R == "\ufffd"


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        (b"info string has\x00nul", f"info string has{R}nul"),
        (b"id name a\x00b", f"id name a{R}b"),
        (b"tab\tstays", "tab\tstays"),
        (b"\x1b[31mred\x1b[0m", f"{R}[31mred{R}[0m"),
        (b"bell\x07 back\x08 cr\r mid", f"bell{R} back{R} cr{R} mid"),
        (b"\x01\x1f\x7f", f"{R}{R}{R}"),  # DEL garbles terminals like the C0 controls
        ("C1 \u009b31m".encode(), f"C1 {R}31m"),  # the one-character CSI of C1
        (b"not utf-8: \xff\xfe", f"not utf-8: {R}{R}"),
        ("Mwalimu Ali wa Zanzibar \u00e9".encode(), "Mwalimu Ali wa Zanzibar \u00e9"),
        (b"", ""),
    ],
)
def test_a_protocol_line_keeps_tab_and_printable_text_and_loses_every_other_control(
    raw: bytes, text: str
) -> None:
    assert decode_engine_output(raw) == text


def test_a_newline_inside_a_single_line_text_is_replaced() -> None:
    assert clean_engine_text("a\nb") == f"a{R}b"


def test_a_multiline_stderr_tail_keeps_its_lines_and_normalises_crlf() -> None:
    raw = b"Traceback:\r\n  line 1\x00\n  progress\r99%\nlast"
    assert decode_engine_output(raw, multiline=True) == (
        f"Traceback:\n  line 1{R}\n  progress{R}99%\nlast"
    )


def test_lone_surrogates_are_replaced_and_pairs_cannot_occur() -> None:
    assert clean_engine_text("a\ud800b\udfff") == f"a{R}b{R}"
    assert storable_text("a\udc80b") == f"a{R}b"
    assert clean_engine_text("\U0001f600") == "\U0001f600"  # a real astral character stays


def test_storable_text_replaces_only_what_a_database_refuses() -> None:
    assert storable_text("x\x00y\ud800z") == f"x{R}y{R}z"
    assert storable_text("keep\n\r\t\x1b controls") == "keep\n\r\t\x1b controls"


def test_storable_walks_a_record_and_keeps_its_shape() -> None:
    record = {
        "engines": ["a\x00", "b"],
        "games": [
            {
                "moves": [{"info": ["has\x00nul"], "ply": 1}],
                "scores": None,
                "engine_errors": {"a\x00": "tail\x00\n"},
                "rated": True,
                "pair": (1, "\x00"),
            }
        ],
    }
    assert storable(record) == {
        "engines": [f"a{R}", "b"],
        "games": [
            {
                "moves": [{"info": [f"has{R}nul"], "ply": 1}],
                "scores": None,
                "engine_errors": {f"a{R}": f"tail{R}\n"},
                "rated": True,
                "pair": (1, R),
            }
        ],
    }
    assert "\\u0000" not in json.dumps(storable(record))
    assert record["engines"] == ["a\x00", "b"]  # a copy: the input is left alone


def test_storable_returns_a_clean_record_itself_and_still_finds_a_lone_surrogate() -> None:
    clean = {"engines": ["a", "b\u00e9"], "games": [{"moves": [{"ply": 1, "info": []}]}]}
    assert storable(clean) is clean
    escaped = {"detail": "a backslash: \\u0000 is text"}
    assert storable(escaped) == escaped
    surrogate = {"games": [{"detail": "x\ud800"}], "pair": (1, 2)}
    assert storable(surrogate) == {"games": [{"detail": f"x{R}"}], "pair": (1, 2)}
    assert storable({"key\x00": ["\x00"]}) == {f"key{R}": [R]}


def test_clean_text_is_stable_under_a_second_pass() -> None:
    once = decode_engine_output(bytes(range(256)), multiline=True)
    assert clean_engine_text(once, multiline=True) == once
    assert storable_text(once) == once
    assert all(ch in "\t\n" or ord(ch) >= 0x20 for ch in once)
