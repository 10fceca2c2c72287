"""The data migrations' beat-job operation (``arena.beat.interval_task_operation``), run here on
the app registry (a migration passes its historical one): it registers the job once, repairs a
changed row, and reversed deletes it."""

from __future__ import annotations

import pytest
from django.apps import apps
from django_celery_beat.models import PeriodicTask

from arena.beat import interval_task_operation

ENTRY = "test: a beat job"


def _row(name: str) -> tuple[str, int, str, bool]:
    job = PeriodicTask.objects.select_related("interval").get(name=name)
    return job.task, job.interval.every, job.interval.period, job.enabled


@pytest.mark.django_db
def test_the_operation_registers_repairs_and_removes_a_minute_job() -> None:
    operation = interval_task_operation(ENTRY, "tests.a_task")
    operation.code(apps, None)
    assert _row(ENTRY) == ("tests.a_task", 1, "minutes", True)
    PeriodicTask.objects.filter(name=ENTRY).update(task="tests.other", enabled=False)
    operation.code(apps, None)
    assert PeriodicTask.objects.filter(name=ENTRY).count() == 1
    assert _row(ENTRY) == ("tests.a_task", 1, "minutes", True)
    assert operation.reverse_code is not None
    operation.reverse_code(apps, None)
    assert not PeriodicTask.objects.filter(name=ENTRY).exists()


@pytest.mark.django_db
def test_the_operation_keeps_an_interval_under_a_minute_in_seconds() -> None:
    interval_task_operation(ENTRY, "tests.a_task", seconds=10).code(apps, None)
    assert _row(ENTRY) == ("tests.a_task", 10, "seconds", True)
