"""Fixtures of the API plumbing tests: engine and match rows made directly (no files, no
validation game), enough for lookups, filters and challenges."""

from __future__ import annotations

from typing import Any

import pytest

from arena.rules import VARIANTS


def active_version(owner: Any, name: str, *, number: int = 1) -> Any:
    """An ``active`` version (every variant) of the engine ``name`` (created if missing)."""
    from engines.models import Engine, EngineVersion

    engine, _ = Engine.objects.get_or_create(name=name, defaults={"owner": owner})
    return EngineVersion.objects.create(
        engine=engine,
        number=number,
        status=EngineVersion.Status.ACTIVE,
        original_filename="engine.py",
        sha256="0" * 64,
        size_bytes=1,
        storage_path=f"{name}/v{number}/upload/engine.py",
        variants=list(VARIANTS),
    )


@pytest.fixture
def alice1(alice):  # type: ignore[no-untyped-def]
    """Alice's engine ``alice1`` with one active version."""
    return active_version(alice, "alice1")


@pytest.fixture
def bob1(bob):  # type: ignore[no-untyped-def]
    """Bob's engine ``bob1`` with one active version."""
    return active_version(bob, "bob1")


@pytest.fixture
def two_matches(alice1, bob1):  # type: ignore[no-untyped-def]
    """A rated Kete match and an unrated Kiswahili match between alice1 and bob1."""
    from arena.matches.models import Match

    kete = Match.objects.create(
        variant="bao-la-kete",
        time_control="10+0.1",
        engine_a=alice1,
        engine_b=bob1,
        seed=1,
        rated=True,
    )
    kiswahili = Match.objects.create(
        variant="bao-la-kiswahili",
        time_control="10+0.1",
        engine_a=bob1,
        engine_b=alice1,
        seed=2,
        rated=False,
    )
    return kete, kiswahili
