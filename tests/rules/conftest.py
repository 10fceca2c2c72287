"""Fixtures of the cross-variant rules tests: one case per variant of ``arena.rules.VARIANTS``.

A variant whose module does not exist yet is skipped (the two Bao games live in
``arena/rules/bao.py``, written in parallel); any other import failure is an error.
"""

from __future__ import annotations

import importlib

import pytest

from arena.rules import VARIANTS, Variant, get_variant
from arena.rules import _CLASSES as VARIANT_CLASSES


def load_variant(variant_id: str) -> Variant:
    """The variant, or ``pytest.skip`` while its module is not written."""
    module_name, _ = VARIANT_CLASSES[variant_id]
    try:
        importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        pytest.skip(f"{variant_id}: {module_name} is not written yet")
    return get_variant(variant_id)


@pytest.fixture(params=VARIANTS)
def variant(request: pytest.FixtureRequest) -> Variant:
    return load_variant(request.param)
