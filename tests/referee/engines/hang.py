#!/usr/bin/env python3
"""hang: on its 2nd ``go`` it stops reading stdin and never answers (a dead loop in a search).

The referee is then waiting for ``bestmove`` with the clock running, so this is a
``time_forfeit``; the next ``isready`` (the resync before the next game) also goes unanswered,
so the engine is killed and restarted.
"""

import sys
import time

from engines.sdk import Engine


class Hang(Engine):
    name = "hang"
    author = "referee tests"
    gos = 0

    def handle(self, raw: str) -> bool:
        if raw.startswith("go"):
            self.gos += 1
            if self.gos == 2:
                while True:
                    time.sleep(3600)
        return super().handle(raw)


sys.exit(Hang().run())
