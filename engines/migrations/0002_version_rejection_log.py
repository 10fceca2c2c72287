"""The engine's stderr tail moves out of the public ``rejection_reason`` into
``rejection_log`` (owner and staff only): a new field, and existing reasons split at the marker
validation used to join them with."""

from django.db import migrations, models

MARKER = "\n--- engine stderr (tail) ---\n"


def split_reasons(apps, schema_editor):  # type: ignore[no-untyped-def]
    EngineVersion = apps.get_model("engines", "EngineVersion")
    for version in EngineVersion.objects.filter(rejection_reason__contains=MARKER).iterator():
        reason, _, log = version.rejection_reason.partition(MARKER)
        version.rejection_reason, version.rejection_log = reason, log
        version.save(update_fields=["rejection_reason", "rejection_log"])


def join_reasons(apps, schema_editor):  # type: ignore[no-untyped-def]
    EngineVersion = apps.get_model("engines", "EngineVersion")
    for version in EngineVersion.objects.exclude(rejection_log="").iterator():
        version.rejection_reason += MARKER + version.rejection_log
        version.save(update_fields=["rejection_reason"])


class Migration(migrations.Migration):
    dependencies = [
        ("engines", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="engineversion",
            name="rejection_log",
            field=models.TextField(blank=True),
        ),
        migrations.RunPython(split_reasons, join_reasons),
    ]
