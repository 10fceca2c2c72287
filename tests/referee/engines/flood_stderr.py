#!/usr/bin/env python3
"""flood_stderr: from its 2nd ``go`` on writes to stderr without end (a debug print in a loop),
while still answering on stdout."""

import sys
import threading

from engines.sdk import Engine


def flood() -> None:
    chunk = "debug: " + "y" * 4000 + "\n"
    while True:
        sys.stderr.write(chunk)


class FloodStderr(Engine):
    name = "flood_stderr"
    author = "referee tests"
    gos = 0

    def handle(self, raw: str) -> bool:
        if raw.startswith("go"):
            self.gos += 1
            if self.gos == 2:
                threading.Thread(target=flood, daemon=True).start()
        return super().handle(raw)


sys.exit(FloodStderr().run())
