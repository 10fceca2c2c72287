"""Hands the models Rating, RatingPoint and RatingPool over to the ratings app (state only).

The tables stay as they are (``tournaments_rating``, ``tournaments_ratingpoint``,
``tournaments_ratingpool``): this migration forgets the models in the tournaments app's state
without touching the database, and ``ratings.0001_initial`` declares them again in the ratings
app with ``db_table`` set to the same tables. Migrations before this one (e.g.
``0007_refit_after_migration``) still read them as ``tournaments.Rating`` at their state.
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0011_ladder_paused"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(
                    model_name="rating",
                    name="engine_version",
                ),
                migrations.RemoveField(
                    model_name="ratingpoint",
                    name="engine_version",
                ),
                migrations.RemoveField(
                    model_name="ratingpoint",
                    name="match",
                ),
                migrations.RemoveField(
                    model_name="ratingpoint",
                    name="opponent",
                ),
                migrations.DeleteModel(
                    name="RatingPool",
                ),
                migrations.DeleteModel(
                    name="Rating",
                ),
                migrations.DeleteModel(
                    name="RatingPoint",
                ),
            ],
            database_operations=[],
        ),
    ]
