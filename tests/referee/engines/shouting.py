#!/usr/bin/env python3
"""shouting: answers every ``go`` with ``BESTMOVE <move>`` (upper case): not a reply, so its
clock runs out; the forfeit's detail must say what it sent instead."""

import sys

from engines.sdk import Engine


class Shouting(Engine):
    name = "shouting"
    author = "referee tests"

    def send(self, line: str) -> None:
        if line.startswith("bestmove "):
            line = "BESTMOVE " + line[len("bestmove ") :]
        super().send(line)


sys.exit(Shouting().run())
