"""Hands the models LadderMatch and LadderKeep over to the ladder app (state only).

The tables stay as they are (``tournaments_laddermatch``, ``tournaments_ladderkeep``): this
migration forgets the models in the tournaments app's state without touching the database, and
``ladder.0001_initial`` declares them again in the ladder app with ``db_table`` set to the same
tables.
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0012_move_ratings_to_ratings_app"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(
                    model_name="laddermatch",
                    name="match",
                ),
                migrations.DeleteModel(
                    name="LadderKeep",
                ),
                migrations.DeleteModel(
                    name="LadderMatch",
                ),
            ],
            database_operations=[],
        ),
    ]
