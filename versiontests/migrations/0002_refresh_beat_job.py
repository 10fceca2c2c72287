"""Registers the minute beat job ``refresh_version_tests`` with django-celery-beat.

Idempotent (update-or-create by name): ``manage.py setup_periodic_tasks`` may run as well and
still leaves exactly one periodic task. The names are copied here, not imported, so the
migration keeps working if ``versiontests.periodic`` changes.
"""

from django.db import migrations

TASK_NAME = "tournaments.versiontests.tasks.refresh_version_tests"
ENTRY_NAME = "version tests: settle and queue pairs"


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
        ("versiontests", "0001_initial"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(register, unregister)]
