"""Uploaded packages move from the local engines directory into the package storage's default,
the database (``PackageBlob``), so that workers on other hosts can fetch them.

Each version's upload (``<engine>/v<n>-<id>/upload/<file>`` under ``BAO_ENGINES_DIR``) becomes
the blob ``<sha256>/<file>``, checked against the recorded sha256, and the version's
``storage_path`` that name; the old version directories are removed once the migration has
committed. A version whose file is missing or does not match its hash is left as it was (it
cannot be fetched, as it could not be run before) and named in a warning. Reversible: the
reverse writes the old layout back (the upload, and the unpacked ``root``).
"""

from __future__ import annotations

import hashlib
import logging
import re
import shutil
import uuid
from pathlib import Path

from django.conf import settings
from django.db import migrations, models, transaction

log = logging.getLogger("engines.migrations")

_MOVED = re.compile(r"^[0-9a-f]{64}/[^/]+$")


def _move_into_database(apps, schema_editor):  # type: ignore[no-untyped-def]
    EngineVersion = apps.get_model("engines", "EngineVersion")
    PackageBlob = apps.get_model("engines", "PackageBlob")
    root = Path(settings.BAO_ENGINES_DIR)
    done: list[Path] = []
    for version in EngineVersion.objects.order_by("pk").iterator():
        if _MOVED.match(version.storage_path):
            continue
        path = root / version.storage_path
        try:
            data = path.read_bytes()
        except OSError as exc:
            log.warning("engine version %s: %s not moved (%s)", version.pk, path, exc)
            continue
        digest = hashlib.sha256(data).hexdigest()
        if digest != version.sha256:
            log.warning(
                "engine version %s: %s has sha256 %s, not the recorded %s; not moved",
                version.pk,
                path,
                digest,
                version.sha256,
            )
            continue
        name = f"{digest}/{path.name}"
        PackageBlob.objects.get_or_create(
            name=name, defaults={"data": data, "size_bytes": len(data)}
        )
        version.storage_path = name
        version.save(update_fields=["storage_path"])
        if path.parent.name == "upload":
            done.append(path.parent.parent)

    def remove() -> None:
        for directory in done:
            shutil.rmtree(directory, ignore_errors=True)

    # Only once the rows are committed: a failed migration must find its files again.
    transaction.on_commit(remove, using=schema_editor.connection.alias)


def _back_to_files(apps, schema_editor):  # type: ignore[no-untyped-def]
    from engines.package import load_engine

    EngineVersion = apps.get_model("engines", "EngineVersion")
    PackageBlob = apps.get_model("engines", "PackageBlob")
    root = Path(settings.BAO_ENGINES_DIR)
    for version in EngineVersion.objects.select_related("engine").order_by("pk").iterator():
        if not _MOVED.match(version.storage_path):
            continue
        blob = PackageBlob.objects.filter(name=version.storage_path).first()
        if blob is None:
            continue
        file_name = version.storage_path.split("/", 1)[1]
        target = root / version.engine.name / f"v{version.number}-{uuid.uuid4().hex[:12]}"
        upload = target / "upload" / file_name
        upload.parent.mkdir(parents=True)
        upload.write_bytes(bytes(blob.data))
        upload.chmod(0o644 if bytes(blob.data[:2]) in (b"PK", b"\x1f\x8b") else 0o755)
        load_engine(upload, unpack_dir=target / "root", max_bytes=1 << 30)
        version.storage_path = str(upload.relative_to(root))
        version.save(update_fields=["storage_path"])


class Migration(migrations.Migration):
    dependencies = [
        ("engines", "0004_engine_consent_and_failed_variants"),
    ]

    operations = [
        migrations.CreateModel(
            name="PackageBlob",
            fields=[
                ("name", models.CharField(max_length=320, primary_key=True, serialize=False)),
                ("size_bytes", models.PositiveBigIntegerField()),
                ("data", models.BinaryField()),
                ("created_at", models.DateTimeField(auto_now_add=True)),
            ],
        ),
        migrations.RunPython(_move_into_database, _back_to_files),
    ]
