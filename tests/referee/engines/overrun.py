#!/usr/bin/env python3
"""overrun: spends its whole clock plus 40 ms on its first move, then 40 ms on every move with
nothing left on the clock: each move alone is inside a 100 ms grace, their sum is not."""

import sys
import time

from engines.sdk import run


def choose(position, legal_moves, clock):
    time.sleep((clock.my_ms + 40) / 1000)
    return legal_moves[0]


sys.exit(run(choose, name="overrun", author="referee tests"))
