"""Fixtures of the matches tests: active engine versions made straight from the bundled files.

Versions are created as rows (status ``active``, every variant announced) with the bundled
script put into the package storage (``engines.storage``: the database), so no validation game
runs (the sandbox runs each engine from a private copy of the cache's entry); the
engines' own tests cover validation. ``sandbox=off`` referee configs keep the unit tests fast;
one test uses the real sandbox.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.referee import RefereeConfig
from arena.rules import VARIANTS

BUNDLED = Path(__file__).resolve().parents[3] / "engines" / "bundled"


def make_version(
    owner,
    name: str,
    script: str,
    *,
    number: int = 1,
    status: str = "active",
    variants: tuple[str, ...] = VARIANTS,
    enabled: bool = True,
):  # type: ignore[no-untyped-def]
    from engines import storage
    from engines.models import Engine, EngineVersion

    # The bundled scripts owned by the stand-in of the system user are bundled engines: games
    # between them are rated although one owner owns them all (engines.consent.rated_between).
    bundled = owner.username == "arena-system" and "/" not in script
    engine, _ = Engine.objects.get_or_create(
        name=name, defaults={"owner": owner, "is_enabled": enabled, "is_bundled": bundled}
    )
    # ``script``: a bundled engine's name, or a path to another engine script.
    source = BUNDLED / script if "/" not in script else Path(script)
    with open(source, "rb") as handle:
        incoming = storage.receive(
            iter(lambda: handle.read(1 << 16), b""), source.name, max_bytes=1 << 30
        )
    try:
        storage_path = storage.store(incoming)  # into the package storage (the database)
    finally:
        incoming.discard()
    return EngineVersion.objects.create(
        engine=engine,
        number=number,
        status=status,
        original_filename=source.name,
        sha256=incoming.sha256,
        size_bytes=incoming.size_bytes,
        storage_path=storage_path,
        variants=list(variants),
        reported_name=script,
    )


@pytest.fixture(autouse=True)
def engines_dir(settings) -> Iterator[Path]:  # type: ignore[no-untyped-def]
    """A fresh ``VAR_DIR`` with its ``engines`` directory. Worker subprocesses get it as
    ``BAO_VAR_DIR``."""
    var = Path(tempfile.mkdtemp(prefix="bao-matches-test-"))
    var.chmod(0o755)
    (var / "engines").mkdir(mode=0o755)
    settings.VAR_DIR = var
    settings.BAO_ENGINES_DIR = var / "engines"
    yield var / "engines"
    shutil.rmtree(var, ignore_errors=True)


@pytest.fixture
def arena_user(db):  # type: ignore[no-untyped-def]
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user("arena-system", "", None)


@pytest.fixture
def greedy(arena_user):  # type: ignore[no-untyped-def]
    """An active version of the bundled greedy engine, named ``greedy``."""
    return make_version(arena_user, "greedy", "greedy")


@pytest.fixture
def randomer(arena_user):  # type: ignore[no-untyped-def]
    """An active version of the bundled random engine, named ``random``."""
    return make_version(arena_user, "random", "random")


@pytest.fixture
def searcher(arena_user):  # type: ignore[no-untyped-def]
    """An active version of the bundled search engine, named ``search``."""
    return make_version(arena_user, "search", "search")


@pytest.fixture
def alices_engine(alice):  # type: ignore[no-untyped-def]
    """Alice's engine ``alice-greedy`` (the greedy script), version 1 active."""
    return make_version(alice, "alice-greedy", "greedy")


@pytest.fixture
def bobs_engine(bob):  # type: ignore[no-untyped-def]
    """Bob's engine ``bob-random`` (the random script), version 1 active."""
    return make_version(bob, "bob-random", "random")


@pytest.fixture
def fast_referee() -> RefereeConfig:
    """Referee settings for unit tests: no sandbox (trusted bundled scripts only)."""
    from engines.sandbox import SandboxConfig

    return RefereeConfig(sandbox=SandboxConfig(mode="off"))
