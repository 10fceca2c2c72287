#!/usr/bin/env python3
"""flood_stderr_waiting: answers its 1st ``go`` at once, then, 0.2 s later, while the opponent
is thinking, floods stderr without end."""

import sys
import threading
import time

from engines.sdk import Engine, SearchRequest


def flood_later() -> None:
    time.sleep(0.2)
    chunk = b"debug: " + b"y" * 4000 + b"\n"
    while True:
        sys.stderr.buffer.write(chunk)


class FloodStderrWaiting(Engine):
    name = "flood_stderr_waiting"
    author = "referee tests"
    gos = 0

    def search(self, request: SearchRequest) -> str:
        self.gos += 1
        if self.gos == 1:
            threading.Thread(target=flood_later, daemon=True).start()
        return str(request.best)


sys.exit(FloodStderrWaiting().run())
