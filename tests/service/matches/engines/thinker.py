#!/usr/bin/env python3
"""thinker: plays the first legal move after thinking 0.15 s, so a match between it and a
bundled engine lasts seconds, long enough to kill, cut or cancel it midway."""

import sys
import time

from engines.sdk import run


def choose(position: object, legal_moves: list[str], clock: object) -> str:
    time.sleep(0.15)
    return legal_moves[0]


sys.exit(run(choose, name="thinker", author="matches tests"))
