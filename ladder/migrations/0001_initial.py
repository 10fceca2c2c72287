"""The ladder app takes over LadderMatch and LadderKeep from the tournaments app.

State only: the tables already exist under their tournaments names (``db_table``), made by
``tournaments.0009_ladder``; ``tournaments.0013_move_ladder_to_ladder_app`` removed the models
from that app's state. Nothing in the database changes but the content types, which are renamed
to the ladder app so that permissions and admin history follow the models.
"""

import django.db.models.deletion
from django.db import migrations, models

import arena.rules.base

MODELS = ["laddermatch", "ladderkeep"]


def _move_content_types(apps, old, new):
    ContentType = apps.get_model("contenttypes", "ContentType")
    for model in MODELS:
        # A content type already made for the new label (post_migrate) wins; none is made twice.
        if not ContentType.objects.filter(app_label=new, model=model).exists():
            ContentType.objects.filter(app_label=old, model=model).update(app_label=new)


def content_types_forward(apps, schema_editor):
    _move_content_types(apps, "tournaments", "ladder")


def content_types_backward(apps, schema_editor):
    _move_content_types(apps, "ladder", "tournaments")


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("tournaments", "0013_move_ladder_to_ladder_app"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("engines", "0006_validation_queued_at"),
        ("matches", "0013_game_match_no_extra_index"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="LadderKeep",
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
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        (
                            "engine_version",
                            models.OneToOneField(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="ladder_keep",
                                to="engines.engineversion",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "tournaments_ladderkeep",
                    },
                ),
                migrations.CreateModel(
                    name="LadderMatch",
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
                        ("placement", models.BooleanField(default=False)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        (
                            "match",
                            models.OneToOneField(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="ladder_match",
                                to="matches.match",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "tournaments_laddermatch",
                        "ordering": ["-created_at", "-id"],
                        "indexes": [
                            models.Index(
                                fields=["variant", "created_at"], name="ladder_match_variant_idx"
                            )
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(content_types_forward, content_types_backward),
    ]
