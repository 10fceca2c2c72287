"""Registers the minute beat job ``delete_ended_live_games`` (the live rows of a match go
``BAO_LIVE_KEEP_SECONDS`` after it ended). Idempotent: one row by name, as
``manage.py setup_periodic_tasks`` makes it."""

from django.db import migrations

TASK_NAME = "arena.matches.tasks.delete_ended_live_games"
ENTRY_NAME = "matches: delete ended live games"


def register(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    every_minute, _ = IntervalSchedule.objects.get_or_create(every=1, period="minutes")
    PeriodicTask.objects.update_or_create(
        name=ENTRY_NAME,
        defaults={"task": TASK_NAME, "interval": every_minute, "enabled": True},
    )


def unregister(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=ENTRY_NAME).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0011_match_list_indexes"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(register, unregister)]
