#!/usr/bin/env python3
"""illegal: on its 2nd ``go`` answers a well-formed token that is not a legal move."""

import sys

from engines.sdk import Engine

FILES = "abcdefgh"


def an_illegal_token(variant_id: str, legal: tuple[str, ...]) -> str:
    if variant_id == "bao-kingulu":
        candidates = [f + r for f in FILES[:6] for r in "12"]
    else:
        candidates = [f + r + d for f in FILES for r in "1234" for d in "+-"]
    return next(t for t in candidates if t not in legal)


class Illegal(Engine):
    name = "illegal"
    author = "referee tests"
    gos = 0
    legal: tuple[str, ...] = ()

    def handle(self, raw: str) -> bool:
        if raw.startswith("go"):
            self.gos += 1
        return super().handle(raw)

    def search(self, request):  # type: ignore[no-untyped-def]
        self.legal = tuple(str(m) for m in request.legal_moves)
        return request.best

    def send(self, line: str) -> None:
        if line.startswith("bestmove") and self.gos == 2 and self.variant is not None:
            line = "bestmove " + an_illegal_token(self.variant.id, self.legal)
        super().send(line)


sys.exit(Illegal().run())
