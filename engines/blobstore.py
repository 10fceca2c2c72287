"""The default storage of uploaded engine packages: the database (``engines.models.PackageBlob``).

A Django ``Storage`` so that the package storage is one setting (``STORAGES["engine_packages"]``,
``settings.BAO_ENGINE_STORAGE``): this class, or django-storages' ``S3Storage`` for an
S3-compatible bucket; ``engines.storage`` talks to whichever is configured through the same
calls (``exists``, ``save``, ``open``, ``delete``). Every worker reaches the database, so no
volume is shared between hosts. Names are ``"<sha256>/<file name>"``: saving a name that exists
keeps the stored row (same name, same bytes).
"""

from __future__ import annotations

from typing import Any

from django.core.files.base import ContentFile, File
from django.core.files.storage import Storage
from django.db import IntegrityError, transaction
from django.utils.deconstruct import deconstructible


@deconstructible
class DatabaseStorage(Storage):
    """Engine packages as rows of ``PackageBlob``. Reads load the whole blob (packages are at
    most ``BAO_ENGINE_MAX_BYTES``). ``open`` of a missing name raises ``FileNotFoundError``."""

    def _open(self, name: str, mode: str = "rb") -> File[bytes]:
        from engines.models import PackageBlob

        if "w" in mode or "a" in mode or "+" in mode:
            raise ValueError("DatabaseStorage opens packages for reading only")
        data = PackageBlob.objects.filter(name=name).values_list("data", flat=True).first()
        if data is None:
            raise FileNotFoundError(f"no stored package {name!r}")
        return ContentFile(bytes(data), name=name)

    def _save(self, name: str, content: Any) -> str:
        from engines.models import PackageBlob

        content.seek(0)
        data = content.read()
        try:
            with transaction.atomic():  # savepoint: a lost race must not poison the caller's
                PackageBlob.objects.get_or_create(
                    name=name, defaults={"data": data, "size_bytes": len(data)}
                )
        except IntegrityError:
            pass  # saved by a concurrent upload of the same bytes
        return name

    def get_available_name(self, name: str, max_length: int | None = None) -> str:
        # Content-addressed: an existing name already holds these bytes.
        return name

    def exists(self, name: str) -> bool:
        from engines.models import PackageBlob

        return PackageBlob.objects.filter(name=name).exists()

    def delete(self, name: str) -> None:
        from engines.models import PackageBlob

        PackageBlob.objects.filter(name=name).delete()

    def size(self, name: str) -> int:
        from engines.models import PackageBlob

        size = PackageBlob.objects.filter(name=name).values_list("size_bytes", flat=True).first()
        if size is None:
            raise FileNotFoundError(f"no stored package {name!r}")
        return int(size)

    def url(self, name: str | None) -> str:
        raise NotImplementedError("stored engine packages are served by the download API")
