"""Real dependency outages for end-to-end tests, never touching the machine's shared servers.

* ``TcpProxy``: a TCP forwarder in a thread of the test process. Workers reach the database
  through it; ``cut()`` closes the listening socket and every open connection (new connections
  are refused, as for a stopped server), ``restore()`` listens again on the same port;
  ``stall()`` stops forwarding without closing anything (a hung server, packets dropped: the
  connections stay open and new ones are accepted but never answered), ``flow()`` resumes.
* ``PrivateRedis``: a ``redis-server`` of our own on a free port with its data in a directory of
  ours (a broker that can be stopped and started again).
"""

from __future__ import annotations

import contextlib
import select
import shutil
import socket
import struct
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class TcpProxy:
    """Forwards 127.0.0.1:``port`` to ``target`` (host, port) until ``cut()``."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.port = free_port()
        self._lock = threading.Lock()
        self._conns: list[socket.socket] = []
        self._listener: socket.socket | None = None
        self._stop = threading.Event()
        self._flowing = threading.Event()
        self._flowing.set()
        self.restore()

    def stall(self) -> None:
        """Stop forwarding in both directions; nothing is closed."""
        self._flowing.clear()

    def flow(self) -> None:
        """Forward again what piled up while stalled, and everything after."""
        self._flowing.set()

    def restore(self) -> None:
        """Accept connections again (on the same port)."""
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def cut(self) -> None:
        """Refuse new connections and reset every open one."""
        listener, self._listener = self._listener, None
        if listener is not None:
            # shutdown() wakes the thread blocked in accept(); close() alone would not.
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()
        with self._lock:
            conns, self._conns = self._conns, []
        for conn in conns:
            with contextlib.suppress(OSError):
                # Linger 0: the close sends a reset, as a vanished server would.
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                conn.close()

    def close(self) -> None:
        self._stop.set()
        self.cut()

    def _accept(self, listener: socket.socket) -> None:
        while not self._stop.is_set():
            try:
                client, _ = listener.accept()
            except OSError:
                return  # cut
            if self._listener is not listener:  # accepted just as it was cut
                client.close()
                return
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._conns += [client, upstream]
            threading.Thread(target=self._pipe, args=(client, upstream), daemon=True).start()

    def _pipe(self, a: socket.socket, b: socket.socket) -> None:
        try:
            while True:
                if not self._flowing.is_set():
                    if self._stop.wait(0.05):
                        return
                    continue
                ready, _, _ = select.select([a, b], [], [], 0.2)
                for src in ready:
                    data = src.recv(65536)
                    if not data:
                        return
                    (b if src is a else a).sendall(data)
        except (OSError, ValueError):
            return
        finally:
            for s in (a, b):
                with contextlib.suppress(OSError):
                    s.close()


def via_proxy(url: str, proxy: TcpProxy) -> str:
    """``url`` (a ``postgres://`` URL) with its host and port replaced by the proxy's."""
    parts = urlsplit(url)
    auth = parts.netloc.rsplit("@", 1)[0] + "@" if "@" in parts.netloc else ""
    return urlunsplit(parts._replace(netloc=f"{auth}127.0.0.1:{proxy.port}"))


class PrivateRedis:
    """A ``redis-server`` of this test, on a free port, data in ``directory``."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.port = free_port()
        self.popen: subprocess.Popen[bytes] | None = None
        directory.mkdir(parents=True, exist_ok=True)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        server = shutil.which("redis-server")
        if server is None:
            raise RuntimeError("redis-server is not installed")
        log = open(self.directory / "redis.log", "ab")  # noqa: SIM115  (the server's log)
        # The messages must survive the restart (a broker that loses its queue on a restart is
        # another fault): an append-only file in our directory.
        self.popen = subprocess.Popen(
            [server, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "yes", "--dir", str(self.directory)],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5),
            ):
                return
            time.sleep(0.05)
        raise RuntimeError("the private redis-server did not start")

    def stop(self) -> None:
        if self.popen is not None and self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()
        self.popen = None


@contextlib.contextmanager
def broker_switched(url: str) -> Iterator[None]:
    """This process sends its Celery messages to ``url`` inside the block (the app's
    connection and producer pools are rebuilt on both sides of the switch)."""
    from arena.celery import app

    def reset() -> None:
        app._pool = None  # rebuilt from broker_url at the next send
        app.amqp._producer_pool = None

    keys = ("broker_url", "broker_read_url", "broker_write_url")
    saved = {key: app.conf[key] for key in keys}
    app.conf.update({key: url for key in keys})
    reset()
    try:
        yield
    finally:
        app.conf.update(saved)
        reset()
