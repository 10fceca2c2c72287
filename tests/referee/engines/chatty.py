#!/usr/bin/env python3
"""chatty: plays the first legal move but talks wherever an engine may still be talking.

It repeats its last ``bestmove`` (computed for an earlier position, or the previous game) with
an ``info string`` after ``newgame``, ``position``, ``isready`` (before its ``readyok``) and
``stop``: a duplicate answer, from the main thread (one written by the search thread could race
the next command's lines, and its order in the record with them). In its first game it answers
its 4th ``go`` 1.5 s late (a forfeit at 1 s), so the referee's resync meets it too. None of
these lines may ever be taken for a reply: each was written before the engine read the
``isready`` the referee sends with every ``go``.
"""

import sys
import time

from engines.sdk import Engine


class Chatty(Engine):
    name = "chatty"
    author = "referee tests"
    last = "none"
    games = 0
    gos = 0

    def send(self, line: str) -> None:
        super().send(line)
        if line.startswith("bestmove "):
            self.last = line.split()[1]

    def chatter(self, after: str) -> None:
        super().send(f"info string chatter after {after}")
        super().send(f"bestmove {self.last}")

    def handle(self, raw: str) -> bool:
        word = raw.split()[0] if raw.split() else ""
        if word in ("newgame", "position", "isready"):
            self.chatter(word)
        if word == "newgame":
            self.games += 1
            self.gos = 0
        if word == "go":
            self.gos += 1
            if self.games == 1 and self.gos == 4:
                time.sleep(1.5)
        keep = super().handle(raw)
        if word == "stop":
            self.chatter(word)
        return keep


sys.exit(Chatty().run())
