"""Registers the minute beat job ``refresh_version_tests`` with django-celery-beat.

Idempotent (update-or-create by name): ``manage.py setup_periodic_tasks`` may run as well and
still leaves exactly one periodic task. The names are copied here, not imported, so the
migration keeps working if ``versiontests.periodic`` changes.
"""

from django.db import migrations

from arena.beat import interval_task_operation

TASK_NAME = "tournaments.versiontests.tasks.refresh_version_tests"
ENTRY_NAME = "version tests: settle and queue pairs"


class Migration(migrations.Migration):
    dependencies = [
        ("versiontests", "0001_initial"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [interval_task_operation(ENTRY_NAME, TASK_NAME, seconds=60)]
