"""Swiss pairing (pure): every rule checked on every round of simulated fields of 2 to 40
engines, odd and even, up to the allowed number of rounds; the early end; the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import networkx as nx
import pytest

from tournaments.formats import Entrant, Field, Finished, FormatError, Played, Round
from tournaments.formats.base import BYE, MATCH, met
from tournaments.formats.simulate import SimulatedSwiss, simulate_swiss
from tournaments.formats.swiss import Swiss, side_records

ROOT = Path(__file__).resolve().parents[2]


def _independent_min_cost(
    players: list[int], forbidden: set[frozenset[int]], cost: Callable[[int, int], int]
) -> int:
    """The least total ``cost(a, b)`` of a perfect repeat-free pairing of ``players``, by a
    min-weight matching of its own (checks the lexicographic weights of the format)."""
    graph: nx.Graph[int] = nx.Graph()
    for k, a in enumerate(players):
        for b in players[k + 1 :]:
            if frozenset((a, b)) not in forbidden:
                graph.add_edge(a, b, weight=cost(a, b))
    matching = nx.min_weight_matching(graph)
    assert len(matching) * 2 == len(players)
    return sum(cost(a, b) for a, b in matching)


def _check_round(sim: SimulatedSwiss, index: int) -> None:
    """Every Swiss rule on round ``index`` of ``sim``, from the history before it."""
    swiss = Swiss()
    rnd: Round = sim.rounds[index]
    before = [p for p in sim.history if p.round < rnd.number]
    n = len(sim.names)
    field = Field(tuple(Entrant(i) for i in range(n)), rounds=len(sim.rounds), round=index)
    rows = swiss.order(field, before)
    points2 = {r.player: round(r.points * 2) for r in rows}
    forbidden = met(before)
    paired = [p for pr in rnd.pairings for p in (pr.a, pr.b)]
    # Everybody plays once: paired or the bye.
    assert sorted(paired + list(rnd.byes)) == list(range(n))
    # 1. No pairing repeats.
    assert not [pr for pr in rnd.pairings if frozenset((pr.a, pr.b)) in forbidden]
    # 2. A bye only with an odd field, at most one per engine, to the lowest-ranked engine
    # without one for which the others pair without repeats.
    had_bye = {p.a for p in before if p.kind == BYE}
    assert len(rnd.byes) == n % 2
    if rnd.byes:
        (bye,) = rnd.byes
        assert bye not in had_bye
        ranked = [r.player for r in rows]
        lower = ranked[ranked.index(bye) + 1 :]
        from tournaments.formats.swiss import perfect_matching_exists

        for other in lower:  # everyone ranked below had a bye or could not take it
            rest = [p for p in range(n) if p != other]
            assert other in had_bye or not perfect_matching_exists(rest, forbidden)
    # 3. As few engines as possible outside their score group, then the smallest squared
    # score differences.
    players = sorted(paired)
    cross = sum(points2[pr.a] != points2[pr.b] for pr in rnd.pairings)
    least_cross = _independent_min_cost(
        players, forbidden, lambda a, b: int(points2[a] != points2[b])
    )
    assert cross == least_cross
    big = 10_000
    squares = sum((points2[pr.a] - points2[pr.b]) ** 2 for pr in rnd.pairings)
    least = _independent_min_cost(
        players,
        forbidden,
        lambda a, b: big * int(points2[a] != points2[b]) + (points2[a] - points2[b]) ** 2,
    )
    assert big * cross + squares == least
    # 4. Sides: inside each pairing, South goes to the engine that was South less often.
    sides = side_records(before)
    for pr in rnd.pairings:
        south, north = sides.get(pr.a), sides.get(pr.b)
        sb = south.balance if south else 0
        nb = north.balance if north else 0
        assert sb <= nb


FIELDS = [(n, n - 1) for n in range(2, 13)] + [
    (13, 8),
    (16, 6),
    (17, 9),
    (20, 7),
    (23, 10),
    (25, 5),
    (31, 6),
    (32, 7),
    (39, 7),
    (40, 9),
]


@pytest.mark.parametrize(("players", "rounds"), FIELDS)
def test_every_swiss_rule_holds_on_every_round(players: int, rounds: int) -> None:
    for seed in (1, 2):
        sim = simulate_swiss(players, rounds, seed)
        if sim.end_reason:
            # Ended early only when no repeat-free pairing exists (checked by brute force
            # on the matching graph).
            assert "no pairing without repeats" in sim.end_reason
            assert len(sim.rounds) < rounds
        else:
            assert len(sim.rounds) == rounds
        for index in range(len(sim.rounds)):
            _check_round(sim, index)
        # At most one bye each, and each bye scored one point.
        byes = Counter(p.a for p in sim.history if p.kind == BYE)
        assert all(v == 1 for v in byes.values())
        assert {r.player: r.byes for r in sim.standings if r.byes} == dict(byes)


def test_sides_stay_balanced_in_a_long_even_swiss() -> None:
    sim = simulate_swiss(10, 9, 5)
    sides = side_records(sim.history)
    assert max(abs(s.balance) for s in sides.values()) <= 2


def test_a_bye_counts_for_buchholz_as_an_opponent_with_the_engines_own_score() -> None:
    history = [Played(1, 0, 1, 1.0, MATCH), Played(1, 2, None, kind=BYE)]
    field = Field(tuple(Entrant(i) for i in range(3)), rounds=2, round=1)
    rows = {r.player: r for r in Swiss().order(field, history)}
    assert (rows[2].points, rows[2].byes, rows[2].buchholz, rows[2].matches) == (1.0, 1, 1.0, 0)
    assert (rows[0].buchholz, rows[1].buchholz) == (0.0, 1.0)
    # Equal on points: Buchholz first (0 has 0, the bye engine 1): 2 ranks above 0.
    assert [r.player for r in Swiss().order(field, history)] == [2, 0, 1]


def test_the_event_ends_early_when_no_repeat_free_pairing_exists() -> None:
    # Six engines, three rounds that leave only the triangles {0,1,2} and {3,4,5} unplayed:
    # no perfect pairing without a repeat exists for round 4.
    rounds = [[(0, 3), (1, 4), (2, 5)], [(4, 0), (5, 1), (3, 2)], [(0, 5), (1, 3), (2, 4)]]
    history = [Played(k, a, b, 0.5) for k, rnd in enumerate(rounds, start=1) for a, b in rnd]
    field = Field(tuple(Entrant(i) for i in range(6)), rounds=5, round=3)
    step = Swiss().next_round(field, history)
    assert step == Finished("no pairing without repeats exists for round 4 (6 engines)")


def test_withdrawn_engines_are_no_longer_paired() -> None:
    entrants = tuple(Entrant(i, withdrawn=(i == 2)) for i in range(5))
    field = Field(entrants, rounds=3, round=1)
    history = [Played(1, 0, 1, 1.0), Played(1, 2, 3, 0.0), Played(1, 4, None, kind=BYE)]
    step = Swiss().next_round(field, history)
    assert isinstance(step, Round)
    assert 2 not in {p for pr in step.pairings for p in (pr.a, pr.b)} | set(step.byes)
    assert step.byes == ()  # four engines left: no bye


@pytest.mark.parametrize(
    ("players", "rounds", "code"),
    [(5, 5, "too_many_rounds"), (2, 2, "too_many_rounds"), (1, None, "too_few_engines")],
)
def test_more_rounds_than_engines_minus_one_are_refused(
    players: int, rounds: int | None, code: str
) -> None:
    with pytest.raises(FormatError) as exc:
        Swiss().check(players, rounds)
    assert exc.value.code == code


def test_the_default_number_of_rounds_is_log2_of_the_field() -> None:
    assert [Swiss().check(n, None) for n in (2, 3, 8, 9, 40)] == [1, 2, 3, 4, 6]


def test_the_command_prints_the_issues_json_shape() -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "tournaments.pairing",
            "swiss-simulate",
            "--players",
            "7",
            "--rounds",
            "4",
            "--seed",
            "3",
            "--json",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    data = json.loads(out)
    assert set(data) == {"rounds", "standings"}
    assert len(data["rounds"]) == 4
    for rnd in data["rounds"]:
        assert set(rnd) == {"pairings", "bye", "results"}
        assert len(rnd["pairings"]) == 3 and len(rnd["results"]) == 3
        assert rnd["bye"] in {f"p0{i}" for i in range(1, 8)}
        assert set(rnd["results"]) <= {1, 0.5, 0}
    assert sorted(r["player"] for r in data["standings"]) == [f"p0{i}" for i in range(1, 8)]
    assert sum(r["points"] for r in data["standings"]) == 4 * 4  # 3 matches + a bye a round
    again = subprocess.run(
        [
            sys.executable,
            "-m",
            "tournaments.pairing",
            "swiss-simulate",
            "--players",
            "7",
            "--rounds",
            "4",
            "--seed",
            "3",
            "--json",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    assert again == out  # the seed decides everything


def test_the_command_refuses_too_many_rounds() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tournaments.pairing",
            "swiss-simulate",
            "--players",
            "4",
            "--rounds",
            "4",
            "--seed",
            "1",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "1 to 3 rounds" in done.stderr
