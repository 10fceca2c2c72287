from django.db import migrations, models
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps


def bundled_engines_play_people(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    # The bundled engines are the arena's own reference players: people may play them.
    Engine = apps.get_model("engines", "Engine")
    Engine.objects.filter(is_bundled=True).update(consent_people=True)


class Migration(migrations.Migration):
    dependencies = [
        ("engines", "0007_worker_runtimes"),
    ]

    operations = [
        migrations.AddField(
            model_name="engine",
            name="consent_people",
            field=models.BooleanField(default=False),
        ),
        migrations.RunPython(bundled_engines_play_people, migrations.RunPython.noop),
    ]
