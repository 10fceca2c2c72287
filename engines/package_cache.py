"""A host-local cache of engine packages, fetched by content hash from wherever uploads are stored.

Uploads live in shared storage (the database, or S3-compatible object storage: see
``engines.storage``); a worker never reads another host's disk. Before it runs an engine it
asks this cache for the package's directory. Layout under the cache root (``<BAO_VAR_DIR>/
engine-cache`` on each host)::

    <sha256>/<file name>/upload/<file name>   the upload, exactly as stored (hash checked)
    <sha256>/<file name>/root/                what the engine runs from: the unpacked archive,
                                              or a copy of the single executable, with the
                                              names it had in the upload
    <sha256>/<file name>/.pin                 flock'ed shared while an engine may run from it
    <sha256>/<file name>/.size                bytes the entry holds (upload + root)
    .lock                                     flock'ed exclusive while an entry is added or
                                              entries are evicted
    .tmp/<random>/                            an entry being fetched (removed either way)

A fetch streams the stored bytes into ``.tmp`` while hashing and counting them, refuses a hash
other than the one the database recorded (``FetchError``: corrupt or swapped storage is an
infrastructure fault, never run) or more bytes than the upload cap, unpacks it with
``engines.package.load_engine`` (the same safe unpacking as at upload time) and renames the
whole directory into place, so an entry is either complete or absent.

Size cap and eviction: after each fetch, entries are removed least recently used first (the
modification time of ``.pin``, touched at every use) until the cache holds at most
``max_bytes``; an entry pinned by a running match (``pinned``) is never removed, so the cap
may be passed while they run. Every process on the host (worker pool children) shares one
cache; the flocks make that safe.

File modes: the cache root is ``0700`` (``engines.sandbox.files.private_dir``), the service's
alone: no engine uid reads a cached package. The sandbox runs each engine from a private copy
of an entry's ``root`` that only the engine's uid can read (``engines.sandbox.files.give_to_uid``).

Standard library only; no Django (``engines.storage`` binds it to the settings).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import shutil
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from engines.package import (
    MANIFEST_NAME,
    EnginePackage,
    EnginePackageError,
    load_engine,
)
from engines.sandbox.files import private_dir

_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_FILE_NAME = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9._-]{0,254}$")
_CHUNK = 1 << 16
_ZIP_OR_GZIP = (b"PK\x03\x04", b"PK\x05\x06", b"\x1f\x8b")


class FetchError(RuntimeError):
    """A package could not be fetched from the shared storage, or what came back is not what
    the database recorded (hash or size): an infrastructure fault (the match is retried, the
    validation deferred), never the engine's."""


@dataclass(frozen=True)
class CacheEntry:
    """A cached package: ``directory`` (the entry), ``root`` (what the engine runs from) and
    ``upload`` (the stored file)."""

    directory: Path
    file_name: str

    @property
    def root(self) -> Path:
        return self.directory / "root"

    @property
    def upload(self) -> Path:
        return self.directory / "upload" / self.file_name

    def package(self, *, max_bytes: int) -> EnginePackage:
        """The runnable package of this entry (the manifest read again, nothing unpacked).
        Raises ``EnginePackageError``."""
        with open(self.upload, "rb") as handle:
            head = handle.read(4)
        if not head.startswith(_ZIP_OR_GZIP):
            # A single executable: the root holds it alone, under its own name.
            return EnginePackage(
                name=self.file_name, root=self.root.resolve(), argv=(f"./{self.file_name}",)
            )
        root = self.root
        entries = list(root.iterdir())
        if not (root / MANIFEST_NAME).is_file() and len(entries) == 1 and entries[0].is_dir():
            root = entries[0]  # the archive's single top-level directory holds the manifest
        return load_engine(root, max_bytes=max_bytes)


#: Opens the stored bytes of a package for reading; raises ``FileNotFoundError`` if the storage
#: has no such package, any other exception for a storage fault.
Opener = Callable[[], IO[bytes]]


class PackageCache:
    """The cache at ``root`` (created if missing), holding at most ``max_bytes`` of entries
    that no match pins. ``unpacked_max_bytes`` caps what a package unpacks to (the limit of
    ``engines.storage``)."""

    def __init__(self, root: Path, *, max_bytes: int, unpacked_max_bytes: int) -> None:
        if max_bytes <= 0:
            raise ValueError(f"max_bytes must be positive, not {max_bytes}")
        self.root = Path(root)
        self.max_bytes = max_bytes
        self.unpacked_max_bytes = unpacked_max_bytes

    # ------------------------------------------------------------------ use

    @contextlib.contextmanager
    def pinned(
        self, sha256: str, file_name: str, size_bytes: int, opener: Opener
    ) -> Iterator[EnginePackage]:
        """The package with content ``sha256`` (``size_bytes`` long) stored as ``file_name``,
        fetched through ``opener`` unless cached, pinned (never evicted) until the block ends.

        Raises ``FetchError`` (storage fault, hash or size mismatch) and ``EnginePackageError``
        (``not_found`` when the storage has no such package; a package that does not load).
        """
        entry, pin = self._pin(sha256, file_name, size_bytes, opener)
        try:
            yield entry.package(max_bytes=self.unpacked_max_bytes)
        finally:
            os.close(pin)

    def get(self, sha256: str, file_name: str, size_bytes: int, opener: Opener) -> EnginePackage:
        """Like ``pinned`` without the pin: for a quick look (the entry may be evicted once
        other packages are fetched)."""
        with self.pinned(sha256, file_name, size_bytes, opener) as package:
            return package

    def _pin(
        self, sha256: str, file_name: str, size_bytes: int, opener: Opener
    ) -> tuple[CacheEntry, int]:
        if not _HEX64.match(sha256):
            raise ValueError(f"not a sha256 hex digest: {sha256!r}")
        if not _FILE_NAME.match(file_name):
            raise ValueError(f"not a stored file name: {file_name!r}")
        entry = CacheEntry(self.root / sha256 / file_name, file_name)
        for _ in range(3):
            if not entry.root.is_dir():
                self._fetch(entry, sha256, size_bytes, opener)
            pin = _try_pin(entry)
            if pin is not None:
                return entry, pin
            # Evicted between the check and the pin: fetch again.
        raise FetchError(f"package {sha256} keeps being evicted from {self.root}")

    # ------------------------------------------------------------------ fetching

    def _fetch(self, entry: CacheEntry, sha256: str, size_bytes: int, opener: Opener) -> None:
        with self._locked():
            if entry.root.is_dir():  # another process fetched it while we waited
                return
            tmp = self.root / ".tmp" / uuid.uuid4().hex
            (tmp / "upload").mkdir(parents=True)
            try:
                size = _download(tmp / "upload" / entry.file_name, sha256, size_bytes, opener)
                head = (tmp / "upload" / entry.file_name).read_bytes()[:4]
                if not head.startswith(_ZIP_OR_GZIP):
                    (tmp / "upload" / entry.file_name).chmod(0o755)
                load_engine(
                    tmp / "upload" / entry.file_name,
                    unpack_dir=tmp / "root",
                    max_bytes=self.unpacked_max_bytes,
                )
                size += _tree_bytes(tmp / "root")
                (tmp / ".size").write_text(str(size))
                (tmp / ".pin").touch()
                entry.directory.parent.mkdir(parents=True, exist_ok=True)
                os.rename(tmp, entry.directory)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
            self._evict(keep=entry.directory)

    # ------------------------------------------------------------------ eviction

    def entries(self) -> list[tuple[float, int, Path]]:
        """(last use, bytes, directory) of every complete entry, least recently used first."""
        found = []
        if not self.root.is_dir():
            return []
        for by_hash in self.root.iterdir():
            if not _HEX64.match(by_hash.name):
                continue
            for directory in by_hash.iterdir():
                try:
                    used = (directory / ".pin").stat().st_mtime
                    size = int((directory / ".size").read_text())
                except (OSError, ValueError):
                    continue
                found.append((used, size, directory))
        return sorted(found)

    def size_bytes(self) -> int:
        """Bytes held by the complete entries."""
        return sum(size for _, size, _ in self.entries())

    def _evict(self, keep: Path) -> None:
        """Remove unpinned entries, least recently used first, until at most ``max_bytes``
        are held (``keep``, the entry just fetched, stays). Called under the cache lock."""
        entries = self.entries()
        total = sum(size for _, size, _ in entries)
        for _, size, directory in entries:
            if total <= self.max_bytes:
                break
            if directory == keep:
                continue
            if _remove_unpinned(directory, self.root / ".tmp"):
                total -= size

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        private_dir(self.root)
        fd = os.open(self.root / ".lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)


def _download(target: Path, sha256: str, size_bytes: int, opener: Opener) -> int:
    """Stream the stored package into ``target``; its size if it is exactly ``size_bytes``
    bytes with content hash ``sha256``, else ``FetchError`` (the storage holds something else:
    never run it). A storage without the package: ``EnginePackageError("not_found")``."""
    digest = hashlib.sha256()
    size = 0
    try:
        source = opener()
    except FileNotFoundError:
        raise EnginePackageError(
            "not_found", f"the stored engine {sha256} is missing from the storage"
        ) from None
    except Exception as exc:
        raise FetchError(f"cannot open stored package {sha256}: {exc}") from exc
    try:
        with source, open(target, "wb") as out:
            while chunk := source.read(_CHUNK):
                size += len(chunk)
                if size > size_bytes:
                    raise FetchError(f"stored package {sha256} is over its {size_bytes} bytes")
                digest.update(chunk)
                out.write(chunk)
    except FetchError:
        raise
    except Exception as exc:
        raise FetchError(f"cannot read stored package {sha256}: {exc}") from exc
    if size != size_bytes or digest.hexdigest() != sha256:
        raise FetchError(
            f"stored package {sha256} ({size_bytes} bytes) came back as {size} bytes with "
            f"the content hash {digest.hexdigest()}: refused"
        )
    return size


def _try_pin(entry: CacheEntry) -> int | None:
    """A shared flock on the entry's ``.pin`` (fd returned; closing it unpins), its use time
    touched; None if the entry is gone (evicted)."""
    try:
        fd = os.open(entry.directory / ".pin", os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    fcntl.flock(fd, fcntl.LOCK_SH)
    # The evictor renames an entry away only while holding LOCK_EX: once we hold LOCK_SH and
    # the entry is still in place, it stays until we close the fd.
    if not entry.root.is_dir():
        os.close(fd)
        return None
    now = time.time()
    os.utime(fd, (now, now))
    return fd


def _remove_unpinned(directory: Path, trash: Path) -> bool:
    """Remove ``directory`` unless a match holds its pin. True if removed."""
    try:
        fd = os.open(directory / ".pin", os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        trash.mkdir(parents=True, exist_ok=True)
        doomed = trash / uuid.uuid4().hex
        os.rename(directory, doomed)
    finally:
        os.close(fd)
    shutil.rmtree(doomed, ignore_errors=True)
    with contextlib.suppress(OSError):
        directory.parent.rmdir()  # the <sha256> directory, once its last entry is gone
    return True


def _tree_bytes(path: Path) -> int:
    total = 0
    for dirpath, _dirnames, filenames in os.walk(path):
        for name in filenames:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(dirpath, name)).st_size
    return total
