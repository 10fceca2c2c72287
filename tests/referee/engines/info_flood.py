#!/usr/bin/env python3
"""info_flood: plays the first legal move, but in its first game prints 3 MB of ``info string``
lines before each of its first four moves (12 MB in all) and 900 kB of stderr (under the
sandbox's 1 MiB cap), in text that costs most once escaped in a page (``<``, ``&``, ``é``).

The stored game, its replay and its page must keep 64 KiB of each and say how much was cut.
"""

import sys

from engines.sdk import Engine, SearchRequest

LINE = "info string " + "<&é>" * 240  # 1212 bytes, 1213 with its newline
PER_MOVE = 3_000_000 // len(LINE.encode())  # 2475 lines


class InfoFlood(Engine):
    name = "info-flood"
    author = "output cap tests"
    games = 0
    moves = 0

    def on_newgame(self, variant: object) -> None:
        self.games += 1
        self.moves = 0

    def search(self, request: SearchRequest) -> str:
        self.moves += 1
        if self.games == 1 and self.moves <= 4:
            sys.stdout.write((LINE + "\n") * PER_MOVE)
            sys.stderr.write(("e" * 99 + "\n") * 2250)
            sys.stderr.flush()
        return str(request.best)


sys.exit(InfoFlood().run())
