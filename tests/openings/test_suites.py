"""The start-position suites (``arena/openings``): the committed files parse, hold at least 100
legal, undecided, distinct positions per variant and say how they were made; the draw of a
match's start is a pure function of its seed."""

from __future__ import annotations

import pytest

from arena.openings import (
    DEFAULT_SUITE,
    STANDARD,
    SuiteFileError,
    UnknownSuiteError,
    draw_index,
    load_suite,
    match_start,
    parse_suite,
    start_choices,
    suite_names,
    suite_path,
    suite_position,
)
from arena.rules import VARIANTS, UnknownVariantError, get_variant


def test_the_balanced_suite_exists_for_every_variant() -> None:
    assert DEFAULT_SUITE == "balanced"
    assert suite_names() == ("balanced",)
    for variant in VARIANTS:
        assert start_choices(variant) == (STANDARD, "balanced")
        assert suite_path("balanced", variant).name == f"{variant}.txt"


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_suite_holds_100_legal_undecided_distinct_positions_in_canonical_text(
    variant: str,
) -> None:
    v = get_variant(variant)
    positions = load_suite(variant, "balanced")
    assert len(positions) >= 100
    assert len({p.repetition_key for p in positions}) == len(positions)
    lines = [
        line
        for line in suite_path("balanced", variant).read_text().splitlines()
        if line and not line.startswith("#")
    ]
    assert [p.to_text() for p in positions] == lines  # one canonical text per line
    assert v.initial_position() not in positions
    for p in positions:
        assert v.parse_position(p.to_text(), strict=True) == p
        assert v.outcome(p) is None
        assert len(v.legal_moves(p)) >= 2


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_suite_file_names_the_command_and_seed_that_made_it(variant: str) -> None:
    header = [
        line
        for line in suite_path("balanced", variant).read_text().splitlines()
        if line.startswith("#")
    ]
    assert any(
        line.startswith("# Made by: .venv/bin/python -m engines.opening_suites ")
        and "--seed 15" in line
        for line in header
    )
    assert any(f"random.Random('15/{variant}')" in line for line in header)


def test_a_suite_position_is_taken_by_index_modulo_the_suite_size() -> None:
    positions = load_suite("kete", "balanced")
    assert suite_position("bao-la-kete", "balanced", 0) == positions[0]
    assert suite_position("bao-la-kete", "balanced", len(positions) + 3) == positions[3]
    assert suite_position("bao-la-kete", "balanced", -1) == positions[-1]


def test_a_match_start_is_drawn_from_the_suite_by_the_seed() -> None:
    for variant in VARIANTS:
        size = len(load_suite(variant, "balanced"))
        drawn = [draw_index(variant, "balanced", seed) for seed in range(200)]
        assert drawn == [draw_index(variant, "balanced", seed) for seed in range(200)]
        assert all(0 <= i < size for i in drawn)
        assert len(set(drawn)) > size // 2  # spread over the suite, not a few favourites
        assert match_start(variant, "balanced", 9) == suite_position(
            variant, "balanced", draw_index(variant, "balanced", 9)
        )
        assert match_start(variant, STANDARD, 9) == get_variant(variant).initial_position()


@pytest.mark.parametrize("name", ["nope", "standard", "../balanced", "Balanced", "", "a" * 40])
def test_an_unknown_suite_is_refused_with_the_known_choices(name: str) -> None:
    with pytest.raises(UnknownSuiteError):
        load_suite("bao-la-kete", name)
    if name != STANDARD:  # a start choice, but not a suite
        with pytest.raises(UnknownSuiteError):
            match_start("bao-la-kete", name, 1)


def test_an_unknown_variant_is_refused() -> None:
    with pytest.raises(UnknownVariantError):
        load_suite("chess", "balanced")


def test_the_error_lists_what_can_be_chosen() -> None:
    with pytest.raises(UnknownSuiteError, match="choose one of: standard, balanced"):
        load_suite("bao-kingulu", "nope")


KPN_START = "4,4,4,4,4,4/4,4,4,4,4,4 S 0:0 0"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("# only comments\n\n", "no positions"),
        (f"{KPN_START}\nnot a position\n", "x:2: not a bao-kingulu position"),
        (f"{KPN_START}\n# a comment\n{KPN_START[:-1]}7\n", "x:3: repeats line 1"),
        ("0,0,0,5s,0,0/0,0,1,1,0,2 N 9:30 27\n", "x:1: the game is already over"),
    ],
)
def test_a_broken_suite_file_is_refused_with_its_line(text: str, message: str) -> None:
    with pytest.raises(SuiteFileError, match=message):
        parse_suite("bao-kingulu", text, "x")


def test_comments_and_blank_lines_are_skipped() -> None:
    parsed = parse_suite("kingulu", f"# header\n\n  {KPN_START}  \n")
    assert [p.to_text() for p in parsed] == [KPN_START]
