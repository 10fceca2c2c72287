"""Registers the minute beat job ``start_due_tournaments`` with django-celery-beat.

Idempotent (update-or-create by name): ``manage.py setup_periodic_tasks`` may run as well and
still leaves exactly one periodic task. The names are copied here, not imported, so the
migration keeps working if ``tournaments.periodic`` changes.
"""

from django.db import migrations

from arena.beat import interval_task_operation

TASK_NAME = "tournaments.tasks.start_due_tournaments"
ENTRY_NAME = "tournaments: start due tournaments"


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0002_rating_change"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [interval_task_operation(ENTRY_NAME, TASK_NAME, seconds=60)]
