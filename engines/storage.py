"""Where uploaded engines live on disk, and how an upload gets there safely.

Layout under ``settings.BAO_ENGINES_DIR``::

    <engine name>/v<number>-<id>/upload/<file>    the upload as received (scripts: mode 0755)
    <engine name>/v<number>-<id>/root/            what the engine runs from: the unpacked
                                                  archive, or a copy of the single executable
    .incoming/<random>/                           uploads being checked (removed either way)

The whole tree is the service's alone (``engines_root`` is ``0700``): an engine reads only the
private copy of its own package that the sandbox makes for its uid.

An upload is first streamed into ``.incoming`` (hashing and counting bytes, stopping at the
size cap), checked there, and only then renamed into its final directory: a refused upload
leaves nothing behind. A single-file upload gets the executable bit here: browsers and most
HTTP clients do not transmit file modes, so the arena sets it (see the API docs of the upload).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from django.conf import settings

from engines.sandbox_files import private_dir

if TYPE_CHECKING:
    from engines.package import EnginePackage

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
    never run from here (the sandbox gives each a private copy, ``engines.sandbox_files``), so
    no engine uid may read any stored engine."""
    return private_dir(Path(settings.BAO_ENGINES_DIR))


def safe_filename(original: str, kind: str) -> str:
    """A file name safe to store: the last path part of ``original``, restricted to
    ``[A-Za-z0-9._-]``, never hidden, with the suffix ``load_engine`` needs for archives
    (``.zip``, ``.tar.gz``) whatever the client called it."""
    base = (
        _SAFE_NAME.sub("_", Path(original.replace("\\", "/")).name).lstrip(".")
        or "engine"
    )
    base = base[:100]
    if kind == "zip" and not base.lower().endswith(".zip"):
        base += ".zip"
    elif kind == "tar.gz" and not base.lower().endswith((".tar.gz", ".tgz")):
        base += ".tar.gz"
    return base


def receive(
    chunks: Iterable[bytes], original_name: str, *, max_bytes: int
) -> IncomingFile:
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


def version_dir(engine_name: str, number: int) -> Path:
    """A new, unused directory for version ``number`` of ``engine_name``.

    The random suffix keeps stale directories from an earlier database (or another database
    sharing ``BAO_ENGINES_DIR``, as tests and the demo may) from ever colliding with a new
    version; the database row records which directory is the version's."""
    return engines_root() / engine_name / f"v{number}-{uuid.uuid4().hex[:12]}"


def install(incoming: IncomingFile, engine_name: str, number: int) -> str:
    """Move the checked upload into a fresh version directory; returns the storage path
    relative to ``BAO_ENGINES_DIR`` (``"<name>/v<n>-<id>/upload/<file>"``)."""
    target = version_dir(engine_name, number)
    target.parent.mkdir(parents=True, exist_ok=True)
    final = target / "upload" / incoming.path.name
    os.rename(incoming.directory, target)
    return str(final.relative_to(engines_root()))


def uninstall(storage_path: str) -> None:
    """Remove a version directory (used when the transaction that created it fails)."""
    shutil.rmtree(version_dir_of(storage_path), ignore_errors=True)


def version_dir_of(storage_path: str) -> Path:
    """The version directory holding the upload at ``storage_path`` (``<name>/v<n>``)."""
    return (engines_root() / storage_path).parent.parent


def package_root(storage_path: str) -> Path:
    """The directory an engine version runs from (``<name>/v<n>/root``)."""
    return version_dir_of(storage_path) / "root"


def load_stored(storage_path: str) -> EnginePackage:
    """The ``EnginePackage`` of a stored version, run from its ``root`` directory.

    The root was filled by ``load_engine`` when the upload was accepted, so nothing is unpacked
    again (no temporary directory to clean up after a match). Raises ``EnginePackageError``
    (``not_found`` if the files are gone, ``bad_manifest``...).
    """
    from engines.package import (
        MANIFEST_NAME,
        EnginePackage,
        EnginePackageError,
        load_engine,
    )

    upload = engines_root() / storage_path
    root = package_root(storage_path)
    if not upload.is_file() or not root.is_dir():
        raise EnginePackageError(
            "not_found", f"the stored engine {storage_path} is missing"
        )
    with open(upload, "rb") as handle:
        head = handle.read(4)
    if head.startswith((ZIP_MAGIC, GZIP_MAGIC)):
        entries = list(root.iterdir())
        if (
            not (root / MANIFEST_NAME).is_file()
            and len(entries) == 1
            and entries[0].is_dir()
        ):
            root = entries[
                0
            ]  # the archive's single top-level directory holds the manifest
        return load_engine(root, max_bytes=unpacked_max_bytes())
    # A single executable: load_engine copied it alone into root when the upload was accepted.
    return EnginePackage(
        name=upload.name, root=root.resolve(), argv=(f"./{upload.name}",)
    )


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
