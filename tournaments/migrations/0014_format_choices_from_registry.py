"""The format's choices come from the registry (``tournaments.formats.format_choices``), a
callable, so that adding a format to ``FORMATS`` needs no migration. Choices are not stored in
the database: nothing changes there."""

from django.db import migrations, models

import tournaments.formats


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0013_move_ladder_to_ladder_app"),
    ]

    operations = [
        migrations.AlterField(
            model_name="tournament",
            name="format",
            field=models.CharField(
                choices=tournaments.formats.format_choices, default="round_robin", max_length=24
            ),
        ),
    ]
