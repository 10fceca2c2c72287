"""Usernames: NFKC-normalised, and refused when they look like an existing one.

``skeleton(name)`` is the name as a reader sees it, after the steps below; two names with the
same skeleton are confusable (``\u0430lice`` with a Cyrillic a (U+0430) and ``alice``, ``Bob``
and ``bob``, ``b0b`` and ``bob``). This is a skeleton in the sense of Unicode TS #39 section 4
(map each character to a prototype, compare the results), with the prototypes taken from the
``confusables`` package's copy of Unicode's confusables data, reduced to one ASCII letter or
digit per character:

1. NFKC (fullwidth ``\uff42\uff4f\uff42`` is ``bob``, U+217C ``\u217c`` is ``l``);
2. each character outside ASCII that the data lists as confusable with ASCII letters becomes
   the first of those letters in alphabetical order (else the first such digit; else it stays);
3. the ASCII look-alikes ``I`` ``1`` ``|`` become ``l`` and ``0`` becomes ``o``;
4. case folded.

One pass, linear in the name's length (the package's ``normalize`` enumerates every reading and
grows exponentially with the name). Checked against every existing username at registration
(``confusable_with``): a scan of the user table, a few ms per thousand users.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from functools import lru_cache

from confusables import CONFUSABLE_MAP

_ASCII_FOLD = {"I": "l", "1": "l", "|": "l", "0": "o"}


def normalize(name: str) -> str:
    """The stored form of a username: NFKC (as Django's ``normalize_username``)."""
    return unicodedata.normalize("NFKC", name)


@lru_cache(maxsize=4096)
def _prototype(char: str) -> str:
    if char.isascii():
        return _ASCII_FOLD.get(char, char)
    alike: set[str] = {
        str(c).lower() for c in CONFUSABLE_MAP.get(char, ()) if len(c) == 1 and c.isascii()
    }
    letters = sorted(c for c in alike if c.isalpha())
    digits = sorted(c for c in alike if c.isdigit())
    if letters:
        return letters[0]
    if digits:
        return _ASCII_FOLD.get(digits[0], digits[0])
    return char


def skeleton(name: str) -> str:
    """The look of ``name`` (module docstring): equal skeletons, confusable names."""
    return "".join(_prototype(c) for c in normalize(name)).casefold()


def confusable_with(name: str, existing: Iterable[str]) -> str | None:
    """The first of ``existing`` whose skeleton is ``name``'s, else None."""
    own = skeleton(name)
    for other in existing:
        if skeleton(other) == own:
            return other
    return None
