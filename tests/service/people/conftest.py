"""Fixtures of people's games: an engine people may play (a version row, no package: the
API tests never start it) and a record of the games sent to the people queue."""

from __future__ import annotations

from typing import Any

import pytest

from tests.service.web.conftest import browser  # noqa: F401 (the headless Chromium fixture)


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The ids of the games ``POST /api/play/`` queued (no broker, no worker)."""
    from people import services

    queued: list[int] = []
    monkeypatch.setattr(services, "_send", queued.append)
    # The test's transaction never commits: run what waits for the commit at once.
    monkeypatch.setattr(services.transaction, "on_commit", lambda call, **_: call())
    return queued


def make_engine(name: str, *, owner: Any = None, people: bool = True, bundled: bool = False,
                variants: list[str] | None = None) -> Any:  # fmt: skip
    from django.contrib.auth import get_user_model

    from engines.models import Engine, EngineVersion

    if owner is None:
        owner, _ = get_user_model().objects.get_or_create(username="engine-owner")
    engine = Engine.objects.create(
        owner=owner, name=name, consent_people=people, is_bundled=bundled
    )
    EngineVersion.objects.create(
        engine=engine,
        number=1,
        status="active",
        original_filename=name,
        sha256="0" * 64,
        size_bytes=1,
        storage_path=f"{name}/1",
        variants=variants if variants is not None else ["bao-la-kete", "bao-kingulu"],
    )
    return engine


@pytest.fixture
def opponent(db: Any) -> Any:
    """An engine named ``tembo`` whose owner lets people play it."""
    return make_engine("tembo")
