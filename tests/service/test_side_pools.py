"""The side pools a worker starts beside its match slots (``arena.beat_pool``): a pool sized 0
(``BAO_PEOPLE_SLOTS=0``) is not started, so that worker plays no people's games."""

from __future__ import annotations

import subprocess
from types import SimpleNamespace
from typing import Any

import pytest
from django.test import override_settings

from arena import beat_pool


@pytest.fixture
def popens(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The argv of every side pool started, without starting one."""
    started: list[list[str]] = []

    class Popen:
        pid = 4242

        def __init__(self, argv: list[str], **_: Any) -> None:
            started.append(argv)

    monkeypatch.setattr(subprocess, "Popen", Popen)
    monkeypatch.delenv(beat_pool.MARKER, raising=False)
    return started


WORKER = SimpleNamespace(hostname="w1@host", loglevel=20)


@override_settings(BAO_PEOPLE_SLOTS=0)
def test_a_people_pool_of_0_threads_is_not_started(popens: list[list[str]]) -> None:
    pool = beat_pool.PeoplePool(WORKER)
    pool.start(WORKER)
    assert popens == [] and pool.popen is None
    pool.stop(WORKER)  # nothing to stop


@override_settings(BAO_PEOPLE_SLOTS=3)
def test_a_people_pool_starts_its_threads_on_the_people_queue(popens: list[list[str]]) -> None:
    beat_pool.PeoplePool(WORKER).start(WORKER)
    (argv,) = popens
    assert "--concurrency=3" in argv
    assert argv[argv.index("-Q") + 1] == beat_pool.people_queue()
    assert argv[argv.index("-n") + 1] == "people.w1@host"
