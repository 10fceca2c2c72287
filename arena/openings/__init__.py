"""Start positions: the variant's standard start, or one drawn from a named suite of balanced
positions (issue 15). Pure: the standard library and ``arena.rules`` only (no Django), so the
referee, the services and scripts share it.

A *suite* is a directory of this package holding one plain-text file per variant, named after
the variant id (``balanced/bao-la-kete.txt``): one position per line in the notation of
``docs/rules/README.md`` section 7 (BPN for Bao, KPN for Kingulu), blank lines and lines
starting with ``#`` ignored. The files say in their header the command that made them and its
seed (``engines/opening_suites.py`` writes them: seeded random plies from the standard start,
kept when the bundled search at a fixed depth scores them close to even).

Typical use::

    from arena.openings import STANDARD, start_choices, suite_position, match_start
    start_choices()                                   # ('standard', 'balanced')
    suite_position("bao-la-kete", "balanced", 7)      # the 8th position of that file
    match_start("bao-kingulu", "balanced", seed=42)   # drawn by the match seed
    match_start("bao-kingulu", STANDARD, seed=42)     # the variant's initial position
"""

from __future__ import annotations

import functools
import random
import re
from pathlib import Path

from arena.rules import InvalidPositionError, Position, Variant, get_variant

#: The name of the variant's own start position among the start choices.
STANDARD = "standard"
#: The default suite of the services that play from a suite (ladder, version tests).
DEFAULT_SUITE = "balanced"

SUITES_DIR = Path(__file__).resolve().parent
# A suite name is also a directory name: nothing that could leave this package.
_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,31}$")


class OpeningError(ValueError):
    """Base error of this package."""


class UnknownSuiteError(OpeningError):
    """A start choice that is neither ``standard`` nor a suite with a file for the variant."""


class SuiteFileError(OpeningError):
    """A suite file that cannot be used: a line that does not parse, a position that is over or
    repeated, or no position at all. The message names the file and line."""


def _variant(variant: str | Variant) -> Variant:
    return variant if isinstance(variant, Variant) else get_variant(variant)


def suite_path(suite: str, variant: str | Variant) -> Path:
    """The file of ``suite`` for ``variant`` (it may not exist). Raises ``UnknownSuiteError``
    for a name that is not a suite name (lower-case letters, digits, ``-``; at most 32)."""
    if not isinstance(suite, str) or not _NAME.match(suite) or suite == STANDARD:
        raise UnknownSuiteError(f"{suite!r} is not a suite name")
    return SUITES_DIR / suite / f"{_variant(variant).id}.txt"


def suite_names(variant: str | Variant | None = None) -> tuple[str, ...]:
    """The suites on disk, sorted; with ``variant``, only those with a file for it."""
    found = []
    for entry in sorted(SUITES_DIR.iterdir()):
        if not entry.is_dir() or not _NAME.match(entry.name):
            continue
        files = (
            [entry / f"{_variant(variant).id}.txt"] if variant is not None else entry.glob("*.txt")
        )
        if any(f.is_file() for f in files):
            found.append(entry.name)
    return tuple(found)


def start_choices(variant: str | Variant | None = None) -> tuple[str, ...]:
    """``("standard", *suite_names(variant))``: what a match or tournament may start from."""
    return (STANDARD, *suite_names(variant))


def parse_suite(variant: str | Variant, text: str, source: str = "<text>") -> tuple[Position, ...]:
    """The positions of a suite file's ``text`` for ``variant``, in file order.

    Raises ``SuiteFileError`` (naming ``source`` and the line) for a position that does not
    parse, one whose game is already over (``Variant.outcome``), one repeated (same repetition
    key: every notation field but the ply), or a file without positions.
    """
    v = _variant(variant)
    positions: list[Position] = []
    seen: dict[object, int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            position = v.parse_position(line)
        except InvalidPositionError as exc:
            raise SuiteFileError(f"{source}:{number}: not a {v.id} position: {exc}") from None
        if v.outcome(position) is not None:
            raise SuiteFileError(f"{source}:{number}: the game is already over")
        key = position.repetition_key
        if key in seen:
            raise SuiteFileError(f"{source}:{number}: repeats line {seen[key]}")
        seen[key] = number
        positions.append(position)
    if not positions:
        raise SuiteFileError(f"{source}: no positions")
    return tuple(positions)


@functools.cache
def _load(suite: str, variant_id: str) -> tuple[Position, ...]:
    path = suite_path(suite, variant_id)
    if not path.is_file():
        known = ", ".join(start_choices(variant_id))
        raise UnknownSuiteError(
            f"no start-position suite {suite!r} for {variant_id}; choose one of: {known}"
        )
    return parse_suite(variant_id, path.read_text(encoding="utf-8"), str(path))


def load_suite(variant: str | Variant, suite: str) -> tuple[Position, ...]:
    """Every position of ``suite`` for ``variant`` (read once, then cached).

    Raises ``UnknownVariantError``, ``UnknownSuiteError`` (no such suite, or none for this
    variant) or ``SuiteFileError``.
    """
    return _load(suite, _variant(variant).id)


def suite_position(variant: str | Variant, suite: str, index: int) -> Position:
    """Position ``index`` (0-based, taken modulo the suite's size, so any int serves, e.g. the
    number of a game pair) of ``suite`` for ``variant``. Errors as ``load_suite``."""
    positions = load_suite(variant, suite)
    return positions[index % len(positions)]


def draw_index(variant: str | Variant, suite: str, seed: int) -> int:
    """The index a match with ``seed`` plays from ``suite``: a pure function of the seed, the
    suite and the variant (uniform over the suite). Errors as ``load_suite``."""
    v = _variant(variant)
    size = len(load_suite(v, suite))
    return random.Random(f"bao-arena/opening/{v.id}/{suite}/{seed}").randrange(size)


def match_start(variant: str | Variant, start: str, seed: int) -> Position:
    """The start position of a match: the variant's initial position for ``"standard"``, else
    the position of suite ``start`` drawn by the match ``seed`` (``draw_index``). Errors as
    ``load_suite``."""
    v = _variant(variant)
    if start == STANDARD:
        return v.initial_position()
    return suite_position(v, start, draw_index(v, start, seed))
