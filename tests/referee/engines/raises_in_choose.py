#!/usr/bin/env python3
"""raises_in_choose: its ``choose`` raises ``SystemExit`` at its 2nd move (a bot that calls
``sys.exit`` in its search) and ``KeyboardInterrupt`` at its 4th; the SDK must answer the first
legal move each time, and say why on stderr."""

import sys

from engines.sdk import run

RAISES = {2: SystemExit, 4: KeyboardInterrupt}
calls = 0


def choose(position, legal_moves, clock):
    global calls
    calls += 1
    if calls in RAISES:
        raise RAISES[calls]("raised in choose")
    return legal_moves[0]


sys.exit(run(choose, name="raises_in_choose", author="referee tests"))
