#!/usr/bin/env python3
"""flood_stderr_search: on its 2nd ``go`` floods stderr and takes 3 s before its (legal)
``bestmove``, well within its clock: the referee must not wait for that reply."""

import sys
import threading
import time

from engines.sdk import Engine, SearchRequest


def flood() -> None:
    chunk = b"debug: " + b"y" * 4000 + b"\n"
    while True:
        sys.stderr.buffer.write(chunk)


class FloodStderrSearch(Engine):
    name = "flood_stderr_search"
    author = "referee tests"
    gos = 0

    def search(self, request: SearchRequest) -> str:
        self.gos += 1
        if self.gos == 2:
            threading.Thread(target=flood, daemon=True).start()
            time.sleep(3)
        return str(request.best)


sys.exit(FloodStderrSearch().run())
