#!/usr/bin/env python3
"""memory_hog: on its 2nd ``go`` allocates (and touches) memory without bound, until the
sandbox's address-space limit makes the allocation fail and the engine dies (``MemoryError``)."""

import sys

from engines.sdk import Engine


class MemoryHog(Engine):
    name = "memory_hog"
    author = "referee tests"
    gos = 0

    def handle(self, raw: str) -> bool:
        if raw.startswith("go"):
            self.gos += 1
            if self.gos == 2:
                hoard = []
                while True:
                    hoard.append(bytearray(32 << 20))  # zero-filled: the pages are touched
        return super().handle(raw)


sys.exit(MemoryHog().run())
