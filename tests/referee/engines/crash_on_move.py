#!/usr/bin/env python3
"""crash_on_move: plays the first legal move, then dies with exit status 3 on its 3rd ``go``."""

import os
import sys

from engines.sdk import Engine


class CrashOnMove(Engine):
    name = "crash_on_move"
    author = "referee tests"
    gos = 0

    def handle(self, raw: str) -> bool:
        if raw.startswith("go"):
            self.gos += 1
            if self.gos == 3:
                os._exit(3)  # no cleanup, no bestmove: as abrupt as a segfault, but a known code
        return super().handle(raw)


sys.exit(CrashOnMove().run())
