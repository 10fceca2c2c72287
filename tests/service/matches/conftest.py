"""Fixtures of the matches tests: active engine versions made straight from the bundled files.

Versions are created as rows (status ``active``, every variant announced) with the bundled
script copied into the storage layout of ``engines.storage`` under a fresh engines directory
(the sandbox runs each engine from a private copy), so no validation game runs; the
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


def make_version(owner, name: str, script: str, *, number: int = 1, status: str = "active",
                 variants: tuple[str, ...] = VARIANTS, enabled: bool = True):  # type: ignore[no-untyped-def]
    from django.conf import settings

    from engines.models import Engine, EngineVersion

    # The bundled scripts owned by the stand-in of the system user are bundled engines: games
    # between them are rated although one owner owns them all (engines.consent.rated_between).
    bundled = owner.username == "arena-system" and "/" not in script
    engine, _ = Engine.objects.get_or_create(
        name=name, defaults={"owner": owner, "is_enabled": enabled, "is_bundled": bundled}
    )
    # ``script``: a bundled engine's name, or a path to another engine script.
    source = BUNDLED / script if "/" not in script else Path(script)
    script = source.name
    storage_path = f"{name}/v{number}/upload/{script}"
    version_dir = Path(settings.BAO_ENGINES_DIR) / name / f"v{number}"
    for part in ("upload", "root"):
        (version_dir / part).mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, version_dir / part / script)
    return EngineVersion.objects.create(
        engine=engine,
        number=number,
        status=status,
        original_filename=script,
        sha256="0" * 64,
        size_bytes=source.stat().st_size,
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
