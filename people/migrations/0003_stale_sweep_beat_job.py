"""Registers the minute beat job ``abort_stale_person_games`` with django-celery-beat.

Idempotent (update-or-create by name): ``manage.py setup_periodic_tasks`` may run as well and
still leaves exactly one periodic task. The names are copied here, not imported, so the
migration keeps working if ``people.periodic`` changes.
"""

from django.db import migrations

from arena.beat import interval_task_operation

TASK_NAME = "people.tasks.abort_stale_person_games"
ENTRY_NAME = "people: abort games whose worker died"


class Migration(migrations.Migration):
    dependencies = [
        ("people", "0002_person_game_events"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [interval_task_operation(ENTRY_NAME, TASK_NAME, seconds=60)]
