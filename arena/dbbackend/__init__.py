"""The PostgreSQL backend of the service (``arena.dbbackend.base``: Django's, with client-side
deadlines) and ``deadline``, which bounds the database waits of a block of code. Importing this
package loads no database driver."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

_local = threading.local()


def current_deadline() -> float | None:
    """Seconds this thread's database waits may last now: the innermost ``deadline`` block,
    else ``settings.DATABASE_QUERY_DEADLINE_S`` (None: unbounded)."""
    value = getattr(_local, "deadline", None)
    if value is not None:
        return float(value)
    from django.conf import settings

    default = getattr(settings, "DATABASE_QUERY_DEADLINE_S", None)
    return None if default is None else float(default)


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Bound every database wait of this thread inside the block to ``seconds`` (or the
    enclosing block's bound if shorter). Only the PostgreSQL backend honours it (SQLite waits
    on its own lock ``timeout``)."""
    previous = getattr(_local, "deadline", None)
    _local.deadline = seconds if previous is None else min(previous, seconds)
    try:
        yield
    finally:
        _local.deadline = previous
