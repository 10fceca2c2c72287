"""The SQLite database file is the service's alone: mode ``0600``, from its creation on.

The database holds every account's password hash and token digests: no other uid of the host
(engine uids above all, in the fallback sandbox where engines see the host's files) may read it.
``create_private`` makes the file before SQLite does (SQLite would create it ``0644`` under the
usual umask); ``on_connection_created``, connected to Django's ``connection_created`` signal,
makes an existing file and its ``-wal``/``-shm``/``-journal`` companions ``0600`` at every new
connection, so a database made by an older release is closed at the next start or migrate.
(SQLite gives the companions the mode of the database file when it creates them.) No effect on
PostgreSQL, where the files are the server's.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

COMPANIONS = ("", "-wal", "-shm", "-journal")


def sqlite_path(name: object) -> Path | None:
    """The file of an SQLite database ``NAME``, or None for an in-memory or URI database."""
    text = str(name or "")
    if not text or text == ":memory:" or text.startswith("file:"):
        return None
    return Path(text)


def create_private(path: Path) -> None:
    """Create an empty database file ``path`` with mode ``0600`` unless one exists (SQLite
    takes an empty file as a new database); make an existing one ``0600``. Raises ``OSError``
    if the directory is missing or not writable."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600))
    except FileExistsError:
        make_private(path)


def make_private(path: Path) -> None:
    """Mode ``0600`` for the database file ``path`` and those of its companions that exist."""
    for suffix in COMPANIONS:
        with contextlib.suppress(FileNotFoundError):
            os.chmod(f"{path}{suffix}", 0o600)


def on_connection_created(sender: Any, connection: Any, **kwargs: Any) -> None:
    """``connection_created`` receiver: an SQLite connection's files become ``0600``."""
    if connection.vendor != "sqlite":
        return
    path = sqlite_path(connection.settings_dict.get("NAME"))
    if path is not None:
        make_private(path)
