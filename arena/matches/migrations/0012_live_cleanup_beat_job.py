"""Registers the minute beat job ``delete_ended_live_games`` (the live rows of a match go
``BAO_LIVE_KEEP_SECONDS`` after it ended). Idempotent: one row by name, as
``manage.py setup_periodic_tasks`` makes it."""

from django.db import migrations

from arena.beat import interval_task_operation

TASK_NAME = "arena.matches.tasks.delete_ended_live_games"
ENTRY_NAME = "matches: delete ended live games"


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0011_match_list_indexes"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [interval_task_operation(ENTRY_NAME, TASK_NAME, seconds=60)]
