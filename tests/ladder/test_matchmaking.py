"""The ladder's matchmaker (ladder.matchmaking) and its simulation (ladder.simulate)."""

import json
import math
import random

import numpy as np
import pytest

from ladder import simulate as ladder
from ladder.matchmaking import (
    GAMES_PER_MATCH,
    PLACEMENT_MATCHES,
    UNRATED_SE,
    LadderEntry,
    choose_pairings,
    discordance_drop,
    rating_covariance,
)


def entry(key, rating=1500.0, half_width=50.0, matches=10, placement_left=0, last=None):
    return LadderEntry(key, rating, half_width, matches, placement_left, last)


def test_each_engine_is_paired_at_most_once_and_never_with_itself():
    entries = [entry(f"e{i}", 1400 + 10 * i, matches=i % 3) for i in range(9)]
    pairings = choose_pairings(entries, 10, random.Random(1))
    assert len(pairings) == 4  # 9 free engines make 4 pairs
    keys = [k for pair in pairings for k in pair]
    assert len(keys) == len(set(keys))
    assert all(a != b for a, b in pairings)


def test_it_pairs_no_more_than_wanted():
    entries = [entry(f"e{i}") for i in range(10)]
    assert len(choose_pairings(entries, 2, random.Random(1))) == 2
    assert choose_pairings(entries, 0, random.Random(1)) == []
    assert choose_pairings(entries[:1], 3, random.Random(1)) == []


def test_a_newcomer_is_served_first_and_meets_the_field_low_middle_and_high():
    field = [entry(f"e{i}", 1200 + 60 * i) for i in range(11)]  # 1200 .. 1800
    met = []
    last = None
    for left in range(PLACEMENT_MATCHES, 0, -1):
        new = entry(
            "new", half_width=None, matches=PLACEMENT_MATCHES - left, placement_left=left, last=last
        )
        pairings = choose_pairings([*field, new], 1, random.Random(left))
        assert pairings[0][0] == "new"
        last = pairings[0][1]
        met.append(next(e.rating for e in field if e.key == last))
    assert met == sorted(met)
    assert met[0] <= 1400 and 1400 < met[1] < 1600 and met[2] >= 1600


def test_it_prefers_the_closest_rating_among_equally_known_opponents():
    entries = [
        entry("a", 1500, matches=0),
        entry("far", 1900),
        entry("near", 1530),
        entry("mid", 1700),
    ]
    assert choose_pairings(entries, 1, random.Random(3)) == [("a", "near")]


def test_a_wide_interval_is_worth_more_than_a_narrow_one_at_the_same_distance():
    entries = [
        entry("a", 1500, matches=0),
        entry("known", 1560, half_width=20),
        entry("unknown", 1440, half_width=200),
    ]
    assert choose_pairings(entries, 1, random.Random(3)) == [("a", "unknown")]


def test_the_engine_with_the_fewest_matches_is_served_first():
    entries = [
        entry("busy", matches=20),
        entry("idle", matches=3),
        entry("x", matches=12),
        entry("y", matches=12),
    ]
    assert choose_pairings(entries, 1, random.Random(5))[0][0] == "idle"


def test_an_engine_far_above_the_median_waits():
    entries = [entry(f"e{i}", matches=10) for i in range(6)] + [entry("hog", matches=30)]
    pairings = choose_pairings(entries, 10, random.Random(2))
    assert "hog" not in {k for pair in pairings for k in pair}


def test_the_same_pairing_is_not_made_back_to_back_when_another_exists():
    entries = [
        entry("a", 1500, matches=0, last="b"),
        entry("b", 1501, matches=1, last="a"),
        entry("c", 1700, matches=1),
    ]
    assert choose_pairings(entries, 1, random.Random(1)) == [("a", "c")]
    # With no one else, the rematch is made rather than nothing.
    assert choose_pairings(entries[:2], 1, random.Random(1)) == [("a", "b")]


def test_the_same_seed_gives_the_same_pairings():
    entries = [entry(f"e{i}", 1500 + (i * 37) % 200, matches=i % 4) for i in range(20)]
    first = choose_pairings(entries, 6, random.Random(42))
    assert first == choose_pairings(entries, 6, random.Random(42))


def test_duplicate_keys_are_refused():
    with pytest.raises(ValueError):
        choose_pairings([entry("a"), entry("a")], 1, random.Random(1))


def test_a_best_of_three_stops_after_two_wins_and_plays_a_third_game_otherwise():
    true = {"strong": 3000.0, "weak": 0.0, "x": 1500.0, "y": 1500.0}
    games = ladder.best_of_three(true, "strong", "weak", random.Random(1))
    assert games == [("strong", "weak", 1.0), ("weak", "strong", 0.0)]
    lengths = {len(ladder.best_of_three(true, "x", "y", random.Random(s))) for s in range(50)}
    assert lengths == {2, 3}


def test_simulated_draws_follow_the_stated_share():
    rng = random.Random(7)
    true = {"a": 1500.0, "b": 1500.0}
    results = [ladder.game_result(true, "a", "b", rng) for _ in range(20000)]
    # p = 0.5: draws 0.8 * 0.25 = 0.2, each side wins 0.4.
    assert results.count(0.5) / 20000 == pytest.approx(0.2, abs=0.015)
    assert results.count(1.0) / 20000 == pytest.approx(0.4, abs=0.015)


def test_simulate_prints_checkpoints_as_json(capsys):
    argv = ["simulate", "--players", "8", "--matches", "200", "--seed", "3", "--json"]
    assert ladder.main(argv) == 0
    checkpoints = json.loads(capsys.readouterr().out)["checkpoints"]
    assert [c["matches"] for c in checkpoints] == [100, 200]
    assert set(checkpoints[0]) == {"matches", "games", "tau_ladder", "tau_round_robin"}
    assert all(-1 <= c["tau_ladder"] <= 1 and -1 <= c["tau_round_robin"] <= 1 for c in checkpoints)
    assert 200 <= checkpoints[0]["games"] <= 300  # best of three: 2 or 3 games a match
    assert ladder.main(argv) == 0
    assert json.loads(capsys.readouterr().out)["checkpoints"] == checkpoints  # seeded


def test_spread_replays_the_same_true_ratings_under_other_draws(capsys):
    argv = ["spread", "--players", "10", "--matches", "400", "--seed", "2", "--draws", "3",
            "--json"]  # fmt: skip
    assert ladder.main(argv) == 0
    rows = json.loads(capsys.readouterr().out)["draws"]
    assert [r["draw"] for r in rows] == [1, 2, 3]
    reached = [r[k] for r in rows for k in ("ladder", "round_robin") if r[k] is not None]
    assert reached and all(x % 100 == 0 and 100 <= x <= 400 for x in reached)
    # Each draw is the simulation of the same players under that draw's results: the first
    # crossing it reports is the one its checkpoints show.
    checkpoints = ladder.simulate(10, 400, 2, draw="/draw-2")
    assert rows[1]["round_robin"] == ladder.matches_to_reach(checkpoints, "tau_round_robin")
    assert ladder.simulate(10, 100, 2, draw="/draw-1") != ladder.simulate(10, 100, 2)
    assert ladder.main(argv) == 0
    assert json.loads(capsys.readouterr().out)["draws"] == rows  # seeded
    assert ladder.main([*argv, "--yardstick", "2"]) == 0
    with_yardstick = json.loads(capsys.readouterr().out)["draws"]
    assert [{k: r[k] for k in rows[0]} for r in with_yardstick] == rows
    assert all(r["yardstick"] is None or r["yardstick"] % 100 == 0 for r in with_yardstick)
    with pytest.raises(SystemExit) as caught:
        ladder.main(["spread", "--players", "10", "--matches", "100", "--seed", "1",
                     "--draws", "0"])  # fmt: skip
    assert caught.value.code == 2


def test_the_yardstick_plays_only_pairs_close_in_the_true_order():
    true = {"a": 1000.0, "b": 1200.0, "c": 1400.0, "d": 1600.0, "e": 1800.0}
    schedule = ladder.neighbour_schedule(list(true), true, 1, random.Random(4))
    pairs = [frozenset(next(schedule)[0][:2]) for _ in range(8)]
    assert set(pairs) == {frozenset(p) for p in ("ab", "bc", "cd", "de")}
    assert sorted(map(sorted, pairs[:4])) == [["a", "b"], ["b", "c"], ["c", "d"], ["d", "e"]]


def test_simulate_refuses_a_field_of_one(capsys):
    with pytest.raises(SystemExit) as caught:
        ladder.main(["simulate", "--players", "1", "--matches", "10", "--seed", "1"])
    assert caught.value.code == 2


def test_a_rival_met_often_gives_way_to_a_new_neighbour():
    entries = [
        entry("a", 1500, matches=0),
        entry("rival", 1510),
        entry("new", 1540),
        entry("far", 1900),
    ]
    assert choose_pairings(entries, 1, random.Random(1)) == [("a", "rival")]
    met = {frozenset(("a", "rival")): 3}
    assert choose_pairings(entries, 1, random.Random(1), met) == [("a", "new")]


def test_engines_that_must_not_meet_are_never_paired():
    owners = {"a1": "alice", "a2": "alice", "b1": "bob", "b2": "bob"}
    entries = [entry(k, 1500 + i, matches=i) for i, k in enumerate(owners)]
    pairings = choose_pairings(
        entries, 2, random.Random(4), compatible=lambda x, y: owners[x] != owners[y]
    )
    assert len(pairings) == 2
    assert all(owners[a] != owners[b] for a, b in pairings)
    alone = [entry("a1", matches=0), entry("a2", matches=0)]
    assert choose_pairings(alone, 1, random.Random(4), compatible=lambda x, y: False) == []


def test_the_covariance_of_two_engines_comes_from_their_meetings():
    # Two level engines met 4 times (10 games of information beta^2 / 4 each), and both
    # intervals say no more than that: each keeps only the weak prior 1 / (2 * 350)^2 besides.
    beta = math.log(10) / 400
    link = 4 * GAMES_PER_MATCH * beta**2 / 4
    prior = 1 / (2 * UNRATED_SE) ** 2
    entries = [entry("a", half_width=500), entry("b", half_width=500)]
    cov = rating_covariance(entries, {frozenset(("a", "b")): 4})
    difference = cov[0, 0] + cov[1, 1] - 2 * cov[0, 1]
    assert difference == pytest.approx(2 / (prior + 2 * link))
    assert math.sqrt(difference) == pytest.approx(109.2, abs=0.1)  # Elo


def test_a_match_is_worth_more_between_strangers_than_between_old_rivals():
    entries = [entry("a", 1500), entry("rival", 1520), entry("stranger", 1480)]
    ratings = np.array([e.rating for e in entries])
    cov = rating_covariance(entries, {frozenset(("a", "rival")): 6})
    rival, stranger = discordance_drop(ratings, cov, 0, [1, 2])
    assert stranger > rival > 0


def test_resting_engines_serve_those_that_may_meet_nobody_else():
    # One owner's engines beside the bundled ones (the only other owner), which are far above
    # the median: they rest, but still serve a placement and the engines that may meet nobody
    # else, so the ladder never stalls with slots free (a trial's ladder did for minutes).
    owners = {"bundled-a": "arena", "bundled-b": "arena"}
    owners |= {f"mine-{i}": "amina" for i in range(6)} | {"new": "amina"}
    entries = [entry("bundled-a", matches=16), entry("bundled-b", matches=16)]
    entries += [entry(f"mine-{i}", matches=m) for i, m in enumerate([3, 3, 13, 13, 13, 13])]
    entries += [entry("new", half_width=None, matches=0, placement_left=PLACEMENT_MATCHES)]
    pairings = choose_pairings(
        entries, 2, random.Random(5), compatible=lambda x, y: owners[x] != owners[y]
    )
    assert len(pairings) == 2
    assert pairings[0][0] == "new" and pairings[0][1].startswith("bundled-")
    assert pairings[1][0] in {"mine-0", "mine-1"} and pairings[1][1].startswith("bundled-")
    # Where everyone may meet everyone and nobody owes placement, they keep resting.
    settled = [e for e in entries if e.key != "new"]
    paired = {k for pair in choose_pairings(settled, 3, random.Random(5)) for k in pair}
    assert len(paired) == 6 and not any(k.startswith("bundled-") for k in paired)
