#!/usr/bin/env python3
"""no_flush: a correct engine that never flushes stdout, so its replies sit in its own buffer
(the classic missing ``flush``): the referee never sees ``bepok``."""

import io
import os
import sys

from engines.sdk import Engine


class NeverFlushes(io.TextIOWrapper):
    def flush(self) -> None:
        pass


class NoFlush(Engine):
    name = "no_flush"
    author = "referee tests"


out = NeverFlushes(os.fdopen(1, "wb", buffering=1 << 16), encoding="utf-8")
sys.exit(NoFlush().run(stdout=out))
