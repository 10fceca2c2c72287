"""What an engine may read on the host: a private copy of its package, the shared library.

Part of the sandbox (``engines.sandbox`` is the interface). An engine runs as a host uid leased
to it alone (``engines.sandbox.procs.UidLease``); the files it runs from are a copy of its
package that only that uid can read (``give_to_uid``), so no engine reads another's files in any
sandbox mode, and the service keeps its own files (the database, the stored uploads) where no
engine uid can reach them (``private_dir``). The rules engine and the SDK, which every engine may
import, are copied once into a directory keyed by their content (``library_dir``): two checkouts
of the project never share one unless their sources are the same.

Standard library only; no Django. Everything here runs as root (the service).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import stat
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

#: Modes of the private copy: owner root, group the engine's gid. The engine reads and runs its
#: files through the group bits; it owns none of them, so it cannot chmod or change them.
DIR_MODE = 0o750
FILE_MODE = 0o640
EXEC_MODE = 0o750


def private_dir(path: Path) -> Path:
    """Create ``path`` (and its parents) if missing and make it ``0700``: readable, listable
    and searchable by its owner alone, so no engine uid reaches anything under it. Returns it.
    Raises ``OSError``."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(path, 0o700)
    return path


def private_file(path: Path) -> None:
    """Make an existing file ``0600`` (its owner alone reads it); a missing file is fine."""
    with contextlib.suppress(FileNotFoundError):
        os.chmod(path, 0o600)


def give_to_uid(source: Path, target: Path, gid: int) -> Path:
    """Copy the directory tree ``source`` to ``target`` (which must not exist) so that only
    processes of group ``gid`` (a leased engine uid, which is also its gid) and root can read it.

    Owner root, group ``gid``; directories ``0750``, files ``0640``, or ``0750`` where the
    source file has any execute bit; symbolic links are copied as links (a package's links stay
    inside it: ``engines.package`` checks that). ``target``'s parent must exist. Returns
    ``target``. Raises ``OSError`` (the partial copy is removed).

    The copy, not an ownership change of the stored files, because the same engine version may
    run in several games at once, each under its own uid. A per-worker cache of packages can
    call this with its cached directory as ``source``.
    """
    if os.path.lexists(target):  # never ours to remove on failure
        raise FileExistsError(f"{target} exists")
    try:
        shutil.copytree(source, target, symlinks=True)
        _restrict(target, gid)
        for dirpath, dirnames, filenames in os.walk(target):
            for name in (*dirnames, *filenames):
                _restrict(Path(dirpath) / name, gid)
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise
    return target


def _restrict(path: Path, gid: int) -> None:
    st = os.lstat(path)
    os.lchown(path, 0, gid)
    if stat.S_ISLNK(st.st_mode):
        return
    if stat.S_ISDIR(st.st_mode):
        os.chmod(path, DIR_MODE)
    else:
        os.chmod(path, EXEC_MODE if st.st_mode & 0o111 else FILE_MODE)


_library_lock = threading.Lock()
_library_cache: dict[tuple[Path, Path], Path] = {}


def library_dir(
    repo_root: Path, files: Sequence[tuple[str, str]], state_dir: Path, python: str
) -> Path:
    """A world-readable directory under ``state_dir`` holding copies of ``files``
    (``(path relative to repo_root, path inside the library)`` pairs, files or directories,
    ``__pycache__`` left out), compiled to bytecode by ``python`` (the engines' interpreter) so
    that engines importing it need not compile it at every start. Its name is
    ``lib-<hash of the contents>``: checkouts with other sources get another directory, and a
    changed source after a restart a new one. Built once per process, in a temporary directory
    renamed into place (a concurrent builder with the same sources is harmless). Raises
    ``OSError``.
    """
    key = (repo_root, state_dir)
    with _library_lock:
        known = _library_cache.get(key)
        if known is not None and known.is_dir():
            return known
        sources = _library_sources(repo_root, files)
        digest = hashlib.sha256()
        for inside, src in sources:
            digest.update(inside.encode() + b"\0" + src.read_bytes() + b"\0")
        lib = state_dir / f"lib-{digest.hexdigest()[:20]}"
        if not lib.is_dir():
            build = Path(tempfile.mkdtemp(prefix="lib-building-", dir=state_dir))
            try:
                for inside, src in sources:
                    dst = build / inside
                    dst.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(src, dst)
                # Failure only costs speed (engines compile on import): not an error.
                subprocess.run(
                    [python, "-m", "compileall", "-q", str(build)],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    timeout=60,
                    check=False,
                    env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
                )
                for dirpath, _dirs, filenames in os.walk(build):
                    os.chmod(dirpath, 0o755)
                    for name in filenames:
                        os.chmod(Path(dirpath) / name, 0o644)
                try:
                    os.rename(build, lib)
                except OSError:  # another referee built the same library first
                    if not lib.is_dir():
                        raise
            finally:
                shutil.rmtree(build, ignore_errors=True)
        _library_cache[key] = lib
        return lib


def _library_sources(repo_root: Path, files: Sequence[tuple[str, str]]) -> list[tuple[str, Path]]:
    """(path inside the library, source file) for every file of ``files``, sorted."""
    found: list[tuple[str, Path]] = []
    for host_rel, inside in files:
        src = repo_root / host_rel
        if src.is_file():
            found.append((inside, src))
        elif src.is_dir():
            for path in src.rglob("*"):
                if path.is_file() and "__pycache__" not in path.parts:
                    found.append((f"{inside}/{path.relative_to(src).as_posix()}", path))
    return sorted(found)
