"""Where uploaded engines live, and how an upload gets there safely.

An upload is first streamed into ``<settings.BAO_ENGINES_DIR>/.incoming/<random>/`` on the web
host (hashing and counting bytes, stopping at the size cap) and checked there (unpacked by
``engines.package.load_engine``); only a valid upload is put into the **package storage**
under the name ``"<sha256>/<file name>"`` (``EngineVersion.storage_path``), and the incoming
directory is removed either way: a refused upload leaves nothing behind.

The package storage is shared by every host: the database by default
(``engines.blobstore.DatabaseStorage``), or an S3-compatible bucket through django-storages
(``settings.BAO_ENGINE_STORAGE``). A host that runs an engine fetches it by content hash into
its own cache (``engines.package_cache``, under its ``BAO_VAR_DIR``) and runs it from there
(``checkout``), so workers need only the database, the broker and (if configured) the bucket.

The incoming area is the service's alone (``engines_root`` is ``0700``), and so is each host's
cache: an engine reads only the private copy of its own package that the sandbox makes for its
uid from the cache (``engines.sandbox.files.give_to_uid``).

A single-file upload gets the executable bit here: browsers and most HTTP clients do not
transmit file modes, so the arena sets it (see the API docs of the upload), and again in each
host's cache.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import re
import shutil
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, cast

from django.conf import settings
from django.core.files import File
from django.core.files.storage import Storage, storages

from engines.blobstore import DatabaseStorage
from engines.package import EnginePackage, EnginePackageError
from engines.package_cache import PackageCache
from engines.sandbox.files import private_dir

if TYPE_CHECKING:
    from engines.models import EngineVersion

#: Magic bytes of the archive formats ``engines.package.load_engine`` unpacks.
ZIP_MAGIC = b"PK\x03\x04"
GZIP_MAGIC = b"\x1f\x8b"
ELF_MAGIC = b"\x7fELF"
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


class TooLarge(Exception):
    """The stream went past ``max_bytes`` (the partial file is already removed)."""


@dataclass(frozen=True)
class IncomingFile:
    """An upload streamed into the incoming area: ``path`` (absolute), ``sha256`` (hex),
    ``size_bytes``, ``kind`` (``"zip"``, ``"tar.gz"`` or ``"file"``)."""

    directory: Path
    path: Path
    sha256: str
    size_bytes: int
    kind: str

    @property
    def root(self) -> Path:
        """Where ``load_engine`` unpacks (or copies) the upload for checking."""
        return self.directory / "root"

    def discard(self) -> None:
        """Remove the incoming directory (idempotent)."""
        shutil.rmtree(self.directory, ignore_errors=True)


def engines_root() -> Path:
    """``settings.BAO_ENGINES_DIR`` as a ``Path``, created if missing, mode ``0700``: engines
    never run from here (the sandbox gives each a private copy, ``engines.sandbox.files``), so
    no engine uid may read any stored engine."""
    return private_dir(Path(settings.BAO_ENGINES_DIR))


def safe_filename(original: str, kind: str) -> str:
    """A file name safe to store: the last path part of ``original``, restricted to
    ``[A-Za-z0-9._-]``, never hidden, with the suffix ``load_engine`` needs for archives
    (``.zip``, ``.tar.gz``) whatever the client called it."""
    base = _SAFE_NAME.sub("_", Path(original.replace("\\", "/")).name).lstrip(".") or "engine"
    base = base[:100]
    if kind == "zip" and not base.lower().endswith(".zip"):
        base += ".zip"
    elif kind == "tar.gz" and not base.lower().endswith((".tar.gz", ".tgz")):
        base += ".tar.gz"
    return base


def receive(chunks: Iterable[bytes], original_name: str, *, max_bytes: int) -> IncomingFile:
    """Stream ``chunks`` into a fresh directory under ``<engines dir>/.incoming``.

    The kind is decided by the first bytes (zip, gzip), not by the client's file name.
    Single files are made executable (0755). Raises ``TooLarge`` past ``max_bytes`` bytes.
    """
    directory = engines_root() / ".incoming" / uuid.uuid4().hex
    directory.mkdir(parents=True)
    digest = hashlib.sha256()
    size = 0
    head = b""
    (directory / "upload").mkdir()
    tmp = directory / "upload" / "upload.part"
    try:
        with open(tmp, "wb") as out:
            for chunk in chunks:
                size += len(chunk)
                if size > max_bytes:
                    raise TooLarge(f"more than {max_bytes} bytes")
                if len(head) < 8:
                    head += chunk[: 8 - len(head)]
                digest.update(chunk)
                out.write(chunk)
        kind = (
            "zip"
            if head.startswith(ZIP_MAGIC)
            else "tar.gz"
            if head.startswith(GZIP_MAGIC)
            else "file"
        )
        path = directory / "upload" / safe_filename(original_name, kind)
        tmp.rename(path)
        if kind == "file":
            path.chmod(0o755)
        else:
            path.chmod(0o644)
    except BaseException:
        shutil.rmtree(directory, ignore_errors=True)
        raise
    return IncomingFile(
        directory=directory,
        path=path,
        sha256=digest.hexdigest(),
        size_bytes=size,
        kind=kind,
    )


def looks_runnable(path: Path) -> bool:
    """Whether a single-file upload can be executed directly: a ``#!`` script or an ELF binary."""
    with open(path, "rb") as handle:
        head = handle.read(4)
    return head.startswith(b"#!") or head == ELF_MAGIC


def storage_name(incoming: IncomingFile) -> str:
    """The upload's name in the package storage: ``"<sha256>/<file name>"`` (content-addressed;
    the file name is kept because a single-file engine runs as ``./<file name>``)."""
    return f"{incoming.sha256}/{incoming.path.name}"


def package_storage() -> Storage:
    """The configured package storage (``STORAGES["engine_packages"]``: the database by
    default, an S3-compatible bucket with ``BAO_ENGINE_STORAGE=s3``)."""
    return storages["engine_packages"]


def store(incoming: IncomingFile) -> str:
    """Put a checked upload into the package storage (once per content: an existing name is
    left alone); returns its storage name. With the database storage the row is part of the
    caller's transaction. Raises whatever the storage raises (``OSError``, boto errors)."""
    name = storage_name(incoming)
    target = package_storage()
    if not target.exists(name):
        with open(incoming.path, "rb") as handle:
            saved = target.save(name, File(handle, name=incoming.path.name))
        if saved != name:  # a storage that renames would break content addressing
            raise RuntimeError(f"package storage saved {name!r} as {saved!r}")
    return name


def open_stored(storage_path: str) -> IO[bytes]:
    """The stored bytes of ``storage_path`` for reading. Raises ``FileNotFoundError`` if no
    storage holds it. Packages moved into the database by the migration stay readable there
    when another storage is configured later."""
    target = package_storage()
    try:
        return cast(IO[bytes], target.open(storage_path, "rb"))
    except FileNotFoundError:
        if isinstance(target, DatabaseStorage):
            raise
    return cast(IO[bytes], DatabaseStorage().open(storage_path, "rb"))


def package_cache() -> PackageCache:
    """This host's package cache (``<settings.VAR_DIR>/engine-cache``, at most
    ``settings.BAO_ENGINE_CACHE_BYTES``)."""
    return PackageCache(
        Path(settings.VAR_DIR) / "engine-cache",
        max_bytes=int(settings.BAO_ENGINE_CACHE_BYTES),
        unpacked_max_bytes=unpacked_max_bytes(),
    )


def _cache_key(version: EngineVersion) -> tuple[str, str]:
    digest, _, file_name = version.storage_path.partition("/")
    if digest != version.sha256:
        raise EnginePackageError(
            "not_found",
            f"{version.storage_path!r} is not a stored package of sha256 "
            f"{version.sha256} (a version from before the package storage?)",
        )
    return digest, file_name


@contextlib.contextmanager
def checkout(version: EngineVersion) -> Iterator[EnginePackage]:
    """The runnable package of ``version`` from this host's cache (fetched by content hash if
    missing), kept in the cache until the block ends; named ``"<engine> v<number>"``.

    Raises ``EnginePackageError`` (``not_found``: the storage does not hold it) and
    ``FetchError`` (storage fault, content hash mismatch: an infrastructure fault).
    """
    digest, file_name = _cache_key(version)
    with package_cache().pinned(
        digest, file_name, version.size_bytes, lambda: open_stored(version.storage_path)
    ) as package:
        yield dataclasses.replace(package, name=str(version))


def load_stored(version: EngineVersion) -> EnginePackage:
    """``checkout`` without keeping the entry (see ``EngineVersion.package``)."""
    digest, file_name = _cache_key(version)
    package = package_cache().get(
        digest, file_name, version.size_bytes, lambda: open_stored(version.storage_path)
    )
    return dataclasses.replace(package, name=str(version))


def unpacked_max_bytes() -> int:
    """Cap on an engine's unpacked size (bytes): four times the upload cap, since archives
    compress; ``load_engine`` enforces it while unpacking."""
    return 4 * int(settings.BAO_ENGINE_MAX_BYTES)


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file's content."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 16), b""):
            digest.update(chunk)
    return digest.hexdigest()
