#!/usr/bin/env python3
"""steady: a well-behaved opponent that always plays the first legal move (ASCII order)."""

import sys

from engines.sdk import run

sys.exit(
    run(lambda position, legal_moves, clock: legal_moves[0], name="steady", author="referee tests")
)
