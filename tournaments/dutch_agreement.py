"""How often the arena's Dutch pairing equals bbpPairings' on recorded events (pure).

An event directory holds ``final.trf`` and bbpPairings' ``-p`` output for each round
(``round-NN.txt``; ``tests/tournaments/data/dutch/README.md``). Each round is replayed from
``final.trf`` cut before it (``tournaments.trf``) and paired by the ``swiss`` format; a pair
agrees when the same two engines meet with the same White (South in game 1), a bye when the
same engine gets it. The score gap of a round is its largest |score difference| of a pair.

    .venv/bin/python -m tournaments.dutch_agreement tests/tournaments/data/dutch/tune
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from tournaments.formats.base import Finished
from tournaments.formats.swiss import Swiss
from tournaments.trf import parse, to_arena


@dataclass
class EventAgreement:
    """Per event: pairing lines compared and equal, and the rounds whose score gap is wider
    than bbpPairings' (round numbers)."""

    name: str
    players: int
    lines: int = 0
    same: int = 0
    wider: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)


def read_pairs(text: str) -> set[tuple[int, int]]:
    """bbpPairings' ``-p`` output as (white, black) start numbers; (id, 0) for the bye."""
    lines = text.split()
    count = int(lines[0])
    return {(int(lines[1 + 2 * k]), int(lines[2 + 2 * k])) for k in range(count)}


def score_gap(pairs: set[tuple[int, int]], points: dict[int, float]) -> float:
    """The largest |score difference| of a pair (byes, ``(id, 0)``, left out)."""
    return max((abs(points[a] - points[b]) for a, b in pairs if b), default=0.0)


def compare_event(directory: Path) -> EventAgreement:
    """Replay every round of the event in ``directory`` and compare (module docstring)."""
    trf = parse((directory / "final.trf").read_text())
    result = EventAgreement(directory.name, len(trf.players))
    for path in sorted(directory.glob("round-*.txt")):
        number = int(path.stem.split("-")[1])
        expected = read_pairs(path.read_text())
        view = to_arena(trf.before_round(number))
        step = Swiss().next_round(view.field, view.history)
        result.lines += len(expected)
        if isinstance(step, Finished):
            result.failed.append(number)
            continue
        ids = view.ids
        ours = {(ids[p.a], ids[p.b]) for p in step.pairings} | {(ids[b], 0) for b in step.byes}
        result.same += len(expected & ours)
        points: dict[int, float] = defaultdict(float)
        for p in view.history:
            if p.points_a is not None or p.b is None:
                points[ids[p.a]] += 1.0 if p.points_a is None else p.points_a
            if p.b is not None and p.points_a is not None:
                points[ids[p.b]] += 1.0 - p.points_a
        if score_gap(ours, points) > score_gap(expected, points):
            result.wider.append(number)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="+", type=Path, help="directories of event directories")
    args = parser.parse_args(argv)
    by_size: dict[int, list[EventAgreement]] = defaultdict(list)
    for root in args.sets:
        for directory in sorted(p for p in root.iterdir() if (p / "final.trf").exists()):
            event = compare_event(directory)
            by_size[event.players].append(event)
    print("entrants events  lines   same  agreement  wider-gap rounds  failed rounds")
    total = same = 0
    for n in sorted(by_size):
        events = by_size[n]
        lines = sum(e.lines for e in events)
        ok = sum(e.same for e in events)
        wider = sum(len(e.wider) for e in events)
        failed = sum(len(e.failed) for e in events)
        total, same = total + lines, same + ok
        share = 100 * ok / lines
        print(f"{n:>8} {len(events):>6} {lines:>6} {ok:>6} {share:>9.1f}% {wider:>17} {failed:>14}")
    print(f"{'all':>8} {'':>6} {total:>6} {same:>6} {100 * same / max(total, 1):>9.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
