#!/usr/bin/env python3
"""holder: never plays its first move (its search waits for ever, while it still answers
``isready``), so a match against it stays running until the test that started it cancels it (or its
clock runs out): whatever else a test waits for cannot race the match's end."""

import sys
import threading

from engines.sdk import run


def choose(position: object, legal_moves: list[str], clock: object) -> str:
    threading.Event().wait()
    return legal_moves[0]


sys.exit(run(choose, name="holder", author="matches tests"))
