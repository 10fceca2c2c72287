#!/usr/bin/env python3
"""stall: keeps reading but stops answering ``isready`` from the 3rd one on (a stuck engine that
still swallows its input). The ``readyok`` awaited with its next move never comes: ``stall``."""

import sys

from engines.sdk import Engine


class Stall(Engine):
    name = "stall"
    author = "referee tests"
    readies = 0

    def handle(self, raw: str) -> bool:
        if raw.strip() == "isready":
            self.readies += 1
            if self.readies >= 3:
                return True  # swallowed: no readyok
        return super().handle(raw)


sys.exit(Stall().run())
