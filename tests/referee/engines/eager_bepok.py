#!/usr/bin/env python3
"""eager_bepok: prints a banner and a bare ``bepok`` at start-up, before it has read ``bep``,
then does the proper handshake and plays the first legal move."""

import sys

from engines.sdk import run

print("eager_bepok starting\nbepok", flush=True)
sys.exit(
    run(lambda position, legal_moves, clock: legal_moves[0], name="eager", author="referee tests")
)
