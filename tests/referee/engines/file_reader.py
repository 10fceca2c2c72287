#!/usr/bin/env python3
"""file_reader: at its first ``go`` tries to read files outside its sandbox, reports each as
``info string read <path> ok <bytes>|failed <error>``, then plays the first legal move."""

import sys

from engines.sdk import Engine

# The referee test writes the probe file on the host before the match.
TARGETS = ("/tmp/bao-arena-referee-probe.txt", "/etc/passwd")


def attempt(path: str) -> str:
    try:
        with open(path, "rb") as fh:
            return f"ok {len(fh.read())}"
    except OSError as exc:
        return f"failed {type(exc).__name__}"


class FileReader(Engine):
    name = "file_reader"
    author = "referee tests"
    tried = False

    def handle(self, raw: str) -> bool:
        if raw.startswith("go") and not self.tried:
            self.tried = True
            for path in TARGETS:
                self.send(f"info string read {path} {attempt(path)}")
        return super().handle(raw)


sys.exit(FileReader().run())
