"""``TimeControl.parse``: the one parser of time controls (referee, CLI, API), its text form
and its allowed ranges (base 1 s to 86400 s, increment 0 to 3600 s in whole ms, movetime 10 ms
to 3600000 ms, ASCII digits only)."""

from __future__ import annotations

import pytest

from arena.referee import TimeControl, TimeControlError


@pytest.mark.parametrize(
    ("text", "base_ms", "increment_ms", "movetime_ms", "canonical"),
    [
        ("10+0.1", 10_000, 100, None, "10+0.1"),
        ("2.0+0.050", 2_000, 50, None, "2+0.05"),
        ("60", 60_000, 0, None, "60+0"),
        ("1+0.001", 1_000, 1, None, "1+0.001"),
        ("1+0.1000", 1_000, 100, None, "1+0.1"),  # trailing zeros are still whole ms
        ("86399.999+3600", 86_399_999, 3_600_000, None, "86399.999+3600"),
        (" 5+0 ", 5_000, 0, None, "5+0"),
        ("movetime=10", 0, 0, 10, "movetime=10"),
        ("movetime=3600000", 0, 0, 3_600_000, "movetime=3600000"),
    ],
)
def test_it_parses_the_allowed_forms_and_prints_them_canonically(
    text: str, base_ms: int, increment_ms: int, movetime_ms: int | None, canonical: str
) -> None:
    tc = TimeControl.parse(text)
    assert (tc.base_ms, tc.increment_ms, tc.movetime_ms) == (base_ms, increment_ms, movetime_ms)
    assert str(tc) == canonical
    assert TimeControl.parse(str(tc)) == tc


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("0.001+0", "base time in '0.001+0' must be 1 to 86400 s"),
        ("0.999+1", "base time in '0.999+1' must be 1 to 86400 s"),
        ("0+0", "base time in '0+0' must be 1 to 86400 s"),
        ("86400.001+0", "base time in '86400.001+0' must be 1 to 86400 s"),
        ("1+0.0001", "increment 0.0001 s in '1+0.0001' is finer than 1 ms: use at most 3 decimals"),
        ("1.0005+0", "base 1.0005 s in '1.0005+0' is finer than 1 ms: use at most 3 decimals"),
        ("1+3600.001", "increment in '1+3600.001' must be 0 to 3600 s"),
        ("movetime=9", "movetime in 'movetime=9' must be 10 to 3600000 ms"),
        ("movetime=3600001", "movetime in 'movetime=3600001' must be 10 to 3600000 ms"),
        (
            "\uff11+0",
            "bad time control '\uff11+0': expected '<base s>+<increment s>' such as "
            "'10+0.1', or 'movetime=<ms>'",
        ),
        (
            "1+\u0660",
            "bad time control '1+\u0660': expected '<base s>+<increment s>' such as "
            "'10+0.1', or 'movetime=<ms>'",
        ),
        (
            "movetime=\uff15\uff10",
            "bad time control 'movetime=\uff15\uff10': expected "
            "'<base s>+<increment s>' such as '10+0.1', or 'movetime=<ms>'",
        ),
        (
            "9" * 400,
            f"bad time control '{'9' * 40}'...: expected '<base s>+<increment s>' "
            "such as '10+0.1', or 'movetime=<ms>'",
        ),
    ],
)
def test_it_refuses_out_of_range_too_fine_and_non_ascii_clocks(text: str, message: str) -> None:
    with pytest.raises(TimeControlError) as caught:
        TimeControl.parse(text)
    assert str(caught.value) == message
