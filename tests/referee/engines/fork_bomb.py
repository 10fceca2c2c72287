#!/usr/bin/env python3
"""fork_bomb: at its first ``go`` every process forks until the system refuses (the sandbox's
process limit), each child adding one more; it reports ``info string forks <n> then <error>``
and would play on, but threads count against the same limit, so the SDK cannot start its search
thread and the engine dies (``crash``). A cap (150 forks, each child adding one grandchild) keeps
a broken sandbox from taking the host down."""

import os
import sys
import time

from engines.sdk import Engine

CAP = 150


def bomb() -> str:
    made = 0
    while made < CAP:
        try:
            pid = os.fork()
        except OSError as exc:
            return f"forks {made} then {type(exc).__name__}"
        if pid == 0:  # a child: fork once more, then sleep for ever
            try:
                os.fork()
            except OSError:
                pass
            while True:
                time.sleep(3600)
        made += 1
    return f"forks {made} then cap"


class ForkBomb(Engine):
    name = "fork_bomb"
    author = "referee tests"
    done = False

    def handle(self, raw: str) -> bool:
        if raw.startswith("go") and not self.done:
            self.done = True
            self.send("info string " + bomb())
        return super().handle(raw)


sys.exit(ForkBomb().run())
