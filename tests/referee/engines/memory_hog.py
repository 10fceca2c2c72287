#!/usr/bin/env python3
"""memory_hog: on its 2nd ``go`` allocates (and touches) memory without bound, until the
sandbox's address-space limit makes an allocation fail and the engine dies of the
``MemoryError`` (exit status 1, traceback on stderr).

A bare BEP loop rather than the SDK: the SDK reports a failing command as ``info string`` and
carries on, and this engine must die the way an ordinary program does.
"""

import sys

from arena.rules import get_variant


def send(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


variant = position = None
gos = 0
for raw in sys.stdin:
    words = raw.split()
    if not words:
        continue
    if words[0] == "bep":
        send("id name memory_hog\nid author referee tests\nvariant bao-kingulu\nbepok")
    elif words[0] == "isready":
        send("readyok")
    elif words[0] == "newgame":
        variant = get_variant(words[1])
    elif words[0] == "position" and variant is not None:
        position = variant.initial_position()
        for token in words[words.index("moves") + 1 :] if "moves" in words else []:
            position = variant.apply(position, token)
    elif words[0] == "go" and variant is not None:
        gos += 1
        if gos == 2:
            hoard = []
            while True:
                hoard.append(bytearray(32 << 20))  # zero-filled: the pages are touched
        send(f"bestmove {variant.legal_moves(position)[0]}")
    elif words[0] == "quit":
        break
