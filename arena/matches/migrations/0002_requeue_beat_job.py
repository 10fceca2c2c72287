"""Registers the minute beat job ``requeue_expired_leases`` with django-celery-beat.

Idempotent (get-or-create by name), so re-running it, or running the ``setup_periodic_tasks``
command as well, leaves exactly one periodic task.
"""

from django.db import migrations

from arena.beat import interval_task_operation

TASK_NAME = "arena.matches.tasks.requeue_expired_leases"
ENTRY_NAME = "matches: requeue expired leases"


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0001_initial"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [interval_task_operation(ENTRY_NAME, TASK_NAME, seconds=60)]
