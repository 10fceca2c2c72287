"""Hypothesis fuzzing of the text interfaces of every variant: ``parse_position``,
``parse_move`` and ``apply`` on whatever parses. Only ``RulesError`` subclasses may come out
(README 5: a parser rejects bad text with a typed error), never another exception or a hang
(the per-example deadline catches the latter). Example counts are bounded and derandomised so
the file stays fast and reproducible.
"""

from __future__ import annotations

import contextlib
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.rules import VARIANTS, Position, RulesError, Variant

from .conftest import load_variant

FUZZ = settings(
    max_examples=150,
    deadline=2000,  # ms; a legal-move question on any valid text is bounded (README 6.2)
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

#: Characters that occur in BPN/KPN texts and move tokens, plus a few that never do.
ALPHABET = "0123456789,/ :SNsnmHc-+abcdefgh\t\n.x٣"


def sample_texts(variant: Variant) -> list[str]:
    """Valid texts to mutate: the start and positions from two random games."""
    texts = [variant.initial_position().to_text()]
    for seed in (1, 2):
        rng = random.Random(seed)
        game = variant.new_game()
        while game.outcome is None:
            game.play(rng.choice(game.legal_moves()))
        texts.extend(p.to_text() for p in game.positions[1::7])
    return texts


_SAMPLES: dict[str, list[str]] = {}


def samples(variant: Variant) -> list[str]:
    if variant.id not in _SAMPLES:
        _SAMPLES[variant.id] = sample_texts(variant)
    return _SAMPLES[variant.id]


@st.composite
def mutated(draw: st.DrawFn, base: list[str]) -> str:
    """A valid text with a few edits: replace, insert or delete characters, swap two
    fields, or blow a number up."""
    text = draw(st.sampled_from(base))
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["replace", "insert", "delete", "swap", "big", "negative"]))
        at = draw(st.integers(0, max(len(text) - 1, 0)))
        if kind == "replace" and text:
            text = text[:at] + draw(st.sampled_from(ALPHABET)) + text[at + 1 :]
        elif kind == "insert":
            text = text[:at] + draw(st.text(ALPHABET, min_size=1, max_size=3)) + text[at:]
        elif kind == "delete" and text:
            text = text[:at] + text[at + 1 :]
        elif kind == "swap":
            fields = text.split(" ")
            if len(fields) > 1:
                i = draw(st.integers(0, len(fields) - 1))
                j = draw(st.integers(0, len(fields) - 1))
                fields[i], fields[j] = fields[j], fields[i]
                text = " ".join(fields)
        elif kind == "big":
            digits = draw(st.sampled_from(["99", "12", "1000000", "9" * 30, "1" + "0" * 5000]))
            text = text[:at] + digits + text[at:]
        elif kind == "negative":
            text = text[:at] + "-" + text[at:]
    return text


@st.composite
def renumbered(draw: st.DrawFn, base: list[str]) -> str:
    """A valid text with its numbers replaced by small random ones: mostly valid positions
    far from anything reachable (the "test positions" of README A-6)."""
    text = draw(st.sampled_from(base))
    out: list[str] = []
    number = ""
    for char in text + " ":
        if char.isdigit():
            number += char
            continue
        if number:
            out.append(str(draw(st.integers(0, 20))) if draw(st.booleans()) else number)
            number = ""
        out.append(char)
    return "".join(out)[:-1]


def exercise(variant: Variant, position: Position) -> None:
    """Everything a referee does with a parsed position: only rules errors may escape."""
    text = position.to_text()
    assert variant.parse_position(text) == position
    moves = variant.legal_moves(position)
    variant.outcome(position)
    for move in moves:
        after = variant.apply(position, move)
        assert variant.parse_position(after.to_text()) == after
    for token in ("a1", "a2", "e2+", "h4-", "d3+s", "f1"):
        with contextlib.suppress(RulesError):
            variant.apply(position, token)


def parse_or_rules_error(variant: Variant, text: str, strict: bool) -> Position | None:
    try:
        return variant.parse_position(text, strict=strict)
    except RulesError:
        return None


@pytest.mark.parametrize("variant_id", VARIANTS)
@FUZZ
@given(text=st.text(max_size=120), strict=st.booleans())
def test_junk_position_text_raises_only_rules_errors(
    variant_id: str, text: str, strict: bool
) -> None:
    variant = load_variant(variant_id)
    position = parse_or_rules_error(variant, text, strict)
    if position is not None:
        exercise(variant, position)


@pytest.mark.parametrize("variant_id", VARIANTS)
@FUZZ
@given(data=st.data(), strict=st.booleans())
def test_near_valid_position_text_raises_only_rules_errors(
    variant_id: str, data: st.DataObject, strict: bool
) -> None:
    variant = load_variant(variant_id)
    text = data.draw(mutated(samples(variant)))
    position = parse_or_rules_error(variant, text, strict)
    if position is not None:
        exercise(variant, position)


@pytest.mark.parametrize("variant_id", VARIANTS)
@FUZZ
@given(data=st.data())
def test_apply_on_fuzzed_valid_positions_raises_only_rules_errors(
    variant_id: str, data: st.DataObject
) -> None:
    variant = load_variant(variant_id)
    text = data.draw(renumbered(samples(variant)))
    position = parse_or_rules_error(variant, text, strict=False)
    if position is not None:
        exercise(variant, position)


def test_renumbered_texts_are_mostly_valid_positions() -> None:
    # Guards the fuzzing above against testing nothing: most renumbered texts must parse.
    variant = load_variant("bao-kingulu")
    parsed = 0

    @settings(max_examples=50, derandomize=True, database=None)
    @given(data=st.data())
    def count(data: st.DataObject) -> None:
        nonlocal parsed
        parsed += (
            parse_or_rules_error(variant, data.draw(renumbered(samples(variant))), False)
            is not None
        )

    count()
    assert parsed >= 40


@pytest.mark.parametrize("variant_id", VARIANTS)
@FUZZ
@given(token=st.one_of(st.text(max_size=8), st.text(ALPHABET, max_size=5)))
def test_junk_move_tokens_raise_only_invalid_move_errors(variant_id: str, token: str) -> None:
    variant = load_variant(variant_id)
    try:
        move = variant.parse_move(token)
    except RulesError:
        return
    assert str(move) == token
    with contextlib.suppress(RulesError):
        variant.apply(variant.initial_position(), token)


@pytest.mark.parametrize("variant_id", VARIANTS)
@pytest.mark.parametrize("junk", [None, 3, b"a1", ["a1"], 1.5])
def test_non_string_input_raises_rules_errors(variant_id: str, junk: object) -> None:
    variant = load_variant(variant_id)
    with pytest.raises(RulesError):
        variant.parse_move(junk)  # type: ignore[arg-type]
    with pytest.raises(RulesError):
        variant.parse_position(junk)  # type: ignore[arg-type]
