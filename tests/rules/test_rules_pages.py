"""Every worked example of the rule pages (``docs/rules/<variant id>.md``) replayed through
``arena.rules``: the legal moves, the position after each move and how the game ends, exactly as
the page prints them. The blocks are read by ``arena.web.rules_examples``, as the site reads them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from arena.rules import VARIANTS, Outcome, Position, Variant, get_variant
from arena.web.rules_examples import Example, ExampleError, examples_in, parse_example

PAGES = Path(__file__).resolve().parents[2] / "docs" / "rules"

#: The Bao la Kete examples that Bao la Kiswahili plays differently (bao-la-kiswahili.md 5):
#: the six-seed kuu, the kuu-first takata and the hizi zetu priority.
KETE_ONLY = {"KETE-5", "KETE-11", "KETE-13", "KETE-14", "KETE-15", "KETE-16"}


def _page_examples() -> list[tuple[str, Example]]:
    return [
        (variant, example)
        for variant in VARIANTS
        for example in examples_in((PAGES / f"{variant}.md").read_text())
    ]


ALL = _page_examples()


def outcome_text(outcome: Outcome | None) -> str | None:
    """An outcome in the notation of the pages: ``1-0 bao_hamna hand 3``, ``1-0 score 27:21``."""
    if outcome is None:
        return None
    words = [outcome.result, str(outcome.reason)]
    if outcome.seeds_in_hand:
        words += ["hand", str(outcome.seeds_in_hand)]
    if outcome.scores is not None:
        words.append(f"{outcome.scores[0]}:{outcome.scores[1]}")
    return " ".join(words)


def _parse(variant: Variant, text: str, example: Example) -> Position:
    position = variant.parse_position(text, strict=not example.test_position)
    assert position.to_text() == text, "the page must print the canonical text"
    return position


def replay(variant: Variant, example: Example) -> None:
    position = _parse(variant, example.position, example)
    assert [str(m) for m in variant.legal_moves(position)] == list(example.legal)
    assert outcome_text(variant.outcome(position)) == example.outcome
    for step in example.moves:
        after = variant.apply(position, step.move)
        assert after.to_text() == step.next, step.move
        assert outcome_text(variant.outcome(_parse(variant, step.next, example))) == step.outcome


@pytest.mark.parametrize(("variant", "example"), ALL, ids=[e.name for _, e in ALL])
def test_the_example_plays_as_its_page_says(variant: str, example: Example) -> None:
    replay(get_variant(variant), example)


@pytest.mark.parametrize(
    "example",
    [e for v, e in ALL if v == "bao-la-kete" and e.name not in KETE_ONLY],
    ids=lambda e: e.name,
)
def test_the_kete_example_plays_the_same_in_bao_la_kiswahili(example: Example) -> None:
    replay(get_variant("bao-la-kiswahili"), example)


def test_the_kete_only_examples_do_differ_in_bao_la_kiswahili() -> None:
    kiswahili = get_variant("bao-la-kiswahili")
    for example in (e for _, e in ALL if e.name in KETE_ONLY):
        with pytest.raises((AssertionError, ValueError)):
            replay(kiswahili, example)


def test_every_page_has_examples_with_unique_names_and_every_ending() -> None:
    names = [e.name for _, e in ALL]
    assert len(names) == len(set(names))
    counts = {v: sum(1 for w, _ in ALL if w == v) for v in VARIANTS}
    assert counts == {"bao-la-kete": 19, "bao-la-kiswahili": 6, "bao-kingulu": 8}
    outcomes = [e.outcome for _, e in ALL] + [m.outcome for _, e in ALL for m in e.moves]
    endings = {text.split()[1] for text in outcomes if text}
    assert endings == {"bao_hamna", "no_legal_move", "score"}


def test_the_format_rejects_an_unknown_key_and_a_move_without_next() -> None:
    with pytest.raises(ExampleError, match="unknown key 'moves'"):
        parse_example("example: X\nposition: p\nlegal: a1\nmoves: a1\n")
    with pytest.raises(ExampleError, match="has no 'next'"):
        parse_example("example: X\nposition: p\nlegal: a1\nmove: a1\n")
    with pytest.raises(ExampleError, match="no 'legal' line"):
        parse_example("example: X\nposition: p\n")
    block = "example: X\nposition: p\nlegal:\nmove: a1\nnext: q\noutcome: 1-0 score 30:18\n"
    (move,) = parse_example(block).moves
    assert (move.move, move.next, move.outcome) == ("a1", "q", "1-0 score 30:18")


def test_every_decision_label_the_code_cites_is_on_a_rule_page() -> None:
    root = PAGES.parents[1]
    label = re.compile(r"\b(?:[AKLG]-[0-9]+|D[1-3])\b")
    cited = {
        found
        for folder in ("arena", "engines")
        for path in (root / folder).rglob("*.py")
        for found in label.findall(path.read_text())
    }
    documented = {found for page in PAGES.glob("*.md") for found in label.findall(page.read_text())}
    assert len(cited) > 20 and cited <= documented, sorted(cited - documented)
