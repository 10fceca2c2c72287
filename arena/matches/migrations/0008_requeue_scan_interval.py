"""The requeue scan runs every ``settings.BAO_REQUEUE_SCAN_SECONDS`` (10 s by default) instead of
every minute, so a dead worker's match is noticed within about half a minute (issue 11)."""

from django.conf import settings
from django.db import migrations

ENTRY_NAME = "matches: requeue expired leases"
TASK_NAME = "arena.matches.tasks.requeue_expired_leases"


def register(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    seconds = int(settings.BAO_REQUEUE_SCAN_SECONDS)
    every, _ = IntervalSchedule.objects.get_or_create(every=seconds, period="seconds")
    PeriodicTask.objects.update_or_create(
        name=ENTRY_NAME, defaults={"task": TASK_NAME, "interval": every, "enabled": True}
    )


class Migration(migrations.Migration):
    dependencies = [("matches", "0007_dispatch_queue")]

    operations = [migrations.RunPython(register, migrations.RunPython.noop)]
