#!/usr/bin/env python3
"""no_handshake: answers ``bep`` with its id lines but never with ``bepok``."""

import sys

for line in sys.stdin:
    if line.strip() == "bep":
        print("id name no_handshake", flush=True)
        print("id author referee tests", flush=True)
