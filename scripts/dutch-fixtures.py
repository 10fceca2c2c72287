#!/usr/bin/env python3
"""Make the FIDE Dutch test fixtures: whole Swiss events paired round by round by an external
bbpPairings (built outside the repository from its public source; its path is an argument).

Usage:
    .venv/bin/python scripts/dutch-fixtures.py --bbp PATH/bbpPairings.exe \
        --out tests/tournaments/data/dutch/tune --sizes 9,12,16,25,31,40 --seeds 1,2,3,4

For each size n and seed s, one event ``n{n}-s{s}/``: n engines with true Elo ratings drawn
from ``random.Random(f"{n}/{s}")`` (normal, mean 1800, sd 250), entered (start numbers) in the
order of a published rating (the true one plus normal noise, sd 60), as a real event seeds by
rating. Before each round the event is written as TRF-16 (``tournaments.trf.from_arena``, the
arena's own writer) and ``bbpPairings --dutch FILE -p`` pairs it; its output is kept verbatim
as ``round-NN.txt``. Each match is then scored by the Elo model: with E the logistic expected
score of white, u uniform in [0, 1), white wins when u < E - 0.125, draws when u < E + 0.125,
loses otherwise (a best-of-three's drawn match is common). Before a round (from round 2) each
engine still in withdraws with probability 1.5% (absent, ``0000 - Z``, from then on); in a
round each pairing is forfeited with probability 2% (a random one of the two withdraws: ``+``
against ``-``, absent from the next round); at most n / 8 engines withdraw. Byes come from
odd fields. The event stops early when bbpPairings finds no legal pairing (exit status 1).
Finally ``final.trf`` holds every round and ``manifest.json`` the events.

Checks made on every event (the script stops on a failure): the final file, read back by
``tournaments.trf`` and cut before each round (``Trf.before_round``), is paired by bbpPairings
exactly as that round was, and its checker (``-c``) finds no discrepancy in the final file.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tournaments.formats.base import BYE, FORFEIT, MATCH, Entrant, Field, Played
from tournaments.trf import from_arena, parse

#: Rounds asked for, by field size (at most n - 1; more than ceil(log2 n) so that the late
#: rounds are hard to pair).
ROUNDS = {9: 7, 12: 8, 16: 9, 25: 9, 31: 10, 40: 11}
DRAW_BAND = 0.25
WITHDRAW_P = 0.015
FORFEIT_P = 0.02


def pair(bbp: Path, trf_text: str, work: Path) -> tuple[int, str]:
    """bbpPairings' exit status and ``-p`` output for ``trf_text``."""
    src, out = work / "in.trf", work / "out.txt"
    src.write_text(trf_text, encoding="utf-8")
    out.unlink(missing_ok=True)
    done = subprocess.run(
        [str(bbp), "--dutch", str(src), "-p", str(out)], capture_output=True, text=True
    )
    if done.returncode not in (0, 1):
        raise SystemExit(f"bbpPairings failed ({done.returncode}): {done.stderr}\n{trf_text}")
    return done.returncode, out.read_text() if done.returncode == 0 else ""


def read_pairs(text: str) -> list[tuple[int, int]]:
    """(white, black) start numbers of a ``-p`` output; black 0 for the bye."""
    lines = text.split()
    count = int(lines[0])
    pairs = [(int(lines[1 + 2 * k]), int(lines[2 + 2 * k])) for k in range(count)]
    return pairs


def expected(ra: float, rb: float) -> float:
    return 1.0 / (1.0 + math.pow(10.0, (rb - ra) / 400.0))


def event(bbp: Path, n: int, seed: int, out: Path, work: Path) -> dict[str, object]:
    rng = random.Random(f"{n}/{seed}")
    true = [rng.gauss(1800, 250) for _ in range(n)]
    published = [t + rng.gauss(0, 60) for t in true]
    order = sorted(range(n), key=lambda i: -published[i])
    strength = [true[i] for i in order]
    ratings = [round(published[i]) for i in order]
    names = [f"engine-{i + 1:02d}" for i in range(n)]
    rounds = ROUNDS[n]
    withdrawn: set[int] = set()
    history: list[Played] = []
    stats = {"byes": 0, "forfeits": 0, "withdrawals": 0}
    out.mkdir(parents=True, exist_ok=True)
    last = 0
    ended = ""

    def field(r: int) -> Field:
        return Field(tuple(Entrant(i, ratings[i], i in withdrawn) for i in range(n)), rounds, r)

    for rnd in range(1, rounds + 1):
        if rnd > 1:
            for i in range(n):
                if i not in withdrawn and len(withdrawn) < n // 8 and rng.random() < WITHDRAW_P:
                    withdrawn.add(i)
                    stats["withdrawals"] += 1
        f = field(rnd - 1)
        trf = from_arena(
            f, history, names, rounds_paired=rnd - 1, absent=withdrawn, ratings=ratings
        )
        status, text = pair(bbp, trf.text(), work)
        if status == 1:
            ended = f"no legal pairing for round {rnd}"
            break
        (out / f"round-{rnd:02d}.txt").write_text(text)
        for white, black in read_pairs(text):
            w = white - 1
            if black == 0:
                history.append(Played(rnd, w, None, kind=BYE))
                stats["byes"] += 1
                continue
            b = black - 1
            if len(withdrawn) < n // 8 and rng.random() < FORFEIT_P:
                loser = rng.choice((w, b))
                winner = b if loser == w else w
                history.append(Played(rnd, winner, loser, 1.0, FORFEIT))
                withdrawn.add(loser)
                stats["forfeits"] += 1
                stats["withdrawals"] += 1
                continue
            e = expected(strength[w], strength[b])
            u = rng.random()
            points = 1.0 if u < e - DRAW_BAND / 2 else 0.5 if u < e + DRAW_BAND / 2 else 0.0
            history.append(Played(rnd, w, b, points, MATCH))
        last = rnd
    final = from_arena(field(last), history, names, rounds_paired=last, ratings=ratings)
    final_text = final.text()
    (out / "final.trf").write_text(final_text)
    check(bbp, final_text, out, last, work)
    return {
        "event": out.name,
        "entrants": n,
        "rounds_asked": rounds,
        "rounds_paired": last,
        "ended_early": ended,
        **stats,
        "byes_total": sum(1 for h in history if h.kind == BYE),
        "forfeit_wins": sum(1 for h in history if h.kind == FORFEIT),
    }


def check(bbp: Path, final_text: str, out: Path, last: int, work: Path) -> None:
    """The final file cut before each round is paired as that round was; ``-c`` is clean."""
    final = parse(final_text)
    for rnd in range(1, last + 1):
        status, text = pair(bbp, final.before_round(rnd).text(), work)
        if status != 0 or text != (out / f"round-{rnd:02d}.txt").read_text():
            raise SystemExit(f"{out.name}: round {rnd} from final.trf pairs differently")
    src = work / "final.trf"
    src.write_text(final_text)
    done = subprocess.run([str(bbp), "--dutch", str(src), "-c"], capture_output=True, text=True)
    noise = [line for line in done.stdout.splitlines() if line.strip() and ": Round #" not in line]
    if done.returncode != 0 or noise:
        raise SystemExit(f"{out.name}: the checker says\n{done.stdout}{done.stderr}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bbp", type=Path, required=True, help="the bbpPairings binary")
    parser.add_argument("--out", type=Path, required=True, help="directory of the events")
    parser.add_argument("--sizes", default="9,12,16,25,31,40")
    parser.add_argument("--seeds", default="1,2,3,4")
    args = parser.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    seeds = [int(x) for x in args.seeds.split(",")]
    manifest = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            for s in seeds:
                row = event(args.bbp, n, s, args.out / f"n{n:02d}-s{s}", Path(tmp))
                manifest.append(row)
                print(json.dumps(row))
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
