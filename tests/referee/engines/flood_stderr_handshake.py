#!/usr/bin/env python3
"""flood_stderr_handshake: on ``bep`` writes to stderr without end (``yes >&2``) and never
answers: its stderr passes the cap long before the handshake timeout."""

import sys

for line in sys.stdin:
    if line.strip() == "bep":
        chunk = b"y\n" * 2048
        while True:
            sys.stderr.buffer.write(chunk)
