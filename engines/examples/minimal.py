#!/usr/bin/env python3
"""A complete BEP engine in a few lines: it plays the move that leaves it the most seeds."""

import sys

from arena.rules import Move, Position, Variant
from engines.sdk import Clock, material, run


def choose(position: Position, legal_moves: list[Move], clock: Clock, variant: Variant) -> Move:
    """The legal move after which the mover owns the most seeds (ties: first in token order)."""
    return max(legal_moves, key=lambda m: material(variant.apply(position, m), position.side))


if __name__ == "__main__":
    sys.exit(run(choose, name="minimal", author="Bao Arena docs"))
