"""Registers the minute beat job ``requeue_expired_leases`` with django-celery-beat.

Idempotent (get-or-create by name), so re-running it, or running the ``setup_periodic_tasks``
command as well, leaves exactly one periodic task.
"""

from django.db import migrations

TASK_NAME = "arena.matches.tasks.requeue_expired_leases"
ENTRY_NAME = "matches: requeue expired leases"


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
        ("matches", "0001_initial"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(register, unregister)]
