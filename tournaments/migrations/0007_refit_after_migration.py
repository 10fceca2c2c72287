"""Hands the ratings over to the whole-history fit (``tournaments.rating_services``).

The per-game Elo values stored so far are cleared (a version with games shows as "awaiting the
first refit" until then) and every variant that has rated games gets a pending refit request,
which the minute beat job ``tournaments.tasks.refit_stale_ratings`` (registered here, and again
idempotently by ``manage.py setup_periodic_tasks``) serves; ``manage.py refit_ratings`` does it at
once. Names are copied, not imported, so the migration keeps working if the code changes.
"""

from django.db import migrations

from arena.beat import register_interval_task, unregister_interval_task

TASK_NAME = "tournaments.tasks.refit_stale_ratings"
ENTRY_NAME = "tournaments: refit stale ratings"
AWAITING = "awaiting the first refit"


def forward(apps, schema_editor):
    Rating = apps.get_model("tournaments", "Rating")
    RatingPool = apps.get_model("tournaments", "RatingPool")
    Game = apps.get_model("matches", "Game")
    Rating.objects.update(
        rating=None, low=None, high=None, superiority=None, excluded_reason=AWAITING
    )
    variants = set(
        Game.objects.filter(rated=True, match__rated=True)
        .values_list("match__variant", flat=True)
        .distinct()
    )
    for variant in sorted(variants):
        pool, _ = RatingPool.objects.get_or_create(variant=variant)
        pool.requested = pool.fitted + 1
        pool.save(update_fields=["requested"])
    register_interval_task(apps, ENTRY_NAME, TASK_NAME, seconds=60)


def backward(apps, schema_editor):
    unregister_interval_task(apps, ENTRY_NAME)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0006_whole_history_ratings"),
        ("matches", "0001_initial"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(forward, backward)]
