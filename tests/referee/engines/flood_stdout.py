#!/usr/bin/env python3
"""flood_stdout: on its 2nd ``go`` writes ``info string`` lines to stdout without end."""

import sys

from engines.sdk import Engine


class FloodStdout(Engine):
    name = "flood_stdout"
    author = "referee tests"
    gos = 0

    def handle(self, raw: str) -> bool:
        if raw.startswith("go"):
            self.gos += 1
            if self.gos == 2:
                chunk = ("info string " + "x" * 1000 + "\n") * 64
                while True:
                    sys.stdout.write(chunk)
                    sys.stdout.flush()
        return super().handle(raw)


sys.exit(FloodStdout().run())
