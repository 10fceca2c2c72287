#!/usr/bin/env python3
"""cpu_hog: at its first ``go`` forks 39 children (fewer if the process limit refuses some), and
each of the processes then spins (never answering), every one far below the sandbox's
per-process CPU limit. Only a budget on the engine's total CPU time stops it.
"""

import os
import sys

PROCESSES = 40


def send(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def spin() -> None:
    while True:
        pass


for raw in sys.stdin:
    words = raw.split()
    if not words:
        continue
    if words[0] == "bep":
        send("id name cpu_hog\nid author referee tests\nvariant bao-kingulu\nbepok")
    elif words[0] == "isready":
        send("readyok")
    elif words[0] == "go":
        for _ in range(PROCESSES - 1):
            try:
                if os.fork() == 0:
                    spin()
            except OSError:
                break
        spin()
    elif words[0] == "quit":
        break
