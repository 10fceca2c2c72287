#!/usr/bin/env python3
"""uid: plays the first legal move and says which uid it runs as (``info string uid <n>``), so a
test can tell whether the sandbox gave it a uid of its own."""

import os
import sys

from engines.sdk import info, run


def choose(position, legal_moves, clock):
    info(string=f"uid {os.getuid()}")
    return legal_moves[0]


sys.exit(run(choose, name="uid", author="referee tests"))
