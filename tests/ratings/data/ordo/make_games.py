"""Writes the game files of the Ordo comparison (``tests/ratings/test_ordo.py``).

``python tests/ratings/data/ordo/make_games.py [PGN]`` writes ``games.csv`` (the fit's
command-line format) in this directory and, given a path, the same games as PGN (South as
White) for Ordo:

* ``pool``: one redraw of ``ratings.stats.whr.simulate.mixed_schedule()`` (26 regulars, about
  2,900 games, four occasional engines with 2, 3, 5 and 10 games, about 24% draws), named
  ``e00``..``e29``;
* plus ``sweeper``, who won all of its 4 games against regulars, and ``doormat``, who lost
  all of its 3.

Ordo 1.2.6's outputs beside them were made from ``games.pgn`` with the command lines in
``README.md``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[3]))

from ratings.stats.whr.simulate import mixed_schedule, redraw  # noqa: E402

RESULT = {1.0: "1-0", 0.5: "1/2-1/2", 0.0: "0-1"}


def games() -> list[tuple[str, str, str]]:
    """The games (south, north, result) of the module docstring."""
    schedule = mixed_schedule()
    score = redraw(schedule, np.random.default_rng(7))
    triples = zip(schedule.south.tolist(), schedule.north.tolist(), score.tolist(), strict=True)
    rows = [(f"e{s:02d}", f"e{n:02d}", RESULT[float(x)]) for s, n, x in triples]
    rows += [("sweeper", "e03", "1-0"), ("e11", "sweeper", "0-1"), ("sweeper", "e17", "1-0")]
    rows += [("e20", "sweeper", "0-1")]
    rows += [("doormat", "e05", "0-1"), ("e08", "doormat", "1-0"), ("doormat", "e14", "0-1")]
    return rows


def main() -> None:
    rows = games()
    with open(HERE / "games.csv", "w", encoding="utf-8") as out:
        out.write("south,north,result\n")
        out.writelines(f"{s},{n},{r}\n" for s, n, r in rows)
    if len(sys.argv) < 2:
        return
    with open(sys.argv[1], "w", encoding="utf-8") as out:
        for k, (s, n, r) in enumerate(rows, start=1):
            out.write(
                f'[Event "ordo comparison"]\n[Round "{k}"]\n[White "{s}"]\n[Black "{n}"]\n'
                f'[Result "{r}"]\n\n{r}\n\n'
            )


if __name__ == "__main__":
    main()
