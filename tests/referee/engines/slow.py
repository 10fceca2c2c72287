#!/usr/bin/env python3
"""slow: plays the first legal move (like ``steady``) after thinking 2 s on every move."""

import sys
import time

from engines.sdk import run


def choose(position: object, legal_moves: list[str], clock: object) -> str:
    time.sleep(2)
    return legal_moves[0]


sys.exit(run(choose, name="slow", author="referee tests"))
