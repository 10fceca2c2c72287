"""Ladder simulation (pure, no Django): how fast does the matchmaker find the true order?

``python -m ladder.simulate simulate --players N --matches M --seed S [--slots K] [--json]``
runs the real matchmaker (``ladder.matchmaking``) and the real rating fit
(``ratings.stats.whr.fit``) against ``N`` simulated players ``p01..pNN`` whose true ratings are
drawn from a normal distribution (mean 1500, sd 200). Each game is drawn from the logistic model
with draws: with ``p`` South's expected score (``1 / (1 + 10^(-d/400))``), a draw has
probability ``0.8 p (1 - p)``, a South win ``p - d/2`` and a North win ``1 - p - d/2``. Each
match is a best-of-three as in the arena (``arena.referee.match``): game 1 with the first-named
player South, game 2 swapped, game 3 only while the leader is not more than one point ahead,
South drawn at random.

The ladder plays in batches of ``K`` matches (the free slots the arena would offer; the fit is
refreshed after each batch, as the service refits after recorded matches). The baseline plays
the same number of matches in Berger-table order (``tournaments.pairing.round_robin``, cycled).
Every 100 matches both fits are compared with the true ratings by Kendall's tau (tau-b; an
engine not yet rated counts at the pool mean).

Output: one line per checkpoint, then for each schedule the matches it needed to reach tau 0.9
(``--json``: ``{"checkpoints": [{"matches", "games", "tau_ladder", "tau_round_robin"}, ...]}``;
``games`` is the ladder's game count).

``python -m ladder.simulate spread --players N --matches M --seed S --draws D [--json]``
keeps the true ratings of seed ``S`` and plays both schedules again under ``D`` other draws of
the game results (and of the matchmaker's own choices), printing for each draw the first
checkpoint at which each schedule reaches tau 0.9, then their means. It separates what the
schedule does from the luck of one draw: on one set of true ratings the round robin alone
crosses anywhere in a range about three times as wide as its low end. ``--yardstick K`` adds
a third schedule no matchmaker can have: it knows the true order and plays only pairs at most
``K`` places apart in it (shuffled, cycled), a yardstick for what close pairings can gain.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass, field

from scipy.stats import kendalltau

from ladder.matchmaking import PLACEMENT_MATCHES, LadderEntry, choose_pairings
from ratings.stats.whr.fit import fit
from tournaments.pairing import round_robin

Game = tuple[str, str, float]

#: Mean and standard deviation of the simulated true ratings (Elo).
TRUE_MEAN, TRUE_SD = 1500.0, 200.0
#: Draw share of the model: P(draw) = DRAW_FACTOR * p * (1 - p).
DRAW_FACTOR = 0.8
CHECKPOINT_EVERY = 100
TARGET_TAU = 0.9


def game_result(true: dict[str, float], south: str, north: str, rng: random.Random) -> float:
    """South's score (1, 0.5 or 0) in one simulated game (module docstring's model)."""
    p = 1 / (1 + 10 ** ((true[north] - true[south]) / 400))
    draw = DRAW_FACTOR * p * (1 - p)
    u = rng.random()
    if u < p - draw / 2:
        return 1.0
    if u < p + draw / 2:
        return 0.5
    return 0.0


def best_of_three(true: dict[str, float], a: str, b: str, rng: random.Random) -> list[Game]:
    """The games of one simulated match between ``a`` and ``b`` as ``(south, north, score)``."""
    games = [(a, b, game_result(true, a, b, rng)), (b, a, game_result(true, b, a, rng))]
    score_a = games[0][2] + 1 - games[1][2]
    if abs(score_a - (2 - score_a)) <= 1:
        south, north = (a, b) if rng.randrange(2) == 0 else (b, a)
        games.append((south, north, game_result(true, south, north, rng)))
    return games


def kendall_tau(true: dict[str, float], games: Sequence[Game]) -> float:
    """Kendall's tau-b between the true ratings and those fitted to ``games``."""
    result = fit(games)
    fitted = {r.engine: r.rating for r in result.ratings}
    names = sorted(true)
    tau = kendalltau([true[n] for n in names], [fitted.get(n, 1500.0) for n in names]).statistic
    return float(tau)


@dataclass
class _LadderState:
    players: list[str]
    matches: dict[str, int] = field(default_factory=dict)
    placement: dict[str, int] = field(default_factory=dict)
    last: dict[str, str | None] = field(default_factory=dict)
    met: Counter[frozenset[Hashable]] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        for p in self.players:
            self.matches[p] = 0
            self.placement[p] = PLACEMENT_MATCHES
            self.last[p] = None

    def entries(self, games: Sequence[Game]) -> list[LadderEntry]:
        rated = {r.engine: r for r in fit(games).ratings} if games else {}
        out = []
        for p in self.players:
            r = rated.get(p)
            out.append(
                LadderEntry(
                    key=p,
                    rating=r.rating if r else 1500.0,
                    half_width=r.half_width if r else None,
                    matches=self.matches[p],
                    placement_left=self.placement[p],
                    last_opponent=self.last[p],
                )
            )
        return out

    def played(self, a: str, b: str) -> None:
        self.met[frozenset((a, b))] += 1
        for x, y in ((a, b), (b, a)):
            self.matches[x] += 1
            self.placement[x] = max(0, self.placement[x] - 1)
            self.last[x] = y


def ladder_schedule(
    players: list[str], true: dict[str, float], slots: int, rng: random.Random
) -> Iterator[list[Game]]:
    """The ladder's matches, one list of games per match, without end."""
    state = _LadderState(players)
    games: list[Game] = []
    while True:
        pairings = choose_pairings(state.entries(games), slots, rng, state.met)
        for a, b in pairings:
            assert isinstance(a, str) and isinstance(b, str)
            match = best_of_three(true, a, b, rng)
            games.extend(match)
            state.played(a, b)
            yield match


def round_robin_schedule(
    players: list[str], true: dict[str, float], rng: random.Random
) -> Iterator[list[Game]]:
    """Berger-table matches, cycled, one list of games per match, without end."""
    rounds = round_robin(len(players))
    while True:
        for pairs in rounds:
            for pairing in pairs:
                yield best_of_three(true, players[pairing.a], players[pairing.b], rng)


def neighbour_schedule(
    players: list[str], true: dict[str, float], reach: int, rng: random.Random
) -> Iterator[list[Game]]:
    """The yardstick of ``spread --yardstick``: every pair at most ``reach`` places apart in
    the true order, shuffled, cycled; one list of games per match, without end."""
    order = sorted(players, key=lambda p: true[p])
    pairs = [(order[i], order[i + d]) for d in range(1, reach + 1) for i in range(len(order) - d)]
    while True:
        rng.shuffle(pairs)
        for a, b in pairs:
            yield best_of_three(true, a, b, rng)


def _first_reach(
    true: dict[str, float], schedule: Iterator[list[Game]], matches: int
) -> int | None:
    """The first checkpoint (every ``CHECKPOINT_EVERY`` matches) at which ``schedule``'s fit
    reaches tau :data:`TARGET_TAU`, None if not within ``matches``."""
    games: list[Game] = []
    for played in range(1, matches + 1):
        games.extend(next(schedule))
        if played % CHECKPOINT_EVERY == 0 and kendall_tau(true, games) >= TARGET_TAU:
            return played
    return None


def true_ratings(players: int, seed: int) -> dict[str, float]:
    """The simulated players ``p01..pNN`` of ``seed`` with their true ratings (Elo)."""
    names = [f"p{i:02d}" for i in range(1, players + 1)]
    rng = random.Random(f"bao-arena/ladder-simulate/{seed}")
    return {n: rng.gauss(TRUE_MEAN, TRUE_SD) for n in names}


def simulate(
    players: int, matches: int, seed: int, slots: int = 4, draw: str = ""
) -> list[dict[str, float]]:
    """The checkpoints of one simulation (see the module docstring). ``draw`` names another
    draw of the results on the same true ratings ("" is the seed's own). Raises ``ValueError``
    for fewer than 2 players, fewer than 1 match or fewer than 1 slot."""
    if players < 2 or matches < 1 or slots < 1:
        raise ValueError("need at least 2 players, 1 match and 1 slot")
    true = true_ratings(players, seed)
    names = list(true)
    ladder = ladder_schedule(names, true, slots, random.Random(f"{seed}{draw}/ladder"))
    baseline = round_robin_schedule(names, true, random.Random(f"{seed}{draw}/round-robin"))
    ladder_games: list[Game] = []
    baseline_games: list[Game] = []
    checkpoints: list[dict[str, float]] = []
    for played in range(1, matches + 1):
        ladder_games.extend(next(ladder))
        baseline_games.extend(next(baseline))
        if played % CHECKPOINT_EVERY == 0 or played == matches:
            checkpoints.append(
                {
                    "matches": played,
                    "games": len(ladder_games),
                    "tau_ladder": round(kendall_tau(true, ladder_games), 4),
                    "tau_round_robin": round(kendall_tau(true, baseline_games), 4),
                }
            )
    return checkpoints


def matches_to_reach(checkpoints: Sequence[dict[str, float]], key: str) -> int | None:
    """The first checkpoint's match count whose ``key`` tau is at least :data:`TARGET_TAU`."""
    return next((int(c["matches"]) for c in checkpoints if c[key] >= TARGET_TAU), None)


def spread(
    players: int, matches: int, seed: int, draws: int, slots: int = 4, yardstick: int = 0
) -> list[dict[str, int | None]]:
    """For each of ``draws`` draws of the results on the true ratings of ``seed``:
    ``{"draw", "ladder", "round_robin"}`` (and ``"yardstick"`` when ``yardstick`` > 0: the
    neighbour schedule of that reach), the matches each schedule needed to reach tau 0.9
    (None: not within ``matches``). Raises ``ValueError`` as :func:`simulate`, and for fewer
    than 1 draw or a negative reach."""
    if draws < 1 or yardstick < 0:
        raise ValueError("need at least 1 draw and a reach of at least 0")
    true = true_ratings(players, seed)
    out: list[dict[str, int | None]] = []
    for k in range(1, draws + 1):
        checkpoints = simulate(players, matches, seed, slots, draw=f"/draw-{k}")
        row: dict[str, int | None] = {
            "draw": k,
            "ladder": matches_to_reach(checkpoints, "tau_ladder"),
            "round_robin": matches_to_reach(checkpoints, "tau_round_robin"),
        }
        if yardstick:
            rng = random.Random(f"{seed}/draw-{k}/yardstick")
            row["yardstick"] = _first_reach(
                true, neighbour_schedule(list(true), true, yardstick, rng), matches
            )
        out.append(row)
    return out


def _spread_main(args: argparse.Namespace) -> int:
    rows = spread(args.players, args.matches, args.seed, args.draws, args.slots, args.yardstick)
    if args.json:
        print(json.dumps({"draws": rows}))
        return 0
    keys = ["ladder", "round_robin"] + (["yardstick"] if args.yardstick else [])
    print(f"{'draw':>5}" + "".join(f" {k.replace('_', ' '):>12}" for k in keys))
    for row in rows:
        print(f"{row['draw']:>5}" + "".join(f" {row[k] or '-':>12}" for k in keys))
    baseline = [x for r in rows if (x := r["round_robin"])]
    for key in keys:
        reached = [x for r in rows if (x := r[key])]
        if reached and baseline and key != "round_robin":
            mean = sum(reached) / len(reached)
            base = sum(baseline) / len(baseline)
            print(
                f"{key}: mean {mean:.0f} over {len(reached)} draws reaching tau {TARGET_TAU}, "
                f"round robin {base:.0f} over {len(baseline)} (ratio {mean / base:.2f})"
            )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Command line; exit status 0, or 2 with a one-line error for bad arguments."""
    parser = argparse.ArgumentParser(prog="python -m ladder.simulate")
    commands = parser.add_subparsers(dest="command", required=True)
    sim = commands.add_parser("simulate", help="matchmaker against a round robin, simulated")
    spr = commands.add_parser("spread", help="the same true ratings under other draws")
    for sub in (sim, spr):
        sub.add_argument("--players", type=int, required=True)
        sub.add_argument("--matches", type=int, required=True)
        sub.add_argument("--seed", type=int, required=True)
        sub.add_argument("--slots", type=int, default=4, help="ladder matches per batch (4)")
        sub.add_argument("--json", action="store_true")
    spr.add_argument("--draws", type=int, default=8, help="draws of the results (8)")
    spr.add_argument(
        "--yardstick", type=int, default=0, metavar="K",
        help="also the schedule that knows the true order, pairs at most K places apart",
    )  # fmt: skip
    args = parser.parse_args(argv)
    try:
        if args.command == "spread":
            return _spread_main(args)
        checkpoints = simulate(args.players, args.matches, args.seed, args.slots)
    except ValueError as error:
        parser.error(str(error))
    if args.json:
        print(json.dumps({"checkpoints": checkpoints}))
        return 0
    print(f"{'matches':>8} {'games':>7} {'tau ladder':>11} {'tau round robin':>16}")
    for c in checkpoints:
        print(
            f"{c['matches']:>8} {c['games']:>7} {c['tau_ladder']:>11.4f} "
            f"{c['tau_round_robin']:>16.4f}"
        )
    ladder, baseline = (matches_to_reach(checkpoints, k) for k in ("tau_ladder", "tau_round_robin"))

    def shown(matches: int | None) -> str:
        return "not reached" if matches is None else str(matches)

    ratio = f" (ratio {ladder / baseline:.2f})" if ladder and baseline else ""
    print(
        f"tau {TARGET_TAU}: ladder after {shown(ladder)} matches, "
        f"round robin after {shown(baseline)}{ratio}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
