"""Helpers of the end-to-end tests with real workers: waiting with a deadline, timing, the
PostgreSQL the workers reach through a proxy."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

import pytest

T = TypeVar("T")


def wait_for(predicate: Callable[[], T], timeout: float, what: str, step: float = 0.2) -> T:
    """The first truthy value of ``predicate()`` within ``timeout`` seconds, else
    AssertionError naming ``what``."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(step)


def postgres_target() -> tuple[str, int]:
    """(host, port) of this process's PostgreSQL; skips the test on another database (an
    outage is made by cutting a TCP proxy in front of it, which a SQLite file has not)."""
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("database outages are tested on PostgreSQL (through a TCP proxy)")
    db = connection.settings_dict
    return str(db.get("HOST") or "127.0.0.1"), int(db.get("PORT") or 5432)


def figure(name: str, seconds: float) -> None:
    """Print a measured time (the tests' figures; bounds are asserted separately)."""
    print(f"\n[figure] {name}: {seconds:.1f} s", flush=True)
