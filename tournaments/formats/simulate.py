"""A simulated Swiss (pure): what ``python -m tournaments.pairing swiss-simulate`` prints.

Players ``p01``..``pNN`` (seeded in that order) get true ratings drawn from a normal
distribution (mean 1500, sd 200). A match between ratings Ra and Rb is scored by the logistic
(Elo) model: with E = 1 / (1 + 10^((Rb - Ra) / 400)) and u uniform in [0, 1), the first-named
engine wins when u < E - 0.05, draws when u < E + 0.05 (clamped to [0, 1]), loses otherwise,
so its expected score is E. Everything comes from ``random.Random(seed)``: same seed, same
event.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

from tournaments.formats.base import BYE, MATCH, Entrant, Field, Finished, Played, Round
from tournaments.formats.swiss import Swiss
from tournaments.standings import StandingRow

#: Width of the draw band of the simulated match result.
DRAW_BAND = 0.1


def expected_score(ra: float, rb: float) -> float:
    """The logistic model's expected score of Ra against Rb (Elo)."""
    return 1.0 / (1.0 + math.pow(10.0, (rb - ra) / 400.0))


def match_result(ra: float, rb: float, rng: random.Random) -> float:
    """Match points (1, 0.5, 0) of the engine rated ``ra`` (module docstring)."""
    e = expected_score(ra, rb)
    u = rng.random()
    if u < max(0.0, e - DRAW_BAND / 2):
        return 1.0
    if u < min(1.0, e + DRAW_BAND / 2):
        return 0.5
    return 0.0


@dataclass
class SimulatedSwiss:
    """The rounds played, the full history (as the format saw it), the final standings."""

    names: list[str]
    ratings: list[float]
    rounds: list[Round] = field(default_factory=list)
    results: list[list[float]] = field(default_factory=list)
    history: list[Played] = field(default_factory=list)
    standings: list[StandingRow] = field(default_factory=list)
    end_reason: str = ""

    def to_json(self) -> dict[str, Any]:
        """``{"rounds": [{"pairings": [[south, north], ...], "bye": name or null, "results":
        [points of the first-named engine, ...]}], "standings": [...]}``."""
        names = self.names
        return {
            "rounds": [
                {
                    "pairings": [[names[p.a], names[p.b]] for p in rnd.pairings],
                    "bye": names[rnd.byes[0]] if rnd.byes else None,
                    "results": results,
                }
                for rnd, results in zip(self.rounds, self.results, strict=True)
            ],
            "standings": [
                {
                    "rank": r.rank,
                    "player": names[r.player],
                    "points": r.points,
                    "buchholz": r.buchholz,
                    "sonneborn_berger": r.sonneborn_berger,
                    "byes": r.byes,
                    "rating": round(self.ratings[r.player], 1),
                }
                for r in self.standings
            ],
        }


def simulate_swiss(players: int, rounds: int, seed: int) -> SimulatedSwiss:
    """Play a Swiss of ``players`` for ``rounds`` rounds. Raises ``FormatError`` if the Swiss
    cannot have that many rounds (``Swiss.check``)."""
    swiss = Swiss()
    total = swiss.check(players, rounds)
    rng = random.Random(seed)
    width = max(2, len(str(players)))
    sim = SimulatedSwiss(
        names=[f"p{i:0{width}d}" for i in range(1, players + 1)],
        ratings=[rng.gauss(1500.0, 200.0) for _ in range(players)],
    )
    f = Field(tuple(Entrant(i) for i in range(players)), rounds=total)
    while True:
        step = swiss.next_round(f, sim.history)
        if isinstance(step, Finished):
            sim.end_reason = step.reason
            break
        points = [match_result(sim.ratings[p.a], sim.ratings[p.b], rng) for p in step.pairings]
        sim.rounds.append(step)
        sim.results.append(points)
        sim.history += [
            Played(step.number, p.a, p.b, pts, MATCH)
            for p, pts in zip(step.pairings, points, strict=True)
        ]
        sim.history += [Played(step.number, b, None, kind=BYE) for b in step.byes]
        f = Field(f.entrants, f.rounds, step.number)
    sim.standings = swiss.order(f, sim.history)
    return sim
