"""Registers the minute beat job ``ladder_fill_all`` (the ladder's matchmaking) with
django-celery-beat. Idempotent (update-or-create by name), like ``manage.py
setup_periodic_tasks``; the names are copied here so the migration outlives
``tournaments.periodic``."""

from django.db import migrations

TASK_NAME = "tournaments.tasks.ladder_fill_all"
ENTRY_NAME = "tournaments: ladder matchmaking"


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
        ("tournaments", "0009_ladder"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(register, unregister)]
