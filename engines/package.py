"""Engine packages: how an uploaded engine becomes an argv list run from a root directory.

An engine is given, as it will be uploaded, as one of:

* an executable file: a script whose first line is ``#!`` (``#!/usr/bin/env python3``) or an ELF
  binary. It is copied alone into a fresh directory (so the sandbox mounts nothing else next to it);
  ``name`` is the file name, ``argv`` is ``("./<file name>",)``;
* a directory holding the manifest ``bao-engine.json``, used in place;
* a ``.zip`` or ``.tar.gz`` / ``.tgz`` archive holding the manifest, at its top level or inside
  its single top-level directory. Archives are recognised by their first bytes, not their
  suffix (stored uploads have no suffix), and unpacked safely.

The manifest (UTF-8 JSON object, at most 64 KiB)::

    {"name": "myengine", "command": ["python3", "main.py"], "author": "optional"}

``command`` is an argv list run with the engine's root as working directory: its first word is
either a file of the package (``"main"`` or ``"./bin/main"``; it must exist and be an executable
file, not a directory: a bare name that is any entry of the package, ``"."`` included, counts as
one) or a program name looked up on the sandbox ``PATH`` (``/usr/bin:/bin``, e.g. ``"python3"``).
Absolute paths and ``..`` are refused. Unknown manifest keys are ignored (forward compatible).

Safe unpacking refuses: absolute member names, ``..`` components, backslashes or NUL in names,
duplicate members, hard links, devices and fifos, symlinks whose target is absolute or resolves
outside the root, more than ``MAX_MEMBERS`` members, more than ``max_bytes`` of content (counted
while writing, so a lying header or a compression bomb stops at the cap; an archive is also
refused before anything is unpacked when a zip's central directory, or a first pass over a
tar.gz's headers, counts more members or states more bytes). A manifest over
``MAX_MANIFEST_BYTES`` or nested deeper than ``MAX_MANIFEST_DEPTH`` is ``bad_manifest``.
Unpacked files are ``0644`` (``0755`` if any execute bit was set), directories ``0755``: the
engine runs as an unprivileged uid that must be able to read them, and never write them.

Every refusal is an ``EnginePackageError`` whose ``code`` is one of ``ERROR_CODES``.
Standard library only (no Django): the referee and the command line use it directly.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import stat
import struct
import tarfile
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

MANIFEST_NAME = "bao-engine.json"
#: Most members (files, directories, links) an archive or directory package may hold.
MAX_MEMBERS = 10_000
#: Largest manifest accepted, in bytes.
MAX_MANIFEST_BYTES = 64 * 1024
#: Deepest nesting of arrays and objects a manifest may have (the fields it needs use 2).
MAX_MANIFEST_DEPTH = 32
MAX_NAME_CHARS = 64
MAX_COMMAND_WORDS = 64
MAX_WORD_CHARS = 4096

ERROR_CODES = (
    "not_found",
    "not_executable",
    "bad_manifest",
    "unsafe_archive",
    "too_large",
    "bad_archive",
)

_LINKED_MANIFEST = f"{MANIFEST_NAME} is a symbolic link: the manifest must be a regular file"
_CHUNK = 1 << 16
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")  # a local file header, or an empty archive
_GZIP_MAGIC = b"\x1f\x8b"


class EnginePackageError(ValueError):
    """An engine package that cannot be used. ``code`` is stable (one of ``ERROR_CODES``);
    ``details`` names the limit a ``too_large`` package broke (``max_bytes`` or
    ``max_files``), else it is empty."""

    def __init__(self, code: str, message: str, details: dict[str, int] | None = None) -> None:
        assert code in ERROR_CODES, code
        super().__init__(message)
        self.code = code
        self.details: dict[str, int] = details or {}

    def __str__(self) -> str:
        return f"{self.code}: {self.args[0]}"


@dataclass(frozen=True)
class EnginePackage:
    """A loaded engine: run ``argv`` with ``root`` as working directory (inside the sandbox).

    ``root`` is an absolute directory, mounted read-only in the sandbox; ``argv`` is never run
    through a shell. ``author`` is the manifest's optional ``author`` ("" if none).
    """

    name: str
    root: Path
    argv: tuple[str, ...]
    author: str = ""


def load_engine(
    path: str | Path, *, unpack_dir: Path | None = None, max_bytes: int = 64 * 2**20
) -> EnginePackage:
    """Load an engine from an executable file, a directory or a ``.zip`` / ``.tar.gz`` archive.

    ``unpack_dir`` receives the unpacked archive or the copied executable; it must not exist or
    be empty (None: a fresh temporary directory, which the caller removes when done).
    ``max_bytes`` caps the upload and the unpacked content (bytes).

    Raises ``EnginePackageError`` with ``code``: ``not_found`` (no such path), ``not_executable``
    (a plain file without execute permission or without ``#!``/ELF header, or a manifest command
    naming a package entry that is not an executable file, a directory included),
    ``bad_manifest`` (missing, not JSON, wrong fields), ``unsafe_archive`` (escaping paths or
    links, special files), ``too_large`` (bytes or members over the caps), ``bad_archive``
    (corrupt archive). Raises ``ValueError`` if ``unpack_dir``
    is a non-empty directory (a caller bug, not a package fault).
    """
    src = Path(path)
    try:
        st = src.stat()
    except (FileNotFoundError, NotADirectoryError):
        raise EnginePackageError("not_found", f"no engine at {src}") from None
    except OSError as exc:
        raise EnginePackageError("not_found", f"cannot read {src}: {exc.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        root = src.resolve()
        _check_tree(root, max_bytes)
        return _from_manifest(root)
    if not stat.S_ISREG(st.st_mode):
        raise EnginePackageError("not_executable", f"{src} is neither a file nor a directory")
    if st.st_size > max_bytes:
        raise EnginePackageError(
            "too_large", f"{src} is {st.st_size} bytes, over {max_bytes}", {"max_bytes": max_bytes}
        )
    with open(src, "rb") as fh:
        head = fh.read(4)
    if head.startswith(_ZIP_MAGIC) or head.startswith(_GZIP_MAGIC):
        dest, created = _prepare_dir(unpack_dir)
        try:
            if head.startswith(_GZIP_MAGIC):
                _unpack_tar(src, dest, max_bytes)
            else:
                _unpack_zip(src, dest, max_bytes)
            return _from_manifest(_package_root(dest))
        except BaseException:
            _discard(dest, created)
            raise
    return _from_executable(src, st, head, unpack_dir)


# --------------------------------------------------------------------------- executables


def _from_executable(
    src: Path, st: os.stat_result, head: bytes, unpack_dir: Path | None
) -> EnginePackage:
    if not st.st_mode & 0o111:
        raise EnginePackageError("not_executable", f"{src.name} has no execute permission")
    if not (head.startswith(b"#!") or head == b"\x7fELF"):
        raise EnginePackageError(
            "not_executable", f"{src.name} is neither a #! script nor an ELF binary"
        )
    name = _check_name(src.name, "file name")
    dest, created = _prepare_dir(unpack_dir)
    try:
        target = dest / src.name
        shutil.copyfile(src, target)
        os.chmod(target, 0o755)
    except BaseException:
        _discard(dest, created)
        raise
    return EnginePackage(name=name, root=dest, argv=(f"./{src.name}",))


# --------------------------------------------------------------------------- manifest


def _package_root(dest: Path) -> Path:
    """The directory holding the manifest: ``dest`` or its single top-level directory."""
    entries = list(dest.iterdir())
    candidates = [dest]
    if len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink():
        candidates.append(entries[0])
    for root in candidates:
        # A link is refused by name (it could point anywhere), not reported as missing.
        if (root / MANIFEST_NAME).is_symlink():
            raise EnginePackageError("bad_manifest", _LINKED_MANIFEST)
        if (root / MANIFEST_NAME).is_file():
            return root
    raise EnginePackageError("bad_manifest", f"the archive holds no {MANIFEST_NAME}")


def _from_manifest(root: Path) -> EnginePackage:
    mpath = root / MANIFEST_NAME
    if mpath.is_symlink():
        raise EnginePackageError("bad_manifest", _LINKED_MANIFEST)
    if not mpath.is_file():
        raise EnginePackageError("bad_manifest", f"{root.name or root} holds no {MANIFEST_NAME}")
    raw = mpath.read_bytes()[: MAX_MANIFEST_BYTES + 1]
    if len(raw) > MAX_MANIFEST_BYTES:
        raise EnginePackageError(
            "bad_manifest", f"{MANIFEST_NAME} is over {MAX_MANIFEST_BYTES} bytes"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise EnginePackageError("bad_manifest", f"{MANIFEST_NAME} is not UTF-8") from None
    depth = _nesting_depth(text)
    if depth > MAX_MANIFEST_DEPTH:
        raise EnginePackageError(
            "bad_manifest",
            f"{MANIFEST_NAME} nests arrays and objects {depth} deep, over {MAX_MANIFEST_DEPTH}",
        )
    try:
        data = json.loads(text)
    except RecursionError:  # a nesting the scan above missed: never the parser's crash
        raise EnginePackageError("bad_manifest", f"{MANIFEST_NAME} nests too deep") from None
    except json.JSONDecodeError as exc:
        raise EnginePackageError(
            "bad_manifest",
            f"{MANIFEST_NAME} is not JSON: {exc.msg} (line {exc.lineno})",
        ) from None
    if not isinstance(data, dict):
        raise EnginePackageError("bad_manifest", f"{MANIFEST_NAME} must be a JSON object")
    name = data.get("name")
    if not isinstance(name, str):
        raise EnginePackageError("bad_manifest", '"name" must be a string')
    name = _check_name(name, '"name"')
    author = data.get("author", "")
    if not isinstance(author, str) or len(author) > 128 or not author.isprintable():
        raise EnginePackageError(
            "bad_manifest", '"author" must be a printable string (<= 128 chars)'
        )
    argv = _check_command(root, data.get("command"))
    return EnginePackage(name=name, root=root, argv=argv, author=author)


#: A JSON string (what the nesting scan skips: brackets inside strings do not nest).
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def _nesting_depth(text: str) -> int:
    """How deep the arrays and objects of the JSON ``text`` nest, at most (0 for a scalar),
    counted before parsing: ``json.loads`` raises ``RecursionError`` on a deep enough nesting
    (a 64 KiB manifest of ``[`` did), which is no answer to give an upload. Not a validator:
    unbalanced brackets are left to the parser."""
    depth = deepest = 0
    for ch in _NOT_BRACKET.sub("", _JSON_STRING.sub("", text)):
        if ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def _check_name(name: str, what: str) -> str:
    name = name.strip()
    if not name or len(name) > MAX_NAME_CHARS or not name.isprintable():
        raise EnginePackageError(
            "bad_manifest", f"{what} must be 1..{MAX_NAME_CHARS} printable characters"
        )
    return name


def _check_command(root: Path, command: object) -> tuple[str, ...]:
    if not isinstance(command, list) or not command or len(command) > MAX_COMMAND_WORDS:
        raise EnginePackageError(
            "bad_manifest",
            f'"command" must be a list of 1..{MAX_COMMAND_WORDS} strings',
        )
    for i, word in enumerate(command):
        if not isinstance(word, str) or not word:
            raise EnginePackageError("bad_manifest", '"command" words must be non-empty strings')
        if len(word) > MAX_WORD_CHARS:
            raise EnginePackageError(
                "bad_manifest",
                f'"command"[{i}] has {len(word)} characters: a word may have at most '
                f"{MAX_WORD_CHARS}",
            )
        if "\0" in word:
            raise EnginePackageError("bad_manifest", f'"command"[{i}] holds a NUL character')
    first = command[0]
    parts = PurePosixPath(first).parts
    if first.startswith("/") or ".." in parts:
        raise EnginePackageError(
            "bad_manifest",
            f'"command"[0] {first!r} must be relative to the engine root',
        )
    candidate = root / first
    # Any entry of the package by that name (a directory too: "sub", "."), or any word with a
    # "/", names a package file; a bare name that is no entry is looked up on the sandbox PATH.
    if "/" in first or not parts or candidate.exists() or candidate.is_symlink():
        # A file of the package: it must be there, stay inside, and be an executable file.
        if not candidate.exists():
            raise EnginePackageError(
                "bad_manifest", f'"command"[0] {first!r} is not in the package'
            )
        real = candidate.resolve()
        if not real.is_relative_to(root.resolve()):
            raise EnginePackageError(
                "unsafe_archive", f'"command"[0] {first!r} points outside the package'
            )
        if real.is_dir():
            raise EnginePackageError(
                "not_executable",
                f'"command"[0] {first!r} is a directory: name the program file inside it',
            )
        if not real.is_file() or not real.stat().st_mode & 0o111:
            raise EnginePackageError("not_executable", f'"command"[0] {first!r} is not executable')
        if "/" not in first:
            first = f"./{first}"  # execvp would search PATH for a bare name, not the root
    return (first, *command[1:])


# --------------------------------------------------------------------------- directories


def _check_tree(root: Path, max_bytes: int) -> None:
    """Caps and link safety for a directory package used in place."""
    total = members = 0
    for dirpath, dirnames, filenames in os.walk(root):
        for entry in (*dirnames, *filenames):
            members += 1
            if members > MAX_MEMBERS:
                raise EnginePackageError(
                    "too_large", f"more than {MAX_MEMBERS} files", {"max_files": MAX_MEMBERS}
                )
            p = Path(dirpath) / entry
            st = p.lstat()
            if stat.S_ISLNK(st.st_mode):
                problem = _link_problem(p, root)
                if problem:
                    raise EnginePackageError(
                        "unsafe_archive", f"link {p.relative_to(root)} {problem}"
                    )
            elif stat.S_ISREG(st.st_mode):
                total += st.st_size
                if total > max_bytes:
                    raise EnginePackageError(
                        "too_large",
                        f"more than {max_bytes} bytes of files",
                        {"max_bytes": max_bytes},
                    )


def _link_problem(path: Path, root: Path) -> str | None:
    """None if ``path`` resolves (following every link) to ``root`` or below it; else what is
    wrong, for the message: it is part of a link loop, or it points outside the package."""
    try:
        # strict: a loop raises (RuntimeError before Python 3.13, OSError ELOOP after) instead
        # of resolving to some path that merely looks inside.
        real = path.resolve(strict=True)
    except FileNotFoundError:
        real = path.resolve()  # a dangling link: judged by where it points
    except RuntimeError:
        return "is part of a symbolic link loop"
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "is part of a symbolic link loop"
        return f"cannot be resolved ({exc.strerror})"
    return None if real.is_relative_to(root.resolve()) else "points outside the package"


# --------------------------------------------------------------------------- archives


def _prepare_dir(unpack_dir: Path | None) -> tuple[Path, bool]:
    """An empty directory readable by the engine uid; True if we created it."""
    if unpack_dir is None:
        dest = Path(tempfile.mkdtemp(prefix="bao-engine-"))
        created = True
    else:
        dest = Path(unpack_dir)
        created = not dest.exists()
        dest.mkdir(parents=True, exist_ok=True)
        if not created and any(dest.iterdir()):
            raise ValueError(f"unpack_dir {dest} is not empty")
    os.chmod(dest, 0o755)
    return dest.resolve(), created


def _discard(dest: Path, created: bool) -> None:
    if created:
        shutil.rmtree(dest, ignore_errors=True)
        return
    for child in dest.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink(missing_ok=True)


class _Writer:
    """Creates members under ``dest`` with the checks every archive format shares."""

    def __init__(self, dest: Path, max_bytes: int) -> None:
        self.dest = dest
        self.max_bytes = max_bytes
        self.total = 0
        self.members = 0
        self.seen: set[str] = set()
        self.links: list[tuple[Path, str]] = []

    def member(self, name: str) -> Path:
        self.members += 1
        if self.members > MAX_MEMBERS:
            raise EnginePackageError(
                "too_large", f"more than {MAX_MEMBERS} archive members", {"max_files": MAX_MEMBERS}
            )
        if "\0" in name or "\\" in name:
            raise EnginePackageError("unsafe_archive", f"member name {name!r} holds NUL or '\\'")
        if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
            raise EnginePackageError("unsafe_archive", f"member {name!r} has an absolute path")
        parts = [p for p in PurePosixPath(name).parts if p not in ("", ".")]
        if ".." in parts:
            raise EnginePackageError("unsafe_archive", f"member {name!r} climbs out with '..'")
        if not parts:
            return self.dest
        rel = "/".join(parts)
        if rel in self.seen:
            raise EnginePackageError("unsafe_archive", f"member {rel!r} appears twice")
        self.seen.add(rel)
        return self.dest.joinpath(*parts)

    def directory(self, target: Path) -> None:
        try:
            target.mkdir(mode=0o755, parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            raise self._clash(target) from None

    def file(self, target: Path, data: IO[bytes], executable: bool) -> None:
        try:
            target.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
            # O_EXCL|O_NOFOLLOW: links are created only after all files, so nothing may pre-exist.
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except (FileExistsError, NotADirectoryError, IsADirectoryError):
            raise self._clash(target) from None
        with os.fdopen(fd, "wb") as out:
            for chunk in iter(lambda: data.read(_CHUNK), b""):
                self.total += len(chunk)
                if self.total > self.max_bytes:
                    raise EnginePackageError(
                        "too_large",
                        f"more than {self.max_bytes} bytes once unpacked",
                        {"max_bytes": self.max_bytes},
                    )
                out.write(chunk)
        os.chmod(target, 0o755 if executable else 0o644)

    def link(self, target: Path, link_to: str) -> None:
        if not link_to or link_to.startswith("/") or "\0" in link_to:
            raise EnginePackageError(
                "unsafe_archive",
                f"link {target.relative_to(self.dest)} -> {link_to!r} is absolute",
            )
        self.links.append((target, link_to))

    def _clash(self, target: Path) -> EnginePackageError:
        rel = target.relative_to(self.dest)
        return EnginePackageError("unsafe_archive", f"member {rel} clashes with another member")

    def finish(self) -> None:
        for target, link_to in self.links:
            try:
                target.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
                os.symlink(link_to, target)
            except (FileExistsError, NotADirectoryError):
                raise self._clash(target) from None
        # Checked after all links exist: a chain of inside-looking links can still escape
        # ("a" -> "." then "b" -> "a/.."), which only the real resolution shows.
        for target, link_to in self.links:
            problem = _link_problem(target, self.dest)
            if problem:
                raise EnginePackageError(
                    "unsafe_archive",
                    f"link {target.relative_to(self.dest)} -> {link_to!r} {problem}",
                )
        for dirpath, _dirs, _files in os.walk(self.dest):
            os.chmod(dirpath, 0o755)


#: The end of central directory record of a zip (APPNOTE 4.3.16) and of zip64 (4.3.14, 4.3.15).
_EOCD = b"PK\x05\x06"
_EOCD_BYTES = 22
_ZIP64_LOCATOR = b"PK\x06\x07"
_ZIP64_EOCD = b"PK\x06\x06"


def _zip_member_count(src: Path) -> int | None:
    """The number of members the zip's end of central directory record states (its zip64
    record's when it has one), read from the file's tail alone, or None if there is no such
    record (``ZipFile`` then says why the archive is corrupt). Reading it costs two small reads
    whatever the archive holds; ``ZipFile`` would first build an entry for every member."""
    with open(src, "rb") as fh:
        size = fh.seek(0, os.SEEK_END)
        tail_start = max(0, size - (_EOCD_BYTES + 0xFFFF))  # the comment is at most 64 KiB
        fh.seek(tail_start)
        tail = fh.read()
        at = tail.rfind(_EOCD)
        if at < 0 or len(tail) - at < _EOCD_BYTES:
            return None
        (count,) = struct.unpack_from("<H", tail, at + 10)
        locator = at - 20
        if locator >= 0 and tail[locator : locator + 4] == _ZIP64_LOCATOR:
            (record_at,) = struct.unpack_from("<Q", tail, locator + 8)
            if record_at < size:
                fh.seek(record_at)
                record = fh.read(56)
                if len(record) == 56 and record[:4] == _ZIP64_EOCD:
                    (count,) = struct.unpack_from("<Q", record, 32)
        return int(count)


def _check_zip_directory(src: Path, zf: zipfile.ZipFile | None, max_bytes: int) -> None:
    """Refuse a zip over the caps from its central directory, before anything is unpacked:
    ``too_large`` for more than ``MAX_MEMBERS`` members (with ``zf`` None: the count its end
    record states, before ``ZipFile`` reads the directory), or for members whose stated sizes
    add up to more than ``max_bytes``. (The sizes are checked again while writing: a header
    may understate them.) A 12 000-member zip was unpacked up to its 10 001st member first,
    7.8 s of a web worker (issue 30)."""
    count = _zip_member_count(src) if zf is None else len(zf.infolist())
    if count is not None and count > MAX_MEMBERS:
        raise EnginePackageError(
            "too_large",
            f"{count} archive members, over {MAX_MEMBERS}",
            {"max_files": MAX_MEMBERS},
        )
    if zf is not None:
        stated = sum(info.file_size for info in zf.infolist())
        if stated > max_bytes:
            raise EnginePackageError(
                "too_large",
                f"more than {max_bytes} bytes once unpacked",  # as the writer says it
                {"max_bytes": max_bytes},
            )


def _unpack_zip(src: Path, dest: Path, max_bytes: int) -> None:
    try:
        _check_zip_directory(src, None, max_bytes)
        with zipfile.ZipFile(src) as zf:
            _check_zip_directory(src, zf, max_bytes)
            w = _Writer(dest, max_bytes)
            for info in zf.infolist():
                target = w.member(info.filename)
                mode = info.external_attr >> 16
                if stat.S_ISLNK(mode):
                    if info.file_size > 4096:
                        raise EnginePackageError(
                            "unsafe_archive", f"link {info.filename!r} is too long"
                        )
                    w.link(target, zf.read(info).decode("utf-8", "replace"))
                elif info.is_dir():
                    w.directory(target)
                elif stat.S_IFMT(mode) and not stat.S_ISREG(mode):
                    # Only a stated type that is not a regular file (fifo, device, socket) is
                    # refused: zips written by Windows tools or Python's ZipFile.writestr carry
                    # permission bits (or nothing) without a file type, and mean a plain file.
                    raise EnginePackageError(
                        "unsafe_archive",
                        f"member {info.filename!r} is not a file, directory or link",
                    )
                else:
                    with zf.open(info) as data:
                        w.file(target, data, bool(mode & 0o111))
            w.finish()
    except EnginePackageError:
        raise
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        EOFError,
        NotImplementedError,
        ValueError,
    ) as exc:
        raise EnginePackageError("bad_archive", f"corrupt zip archive: {exc}") from None
    except (UnicodeDecodeError, RuntimeError) as exc:  # RuntimeError: encrypted members
        raise EnginePackageError("bad_archive", f"unreadable zip archive: {exc}") from None


def _tar_members(tf: tarfile.TarFile) -> Iterator[tarfile.TarInfo]:
    # Iterate lazily: getmembers() would read a whole (possibly huge) stream before any cap.
    while True:
        info = tf.next()
        if info is None:
            return
        yield info


def _check_tar_headers(src: Path, max_bytes: int) -> None:
    """A tar.gz has no central directory: its headers are read in one pass before anything is
    unpacked, refusing ``too_large`` at the ``MAX_MEMBERS + 1``-th member or once the stated
    sizes of its files pass ``max_bytes`` (so the pass decompresses at most ``max_bytes`` of
    content: a member's data is skipped only once its size is counted)."""
    with tarfile.open(src, mode="r:gz") as tf:
        stated = 0
        for members, info in enumerate(_tar_members(tf), start=1):
            if members > MAX_MEMBERS:
                raise EnginePackageError(
                    "too_large",
                    f"more than {MAX_MEMBERS} archive members",
                    {"max_files": MAX_MEMBERS},
                )
            stated += info.size if info.isreg() else 0
            if stated > max_bytes:
                raise EnginePackageError(
                    "too_large",
                    f"more than {max_bytes} bytes once unpacked",
                    {"max_bytes": max_bytes},
                )


def _unpack_tar(src: Path, dest: Path, max_bytes: int) -> None:
    try:
        _check_tar_headers(src, max_bytes)
        with tarfile.open(src, mode="r:gz") as tf:
            w = _Writer(dest, max_bytes)
            for info in _tar_members(tf):
                target = w.member(info.name)
                if info.issym():
                    w.link(target, info.linkname)
                elif info.isdir():
                    w.directory(target)
                elif info.isreg():
                    data = tf.extractfile(info)
                    assert data is not None  # regular members always have data
                    w.file(target, data, bool(info.mode & 0o111))
                elif info.islnk():
                    raise EnginePackageError(
                        "unsafe_archive", f"hard link {info.name!r} is not allowed"
                    )
                else:
                    raise EnginePackageError(
                        "unsafe_archive",
                        f"member {info.name!r} is not a file, directory or link",
                    )
            w.finish()
    except EnginePackageError:
        raise
    except (tarfile.TarError, EOFError, OSError, ValueError) as exc:
        # OSError also covers gzip.BadGzipFile and zlib errors of a truncated stream.
        raise EnginePackageError("bad_archive", f"corrupt tar.gz archive: {exc}") from None
