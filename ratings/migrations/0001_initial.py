"""The ratings app takes over Rating, RatingPoint and RatingPool from the tournaments app.

State only: the tables already exist under their tournaments names (``db_table``), made by the
tournaments migrations up to ``0011``; ``tournaments.0012_move_ratings_to_ratings_app`` removed
the models from that app's state. Nothing in the database changes but the content types, which
are renamed to the ratings app so that permissions and admin history follow the models.
"""

import django.db.models.deletion
from django.db import migrations, models

import arena.rules.base

MODELS = ["rating", "ratingpoint", "ratingpool"]


def _move_content_types(apps, old, new):
    ContentType = apps.get_model("contenttypes", "ContentType")
    for model in MODELS:
        # A content type already made for the new label (post_migrate) wins; none is made twice.
        if not ContentType.objects.filter(app_label=new, model=model).exists():
            ContentType.objects.filter(app_label=old, model=model).update(app_label=new)


def content_types_forward(apps, schema_editor):
    _move_content_types(apps, "tournaments", "ratings")


def content_types_backward(apps, schema_editor):
    _move_content_types(apps, "ratings", "tournaments")


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("engines", "0006_validation_queued_at"),
        ("matches", "0013_game_match_no_extra_index"),
        ("tournaments", "0012_move_ratings_to_ratings_app"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="RatingPool",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
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
                        ("ladder_paused", models.BooleanField(default=False)),
                        ("requested", models.PositiveBigIntegerField(default=0)),
                        ("refit_queued", models.BooleanField(default=False)),
                        ("queued_at", models.DateTimeField(blank=True, null=True)),
                        ("fitted", models.PositiveBigIntegerField(default=0)),
                        ("fitted_at", models.DateTimeField(blank=True, null=True)),
                        ("games", models.PositiveIntegerField(default=0)),
                        ("rated", models.PositiveIntegerField(default=0)),
                        ("excluded", models.PositiveIntegerField(default=0)),
                        ("fit_ms", models.FloatField(default=0.0)),
                    ],
                    options={
                        "db_table": "tournaments_ratingpool",
                    },
                ),
                migrations.CreateModel(
                    name="Rating",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
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
                            ),
                        ),
                        ("rating", models.FloatField(blank=True, null=True)),
                        ("low", models.FloatField(blank=True, null=True)),
                        ("high", models.FloatField(blank=True, null=True)),
                        ("games", models.PositiveIntegerField(default=0)),
                        ("wins", models.PositiveIntegerField(default=0)),
                        ("draws", models.PositiveIntegerField(default=0)),
                        ("losses", models.PositiveIntegerField(default=0)),
                        ("provisional", models.BooleanField(default=True)),
                        ("prior", models.BooleanField(default=False)),
                        ("superiority", models.FloatField(blank=True, null=True)),
                        ("excluded_reason", models.CharField(blank=True, max_length=100)),
                        ("updated_at", models.DateTimeField(auto_now=True)),
                        (
                            "engine_version",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="ratings",
                                to="engines.engineversion",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "tournaments_rating",
                        "ordering": ["variant", "-rating"],
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("engine_version", "variant"),
                                name="rating_unique_version_variant",
                            )
                        ],
                    },
                ),
                migrations.CreateModel(
                    name="RatingPoint",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
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
                            ),
                        ),
                        ("games", models.PositiveIntegerField()),
                        ("points", models.FloatField()),
                        ("rating", models.FloatField()),
                        ("low", models.FloatField()),
                        ("high", models.FloatField()),
                        ("finished_at", models.DateTimeField()),
                        ("fitted_at", models.DateTimeField()),
                        (
                            "engine_version",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="rating_points",
                                to="engines.engineversion",
                            ),
                        ),
                        (
                            "match",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="rating_points",
                                to="matches.match",
                            ),
                        ),
                        (
                            "opponent",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to="engines.engineversion",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "tournaments_ratingpoint",
                        "ordering": ["finished_at", "id"],
                        "indexes": [
                            models.Index(
                                fields=["engine_version", "variant", "finished_at"],
                                name="rating_point_history_idx",
                            )
                        ],
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("match", "engine_version"),
                                name="rating_point_unique_match_version",
                            )
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(content_types_forward, content_types_backward),
    ]
