#!/usr/bin/env python3
"""nul_text: plays the first legal move, but puts NUL and other control bytes in everything it
says: its ``id name``/``id author``, an ``info string`` before every ``bestmove``, and stderr.

The referee must hand all of it on as storable text (U+FFFD in their place), never as NUL
(PostgreSQL refuses NUL in text and as ``\\u0000`` in jsonb).
"""

import sys

from engines.sdk import Engine, SearchRequest


class NulText(Engine):
    name = "nul\x00text"
    author = "bell\x07author"

    def search(self, request: SearchRequest) -> str:
        self.send("info string has\x00nul")
        sys.stderr.buffer.write(b"before\x00after\n")
        sys.stderr.buffer.flush()
        return str(request.best)


sys.exit(NulText().run())
