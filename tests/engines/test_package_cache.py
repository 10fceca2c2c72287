"""The per-host package cache: fetched by content hash, checked, size-capped, LRU, pinned."""

from __future__ import annotations

import hashlib
import io
import os
import stat
from pathlib import Path

import pytest

from engines.package import EnginePackageError
from engines.package_cache import FetchError, PackageCache

SCRIPT = b"#!/usr/bin/env python3\nprint('hello')\n"


def _blob(n: int) -> tuple[bytes, str]:
    data = SCRIPT + b"#" * n + b"\n"
    return data, hashlib.sha256(data).hexdigest()


class Storage:
    """A dict standing in for the package storage; counts how often each package is opened."""

    def __init__(self) -> None:
        self.blobs: dict[str, bytes] = {}
        self.opened: list[str] = []

    def add(self, data: bytes) -> str:
        digest = hashlib.sha256(data).hexdigest()
        self.blobs[digest] = data
        return digest

    def opener(self, digest: str):  # type: ignore[no-untyped-def]
        def open_() -> io.BytesIO:
            self.opened.append(digest)
            if digest not in self.blobs:
                raise FileNotFoundError(digest)
            return io.BytesIO(self.blobs[digest])

        return open_


def _cache(tmp_path: Path, max_bytes: int = 1 << 20) -> PackageCache:
    return PackageCache(tmp_path / "cache", max_bytes=max_bytes, unpacked_max_bytes=1 << 20)


def test_a_package_is_fetched_once_and_runs_under_its_own_name(tmp_path: Path) -> None:
    store = Storage()
    data, digest = _blob(10)
    store.add(data)
    cache = _cache(tmp_path)
    with cache.pinned(digest, "mine.py", len(data), store.opener(digest)) as package:
        assert package.argv == ("./mine.py",)
        assert package.root == (tmp_path / "cache" / digest / "mine.py" / "root").resolve()
        script = package.root / "mine.py"
        assert script.read_bytes() == data
        assert stat.S_IMODE(script.stat().st_mode) == 0o755
    again = cache.get(digest, "mine.py", len(data), store.opener(digest))
    assert again.root == package.root
    assert store.opened == [digest]  # the second use came from the cache


def test_a_package_whose_stored_bytes_do_not_match_its_hash_is_refused(tmp_path: Path) -> None:
    store = Storage()
    data, digest = _blob(10)
    store.blobs[digest] = data.replace(b"hello", b"pwned")  # same length, other content
    cache = _cache(tmp_path)
    with pytest.raises(FetchError, match="content hash"):
        cache.get(digest, "mine.py", len(data), store.opener(digest))
    assert cache.entries() == []
    assert list((tmp_path / "cache" / ".tmp").iterdir()) == []


def test_a_package_longer_than_recorded_is_refused_while_streaming(tmp_path: Path) -> None:
    store = Storage()
    data, digest = _blob(10)
    store.blobs[digest] = data + b"x" * 100_000
    with pytest.raises(FetchError, match="over its"):
        _cache(tmp_path).get(digest, "mine.py", len(data), store.opener(digest))


def test_a_package_missing_from_the_storage_is_not_found(tmp_path: Path) -> None:
    _, digest = _blob(10)
    with pytest.raises(EnginePackageError) as caught:
        _cache(tmp_path).get(digest, "mine.py", 10, Storage().opener(digest))
    assert caught.value.code == "not_found"


def test_a_storage_fault_is_a_fetch_error(tmp_path: Path) -> None:
    _, digest = _blob(10)

    def broken() -> io.BytesIO:
        raise ConnectionError("bucket unreachable")

    with pytest.raises(FetchError, match="bucket unreachable"):
        _cache(tmp_path).get(digest, "mine.py", 10, broken)


def test_the_least_recently_used_unpinned_entries_are_evicted_past_the_cap(
    tmp_path: Path,
) -> None:
    store = Storage()
    blobs = [_blob(40_000 + i) for i in range(4)]
    for data, _ in blobs:
        store.add(data)
    # Each entry holds its upload and its copy in root: about 80 KB. Room for three.
    cache = _cache(tmp_path, max_bytes=250_000)
    (a, da), (b, db), (c, dc), (d, dd) = blobs
    cache.get(da, "e.py", len(a), store.opener(da))
    cache.get(db, "e.py", len(b), store.opener(db))
    cache.get(dc, "e.py", len(c), store.opener(dc))
    # Use a again, so b is now the least recently used.
    past = os.stat(tmp_path / "cache" / db / "e.py" / ".pin").st_mtime - 10
    os.utime(tmp_path / "cache" / db / "e.py" / ".pin", (past, past))
    cache.get(da, "e.py", len(a), store.opener(da))
    cache.get(dd, "e.py", len(d), store.opener(dd))
    held = {p.parent.name for _, _, p in cache.entries()}
    assert held == {da, dc, dd}
    assert cache.size_bytes() <= 250_000
    assert not (tmp_path / "cache" / db).exists()


def test_a_pinned_entry_is_never_evicted(tmp_path: Path) -> None:
    store = Storage()
    (a, da), (b, db) = _blob(100_000), _blob(100_001)
    store.add(a)
    store.add(b)
    cache = _cache(tmp_path, max_bytes=250_000)  # room for one entry only
    with cache.pinned(da, "e.py", len(a), store.opener(da)) as running:
        cache.get(db, "e.py", len(b), store.opener(db))  # over the cap, but a is in use
        assert (running.root / "e.py").read_bytes() == a
        assert len(cache.entries()) == 2
    # Once a is free, the next fetch evicts it.
    (c, dc) = _blob(100_002)
    store.add(c)
    cache.get(dc, "e.py", len(c), store.opener(dc))
    assert {p.parent.name for _, _, p in cache.entries()} == {dc}
