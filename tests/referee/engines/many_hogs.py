#!/usr/bin/env python3
"""many_hogs: at its first ``go`` forks 23 children, and each of the 24 processes then holds
200 MiB of touched memory and sleeps (never answering): 4.7 GiB in all, each process far
below the sandbox's address-space limit. Only a cap on the engine's total stops it.
"""

import os
import sys
import time

PROCESSES = 24
HOLD = 200 << 20


def send(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def hold() -> None:
    block = b"\x01" * HOLD  # bytes * n writes every page: resident, not lazily zero
    while block:
        time.sleep(3600)


for raw in sys.stdin:
    words = raw.split()
    if not words:
        continue
    if words[0] == "bep":
        send("id name many_hogs\nid author referee tests\nvariant bao-kingulu\nbepok")
    elif words[0] == "isready":
        send("readyok")
    elif words[0] == "go":
        for _ in range(PROCESSES - 1):
            if os.fork() == 0:
                hold()
        hold()
    elif words[0] == "quit":
        break
