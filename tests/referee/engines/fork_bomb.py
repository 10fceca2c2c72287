#!/usr/bin/env python3
"""fork_bomb: at its first ``go`` forks until the system refuses (the sandbox's process limit),
every child forking once more; it reports ``info string forks <n> then <error>`` and plays the
first legal move on, while the children sleep for ever. A cap of 150 forks (each child adding
one grandchild) keeps a broken sandbox from taking the host down.

A bare BEP loop rather than the SDK: the SDK needs a thread per search, and threads count
against the same process limit the bomb has exhausted.
"""

import contextlib
import os
import sys
import time

from arena.rules import get_variant

CAP = 150


def send(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def bomb() -> str:
    made = 0
    while made < CAP:
        try:
            pid = os.fork()
        except OSError as exc:
            return f"forks {made} then {type(exc).__name__}"
        if pid == 0:  # a child: fork once more, then sleep for ever
            with contextlib.suppress(OSError):
                os.fork()
            while True:
                time.sleep(3600)
        made += 1
    return f"forks {made} then cap"


variant = position = None
bombed = False
for raw in sys.stdin:
    words = raw.split()
    if not words:
        continue
    if words[0] == "bep":
        send("id name fork_bomb\nid author referee tests\nvariant bao-kingulu\nbepok")
    elif words[0] == "isready":
        send("readyok")
    elif words[0] == "newgame":
        variant = get_variant(words[1])
    elif words[0] == "position" and variant is not None:
        position = variant.initial_position()
        for token in words[words.index("moves") + 1 :] if "moves" in words else []:
            position = variant.apply(position, token)
    elif words[0] == "go" and variant is not None:
        if not bombed:
            bombed = True
            send("info string " + bomb())
        send(f"bestmove {variant.legal_moves(position)[0]}")
    elif words[0] == "quit":
        break
