"""The rules engine of Bao la Kete, Bao la Kiswahili and Bao Kingulu (``shared/rules/``).

A pure package: standard library only, no Django settings, no I/O. Typical use::

    from arena.rules import get_variant, VARIANTS
    v = get_variant("bao-la-kete")          # UnknownVariantError for an unknown id
    p = v.initial_position()
    moves = v.legal_moves(p)                # sorted by token; str(m) is the token
    q = v.apply(p, "f2-")                   # InvalidMoveError / IllegalMoveError
    v.outcome(q)                            # None or Outcome(winner, reason, ...)
    g = v.new_game(); g.play("f2-"); g.outcome

Variants are created once and cached; they hold no per-game state.
"""

from __future__ import annotations

import importlib

from .base import (
    BAO_HAMNA,
    NO_LEGAL_MOVE,
    NORTH,
    PLY_CAP,
    REPETITION,
    RULES_REASONS,
    SCORE,
    SOUTH,
    Game,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    Move,
    Outcome,
    Position,
    RulesError,
    UnknownVariantError,
    Variant,
)

#: Stable variant ids, in the order the service lists them.
VARIANTS: tuple[str, ...] = ("bao-la-kete", "bao-la-kiswahili", "bao-kingulu")

_CLASSES = {
    "bao-la-kete": ("arena.rules.bao", "BaoLaKete"),
    "bao-la-kiswahili": ("arena.rules.bao", "BaoLaKiswahili"),
    "bao-kingulu": ("arena.rules.kingulu", "BaoKingulu"),
}
_ALIASES = {
    "kete": "bao-la-kete",
    "lamu": "bao-la-kete",
    "kiswahili": "bao-la-kiswahili",
    "zanzibar": "bao-la-kiswahili",
    "kingulu": "bao-kingulu",
    "ngulu": "bao-kingulu",
}
_INSTANCES: dict[str, Variant] = {}

#: Every name ``canonical_variant_id`` accepts (in lower case): the ids, then the aliases.
VARIANT_NAMES: tuple[str, ...] = (*VARIANTS, *_ALIASES)


def canonical_variant_id(name: str) -> str:
    """The stable id for an id or alias (case-insensitive); raises ``UnknownVariantError``."""
    key = str(name).strip().lower()
    key = _ALIASES.get(key, key)
    if key not in _CLASSES:
        known = ", ".join(VARIANTS)
        raise UnknownVariantError(f"unknown variant {name!r}; known variants: {known}")
    return key


def get_variant(name: str) -> Variant:
    """The variant for an id or alias (``"bao-la-kete"``, ``"kete"``, ...).

    Raises ``UnknownVariantError`` (a ``RulesError`` and a ``KeyError``) for an unknown name.
    """
    key = canonical_variant_id(name)
    variant = _INSTANCES.get(key)
    if variant is None:
        module_name, class_name = _CLASSES[key]
        variant = getattr(importlib.import_module(module_name), class_name)()
        _INSTANCES[key] = variant
    return variant


__all__ = [
    "BAO_HAMNA",
    "NORTH",
    "NO_LEGAL_MOVE",
    "PLY_CAP",
    "REPETITION",
    "RULES_REASONS",
    "SCORE",
    "SOUTH",
    "VARIANTS",
    "VARIANT_NAMES",
    "Game",
    "IllegalMoveError",
    "InvalidMoveError",
    "InvalidPositionError",
    "Move",
    "Outcome",
    "Position",
    "RulesError",
    "UnknownVariantError",
    "Variant",
    "canonical_variant_id",
    "get_variant",
]
