#!/usr/bin/env python3
"""network: at its first ``go`` tries to open TCP connections, reports each attempt as
``info string network <host>:<port> ok|failed <errno name>``, then plays the first legal move."""

import errno
import socket
import sys

from engines.sdk import Engine

TARGETS = (("1.1.1.1", 53), ("127.0.0.1", 22))


def attempt(host: str, port: int) -> str:
    try:
        with socket.create_connection((host, port), timeout=1.0):
            return "ok"
    except OSError as exc:
        name = errno.errorcode.get(exc.errno or 0, type(exc).__name__)
        return f"failed {name}"


class Network(Engine):
    name = "network"
    author = "referee tests"
    tried = False

    def handle(self, raw: str) -> bool:
        if raw.startswith("go") and not self.tried:
            self.tried = True
            for host, port in TARGETS:
                self.send(f"info string network {host}:{port} {attempt(host, port)}")
        return super().handle(raw)


sys.exit(Network().run())
