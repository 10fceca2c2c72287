"""Tasks that moved out of the tournaments app kept their registered names: queued tasks and
django-celery-beat rows name them so (docs/architecture.md)."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    ("module", "function", "name"),
    [
        ("ratings.tasks", "refit_ratings", "tournaments.tasks.refit_ratings"),
        ("ratings.tasks", "refit_stale_ratings", "tournaments.tasks.refit_stale_ratings"),
        ("ladder.tasks", "ladder_fill", "tournaments.tasks.ladder_fill"),
        ("ladder.tasks", "ladder_fill_all", "tournaments.tasks.ladder_fill_all"),
        (
            "versiontests.tasks",
            "refresh_version_tests",
            "tournaments.versiontests.tasks.refresh_version_tests",
        ),
    ],
)
def test_a_moved_task_is_registered_under_its_old_name(
    module: str, function: str, name: str
) -> None:
    import importlib

    from arena.celery import app

    task = getattr(importlib.import_module(module), function)
    assert task.name == name
    assert app.tasks[name].__module__ == module  # the registered task is this module's
