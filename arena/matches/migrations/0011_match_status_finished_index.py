# The latest results at any table size (arena.matches.selectors.matches_recent_results).

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('matches', '0010_game_time_loss'),
    ]

    operations = [
        migrations.AddIndex(
            model_name='match',
            index=models.Index(fields=['status', 'finished_at'], name='match_status_finished_idx'),
        ),
    ]
