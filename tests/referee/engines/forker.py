#!/usr/bin/env python3
"""forker: at its first ``go`` starts a grandchild in a new session (escaping its process group,
as a daemon would) that sleeps for ever, then plays the first legal move normally."""

import os
import sys
import time

from engines.sdk import Engine


def daemonise() -> None:
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            while True:
                time.sleep(3600)
        os._exit(0)


class Forker(Engine):
    name = "forker"
    author = "referee tests"
    forked = False

    def handle(self, raw: str) -> bool:
        if raw.startswith("go") and not self.forked:
            self.forked = True
            daemonise()
        return super().handle(raw)


sys.exit(Forker().run())
