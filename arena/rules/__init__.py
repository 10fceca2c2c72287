"""The rules engine of Bao la Kete, Bao la Kiswahili and Bao Kingulu (``docs/rules/``).

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
    SOUTH_POINTS,
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
    VariantId,
)

#: Stable variant ids, in the order the service lists them.
VARIANTS: tuple[str, ...] = tuple(VariantId)

# Where each variant's class lives; the classes are imported on first use.
_CLASSES = {
    VariantId.BAO_LA_KETE: ("arena.rules.bao", "BaoLaKete"),
    VariantId.BAO_LA_KISWAHILI: ("arena.rules.bao", "BaoLaKiswahili"),
    VariantId.BAO_KINGULU: ("arena.rules.kingulu", "BaoKingulu"),
}
_INSTANCES: dict[str, Variant] = {}
_NAMES: dict[str, VariantId] = {}


def _variant_class(variant_id: VariantId) -> type[Variant]:
    module_name, class_name = _CLASSES[variant_id]
    cls: type[Variant] = getattr(importlib.import_module(module_name), class_name)
    return cls


def _names() -> dict[str, VariantId]:
    """Every id and alias (lower case) to its id, as the variant classes declare them."""
    if not _NAMES:
        for variant_id in VariantId:
            cls = _variant_class(variant_id)
            assert cls.id == variant_id, f"{cls.__name__}.id is {cls.id!r}, not {variant_id!r}"
            for name in (cls.id, *cls.aliases):
                _NAMES[name.lower()] = variant_id
    return _NAMES


def variant_names() -> tuple[str, ...]:
    """Every name ``canonical_variant_id`` accepts (lower case): each id, then its aliases."""
    return tuple(_names())


def canonical_variant_id(name: str) -> VariantId:
    """The stable id for an id or alias (case-insensitive); raises ``UnknownVariantError``."""
    key = _names().get(str(name).strip().lower())
    if key is None:
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
        variant = _variant_class(key)()
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
    "SOUTH_POINTS",
    "VARIANTS",
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
    "VariantId",
    "canonical_variant_id",
    "get_variant",
    "variant_names",
]
