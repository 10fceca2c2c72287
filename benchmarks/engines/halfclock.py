#!/usr/bin/env python3
"""halfclock: a fixed amount of CPU work per move, sized to fill its clock's budget
(``Clock.budget_ms(moves_to_go=20)``, about half its clock over a game) on an idle core, then
the first legal move. Like a search with a node budget from its measured speed: when it must
share a core, the same work takes longer and its clock runs out (the issue-12 overload case)."""

import sys
import time

from engines.sdk import run


def _spin(n: int) -> int:
    total = 0
    for i in range(n):
        total += i & 7
    return total


def _rate() -> float:
    """Loop iterations per ms on this core now (best of three 20 ms samples)."""
    best = 0.0
    for _ in range(3):
        began = time.perf_counter()
        _spin(100_000)
        best = max(best, 100_000 / ((time.perf_counter() - began) * 1000))
    return best


RATE = _rate()


def choose(position: object, legal_moves: list[str], clock) -> str:  # type: ignore[no-untyped-def]
    _spin(int(RATE * clock.budget_ms(moves_to_go=20)))
    return legal_moves[0]


sys.exit(run(choose, name="halfclock", author="benchmarks"))
