"""Registers the minute beat job ``ladder_fill_all`` (the ladder's matchmaking) with
django-celery-beat. Idempotent (update-or-create by name), like ``manage.py
setup_periodic_tasks``; the names are copied here so the migration outlives
``tournaments.periodic``."""

from django.db import migrations

from arena.beat import interval_task_operation

TASK_NAME = "tournaments.tasks.ladder_fill_all"
ENTRY_NAME = "tournaments: ladder matchmaking"


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0009_ladder"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [interval_task_operation(ENTRY_NAME, TASK_NAME, seconds=60)]
