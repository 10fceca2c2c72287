"""Each variant's ladder pause moves from the rating pool to the ladder (``LadderState``).

Creates the ``LadderState`` table and copies every ``RatingPool.ladder_paused=True`` into it
(a paused variant stays paused); ``ratings.0002_remove_ratingpool_ladder_paused`` then drops the
old field. Backwards, every paused ``LadderState`` is copied back to its variant's rating pool
(made if missing) before the table goes; ``ratings.0002`` is unapplied first, so the field is
there again to take it.
"""

from django.db import migrations, models

import arena.rules.base


def pauses_to_ladder(apps, schema_editor):
    RatingPool = apps.get_model("ratings", "RatingPool")
    LadderState = apps.get_model("ladder", "LadderState")
    for variant in RatingPool.objects.filter(ladder_paused=True).values_list("variant", flat=True):
        LadderState.objects.update_or_create(variant=variant, defaults={"paused": True})


def pauses_to_ratings(apps, schema_editor):
    RatingPool = apps.get_model("ratings", "RatingPool")
    LadderState = apps.get_model("ladder", "LadderState")
    for variant in LadderState.objects.filter(paused=True).values_list("variant", flat=True):
        RatingPool.objects.update_or_create(variant=variant, defaults={"ladder_paused": True})


class Migration(migrations.Migration):
    dependencies = [
        ("ladder", "0001_initial"),
        ("ratings", "0001_initial"),
    ]

    operations = [
        migrations.CreateModel(
            name="LadderState",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "variant",
                    models.CharField(
                        choices=[
                            (
                                arena.rules.base.VariantId["BAO_LA_KETE"],
                                arena.rules.base.VariantId["BAO_LA_KETE"],
                            ),
                            (
                                arena.rules.base.VariantId["BAO_LA_KISWAHILI"],
                                arena.rules.base.VariantId["BAO_LA_KISWAHILI"],
                            ),
                            (
                                arena.rules.base.VariantId["BAO_KINGULU"],
                                arena.rules.base.VariantId["BAO_KINGULU"],
                            ),
                        ],
                        max_length=32,
                        unique=True,
                    ),
                ),
                ("paused", models.BooleanField(default=False)),
            ],
        ),
        migrations.RunPython(pauses_to_ladder, pauses_to_ratings),
    ]
