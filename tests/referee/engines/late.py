#!/usr/bin/env python3
"""late: answers its 2nd ``go`` of every game correctly but 1.5 s late, after its clock ran out.

With a 1 s clock this is a ``time_forfeit``; the late ``bestmove`` arrives while the referee is
already between games and must be drained, never taken as the reply to a later ``go``.
"""

import sys
import time

from engines.sdk import Engine


class Late(Engine):
    name = "late"
    author = "referee tests"
    gos = 0

    def on_newgame(self, variant: object) -> None:
        self.gos = 0

    def handle(self, raw: str) -> bool:
        if raw.startswith("go"):
            self.gos += 1
            if self.gos == 2:
                time.sleep(1.5)
        return super().handle(raw)


sys.exit(Late().run())
