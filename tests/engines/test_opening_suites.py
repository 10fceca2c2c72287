"""The generator of the start-position suites (``engines/opening_suites.py``): the committed
suites keep the criterion their header states, re-scored here deterministically, and the
recorded command reproduces them."""

from __future__ import annotations

import pytest

from arena.openings import load_suite, suite_path
from arena.rules import VARIANTS, get_variant
from engines.opening_suites import (
    Options,
    is_balanced,
    judge,
    main,
    make_suite,
    recorded_options,
    suite_text,
)


def _recorded(variant: str) -> Options:
    return recorded_options(suite_path("balanced", variant).read_text())


def test_the_header_records_the_options_of_the_committed_suites() -> None:
    for variant in VARIANTS:
        assert _recorded(variant) == Options(
            suite="balanced", seed=15, count=120, depth=6, max_score=100, plies=(4, 10)
        )


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_sample_of_each_suite_is_balanced_by_the_recorded_criterion(variant: str) -> None:
    options = _recorded(variant)
    v = get_variant(variant)
    sample = load_suite(variant, "balanced")[::12]  # 10 positions, the same every run
    for position in sample:
        seen = judge(v, position, options.depth)
        assert abs(seen.score) <= options.max_score, (position.to_text(), seen)
        assert not seen.ends_on_pv, (position.to_text(), seen)
        assert judge(v, position, options.depth) == seen  # deterministic: no clock


@pytest.mark.slow
def test_every_position_of_every_suite_is_balanced_by_the_recorded_criterion(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--verify"]) == 0, capsys.readouterr().out


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_recorded_command_reproduces_the_first_positions(variant: str) -> None:
    options = _recorded(variant)
    first = make_suite(variant, Options(**{**options.__dict__, "count": 4}))
    assert first.positions == list(load_suite(variant, "balanced")[:4])


def test_the_criterion_refuses_lopsided_decided_and_forced_positions() -> None:
    v = get_variant("bao-kingulu")
    options = Options()
    lopsided = v.parse_position("4,4,4,4,4,4/4,4,4,4,4,4 S 0:0 0")
    # Kingulu's start: South's first move is strong enough that the search sees more than a
    # seed of advantage.
    assert abs(judge(v, lopsided, options.depth).score) > options.max_score
    assert not is_balanced(v, lopsided, options)
    over = v.parse_position("0,0,0,5s,0,0/0,0,1,1,0,2 N 9:30 27")
    assert not is_balanced(v, over, options)


def test_a_written_suite_parses_back_and_names_its_command(tmp_path) -> None:  # type: ignore[no-untyped-def]
    assert main(["--variant", "ngulu", "--count", "3", "--seed", "4", "--suite", "tiny",
                 "--out", str(tmp_path)]) == 0  # fmt: skip
    text = (tmp_path / "tiny" / "bao-kingulu.txt").read_text()
    options = recorded_options(text)
    assert (options.seed, options.count, options.suite) == (4, 3, "tiny")
    made = make_suite("bao-kingulu", options)
    assert text == suite_text(made, options, ["bao-kingulu"])
    assert "--variant bao-kingulu" in text.splitlines()[1]


def test_too_few_candidates_is_an_error_not_a_short_suite() -> None:
    with pytest.raises(RuntimeError, match="only 0 of 5 positions after 3 candidates"):
        make_suite("bao-kingulu", Options(count=5, max_tries=3, max_score=-1))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--suite", "../escape"], "error: '../escape' is not a suite name"),
        (["--variant", "chess"], "error: unknown variant 'chess'"),
    ],
)
def test_bad_arguments_write_nothing_and_exit_2(
    args: list[str],
    message: str,
    tmp_path,
    capsys: pytest.CaptureFixture[str],  # type: ignore[no-untyped-def]
) -> None:
    assert main([*args, "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith(message)
    assert list(tmp_path.iterdir()) == []
