#!/usr/bin/env python3
"""garbage: on its 2nd ``go`` writes binary junk, then a ``bestmove`` whose token is junk too."""

import sys

from engines.sdk import Engine


class Garbage(Engine):
    name = "garbage"
    author = "referee tests"
    gos = 0

    def handle(self, raw: str) -> bool:
        if raw.startswith("go"):
            self.gos += 1
            if self.gos == 2:
                out = sys.stdout.buffer
                out.write(b"\x00\xff\xfe junk \x1b[31m\n%%%%\nbestmove \xff\xfe@@\n")
                out.flush()
                return True
        return super().handle(raw)


sys.exit(Garbage().run())
