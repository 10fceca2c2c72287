"""The worked examples of the rule pages (``docs/rules/<variant id>.md``), read from the markdown.

An example is a fenced block whose info string is ``example``, one ``key: value`` a line
(``docs/rules/README.md`` section 1): ``example`` (its name), ``note`` (``test position`` or
absent), ``position``, ``legal`` (space-separated tokens, possibly none), ``outcome`` (of the
position, before any move), then any number of ``move`` / ``next`` pairs, each ``next``
optionally followed by the ``outcome`` of that position. The site draws them
(``arena.web.docs_pages``) and ``tests/rules/test_rules_pages.py`` replays them through
``arena.rules``. Pure: no Django, no rules engine.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: The info string of an example's fence.
FENCE_INFO = "example"
_FENCE = re.compile(r"^```[ \t]*(\S*)[^\n]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
_LINE = re.compile(r"^([a-z-]+):[ \t]*(.*?)[ \t]*$")
_NOTES = ("test position",)


class ExampleError(ValueError):
    """An example block breaks the format (unknown key, a key out of place, a missing key)."""


@dataclass(frozen=True)
class ExampleMove:
    """One ``move:`` of an example, the ``next:`` position after it and that position's
    ``outcome:`` text (``"1-0 bao_hamna hand 3"``) or None while play goes on."""

    move: str
    next: str
    outcome: str | None = None


@dataclass(frozen=True)
class Example:
    """One worked example: ``name`` (``KETE-1``), ``position`` (BPN/KPN text), ``legal`` (the
    tokens as written, in order), ``outcome`` of ``position`` (None: play goes on),
    ``moves``, and ``test_position`` (may break the invariants of reachable positions)."""

    name: str
    position: str
    legal: tuple[str, ...]
    outcome: str | None
    moves: tuple[ExampleMove, ...]
    test_position: bool


def parse_example(body: str) -> Example:
    """The example in the text of one fenced block (without its fences).

    Raises ``ExampleError`` naming the line that breaks the format.
    """
    fields: dict[str, str] = {}
    moves: list[ExampleMove] = []
    move: str | None = None
    for number, raw in enumerate(body.splitlines(), 1):
        if not raw.strip():
            continue
        match = _LINE.match(raw)
        if match is None:
            raise ExampleError(f"line {number}: expected 'key: value', got {raw!r}")
        key, value = match.groups()
        if key == "move":
            if move is not None:
                raise ExampleError(f"line {number}: 'move' {move!r} has no 'next'")
            if "position" not in fields:
                raise ExampleError(f"line {number}: 'move' before 'position'")
            move = value
        elif key == "next":
            if move is None:
                raise ExampleError(f"line {number}: 'next' without a 'move'")
            moves.append(ExampleMove(move, value))
            move = None
        elif key == "outcome":
            if move is not None:
                raise ExampleError(f"line {number}: 'outcome' between 'move' and 'next'")
            if moves:
                if moves[-1].outcome is not None:
                    raise ExampleError(f"line {number}: a second 'outcome' for one 'next'")
                moves[-1] = ExampleMove(moves[-1].move, moves[-1].next, value)
            elif "outcome" in fields:
                raise ExampleError(f"line {number}: a second 'outcome' of the position")
            else:
                fields["outcome"] = value
        elif key in ("example", "note", "position", "legal"):
            if key in fields:
                raise ExampleError(f"line {number}: '{key}' given twice")
            if moves or move is not None:
                raise ExampleError(f"line {number}: '{key}' after the first 'move'")
            if key == "note" and value not in _NOTES:
                raise ExampleError(f"line {number}: unknown note {value!r}")
            fields[key] = value
        else:
            raise ExampleError(f"line {number}: unknown key {key!r}")
    if move is not None:
        raise ExampleError(f"'move' {move!r} has no 'next'")
    for key in ("example", "position", "legal"):
        if key not in fields:
            raise ExampleError(f"no '{key}' line")
    return Example(
        name=fields["example"],
        position=fields["position"],
        legal=tuple(fields["legal"].split()),
        outcome=fields.get("outcome"),
        moves=tuple(moves),
        test_position=fields.get("note") == "test position",
    )


def examples_in(markdown: str) -> list[Example]:
    """Every example of a page, in page order. Raises ``ExampleError`` (with the name or
    position of the block) for a block that breaks the format."""
    found = []
    for match in _FENCE.finditer(markdown):
        if match.group(1) != FENCE_INFO:
            continue
        try:
            found.append(parse_example(match.group(2)))
        except ExampleError as exc:
            line = markdown.count("\n", 0, match.start()) + 1
            raise ExampleError(f"the example block at line {line}: {exc}") from None
    return found
