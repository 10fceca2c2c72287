#!/usr/bin/env python3
"""ignore_quit: plays the first legal move, but ignores ``quit``, end of input and SIGTERM/SIGINT
and then sleeps for ever: only SIGKILL ends it."""

import signal
import time

from engines.sdk import Engine


class IgnoreQuit(Engine):
    name = "ignore_quit"
    author = "referee tests"

    def handle(self, raw: str) -> bool:
        if raw.strip() == "quit":
            return True
        return super().handle(raw)


signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGINT, signal.SIG_IGN)
IgnoreQuit().run()
while True:
    time.sleep(3600)
