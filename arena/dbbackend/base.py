"""Django's PostgreSQL backend with a client-side deadline on every wait for the server.

Server-side and kernel timeouts do not cover a database that stops answering while its
connections stay open (packets dropped by a firewall or a hung host, a proxy that stops
forwarding): ``statement_timeout`` is enforced by the server that no longer answers, TCP
keepalives only probe idle connections, and a peer whose kernel still acknowledges (a proxy)
defeats ``tcp_user_timeout`` too. So the psycopg connection this backend opens gives up any
wait longer than its deadline:

* a query: ``settings.DATABASE_QUERY_DEADLINE_S`` (the statement timeout plus a margin, so a
  slow statement gets the server's own ``QueryCanceled`` first; None: no deadline);
* the health check Django runs on a reused connection at the start of a request
  (``conn_health_checks``): ``settings.DATABASE_HEALTH_CHECK_S``; a failed check reconnects,
  and a new connection is bounded by ``connect_timeout`` (``OPTIONS``);
* ``deadline(seconds)``: a shorter bound for a block of this thread (``/healthz``, the
  worker's lease keeper).

A wait past its deadline closes the connection (its protocol state is unknown) and raises
``psycopg.OperationalError`` ("the database did not answer within N s"), which Django turns
into ``django.db.OperationalError``: the web answers ``503 service_unavailable``
(``arena.api.outages``) and a worker retries as for any outage.
"""

from __future__ import annotations

import types
from typing import Any

import psycopg
from django.conf import settings
from django.db.backends.postgresql import base as postgresql
from psycopg import errors as pg_errors

from arena.dbbackend import current_deadline, deadline


class DeadlineConnection(psycopg.Connection[Any]):
    """A psycopg connection whose waits end at the thread's deadline (module docstring)."""

    def wait(self, gen: Any, interval: float = 0.1, timeout: float | None = None) -> Any:
        limit = current_deadline()
        if timeout is None or (limit is not None and limit < timeout):
            timeout = limit
        try:
            return super().wait(gen, interval=interval, timeout=timeout)
        except pg_errors._WaitTimeout:
            self.pgconn.finish()  # mid-protocol: nothing else can be sent on it
            raise psycopg.OperationalError(
                f"the database did not answer within {timeout:g} s"
            ) from None


class _Psycopg(types.ModuleType):
    """The ``psycopg`` module as Django's backend sees it, connecting with
    ``DeadlineConnection``."""

    def __getattr__(self, name: str) -> Any:
        return getattr(psycopg, name)

    @staticmethod
    def connect(*args: Any, **kwargs: Any) -> DeadlineConnection:
        return DeadlineConnection.connect(*args, **kwargs)


class DatabaseWrapper(postgresql.DatabaseWrapper):
    """Django's PostgreSQL wrapper on ``DeadlineConnection`` (module docstring)."""

    Database = _Psycopg("psycopg")

    def is_usable(self) -> bool:
        with deadline(float(getattr(settings, "DATABASE_HEALTH_CHECK_S", 1.5))):
            return bool(super().is_usable())
