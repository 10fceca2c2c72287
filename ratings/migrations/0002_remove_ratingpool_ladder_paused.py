"""The ladder's pause leaves the rating pool: it is ``ladder.LadderState.paused`` now.

Runs after ``ladder.0002_ladder_state``, which copied every paused variant over; backwards the
field comes back unpaused and that migration's reverse copies the pauses back into it.
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("ratings", "0001_initial"),
        ("ladder", "0002_ladder_state"),
    ]

    operations = [
        migrations.RemoveField(
            model_name="ratingpool",
            name="ladder_paused",
        ),
    ]
