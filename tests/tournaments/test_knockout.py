"""Knockout (pure): brackets of 2 to 17 entrants played to the end with drawn ties, decisive
games and withdrawals; double round robin sides; the format registry."""

from __future__ import annotations

import random

import pytest

from tournaments.formats import FORMATS, Entrant, Field, Finished, Played, Round, get_format
from tournaments.formats.base import BYE, DECISIVE, FORFEIT, MATCH
from tournaments.formats.knockout import (
    BY_BYE,
    BY_DECIDER,
    BY_FORFEIT,
    BY_HIGHER_SEED,
    BY_MATCH,
    Knockout,
    bracket,
    seed_order,
    slot_seeds,
)
from tournaments.pairing import double_round_robin


def _play_out(
    n: int,
    seed: int,
    withdraw: set[int] = frozenset(),  # type: ignore[assignment]
) -> tuple[Field, list[Played], list[Round]]:
    """Play a knockout of ``n`` (ratings random) to the end: results random with many draws;
    ``withdraw`` engines leave before the start."""
    rng = random.Random(seed)
    entrants = tuple(
        Entrant(i, rng.choice([1400.0, 1500.0, 1600.0, 1700.0]), i in withdraw) for i in range(n)
    )
    ko = Knockout()
    field = Field(entrants)
    history: list[Played] = []
    steps: list[Round] = []
    for _ in range(100):
        step = ko.next_round(field, history)
        if isinstance(step, Finished):
            assert step.reason == ""
            return field, history, steps
        steps.append(step)
        kind = DECISIVE if step.best_of == 1 else MATCH
        history += [
            Played(step.number, p.a, p.b, rng.choice([1.0, 0.5, 0.5, 0.0]), kind)
            for p in step.pairings
        ]
        history += [Played(step.number, b, None, kind=BYE) for b in step.byes]
        history += [Played(step.number, p.a, p.b, 1.0, FORFEIT) for p in step.forfeits]
        field = Field(entrants, round=step.number)
    raise AssertionError("the knockout did not end")


def test_the_bracket_slots_keep_the_top_seeds_apart() -> None:
    assert slot_seeds(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert slot_seeds(2) == [1, 2]


def test_entrants_are_seeded_by_rating_then_entry_order() -> None:
    field = Field((Entrant(0, 1500.0), Entrant(1, 1700.0), Entrant(2, 1500.0), Entrant(3, 1900.0)))
    assert seed_order(field) == [3, 1, 0, 2]


@pytest.mark.parametrize("n", range(2, 18))
def test_a_knockout_of_n_entrants_plays_out_to_one_champion(n: int) -> None:
    for seed in (1, 2, 3):
        field, history, steps = _play_out(n, seed)
        size = 1 << (n - 1).bit_length()
        seeds = seed_order(field)
        rank = {p: i for i, p in enumerate(seeds)}
        first = steps[0]
        # Byes go to the top P-n seeds, in round 1 only.
        assert sorted(first.byes) == sorted(seeds[: size - n])
        assert all(not s.byes for s in steps[1:])
        # Every main match has the higher seed as engine_a; deciders alternate sides.
        rounds = bracket(field, history)
        assert len(rounds) == (size - 1).bit_length()
        assert [len(r) for r in rounds] == [size >> k for k in range(1, len(rounds) + 1)]
        for number, ties in enumerate(rounds, start=1):
            mains = [s for s in steps if s.number == number and s.best_of == 3]
            assert len(mains) == 1
            for p in mains[0].pairings:
                assert rank[p.a] < rank[p.b]
            for t in ties:
                assert t.winner in (t.high, t.low)
                deciders = [
                    p
                    for p in history
                    if p.kind == DECISIVE and p.round == number and {p.a, p.b} == {t.high, t.low}
                ]
                if t.decided_by == BY_BYE:
                    assert t.low is None and number == 1
                elif t.decided_by == BY_MATCH:
                    assert t.match_points in (0.0, 1.0) and not deciders
                elif t.decided_by == BY_DECIDER:
                    assert t.match_points == 0.5 and 1 <= len(deciders) <= 2
                    assert deciders[0].a == t.low  # the lower seed South in attempt 1
                    if len(deciders) == 2:
                        assert deciders[1].a == t.high
                else:
                    assert t.decided_by == BY_HIGHER_SEED
                    assert t.winner == t.high and len(deciders) == 2
                    assert all(d.points_a == 0.5 for d in deciders)
        # Standings: the champion first, then the finalist; everyone listed once.
        final = rounds[-1][0]
        order = Knockout().order(field, history)
        assert [r.player for r in order][:2] == [
            final.winner,
            final.low if final.winner == final.high else final.high,
        ]
        assert [r.rank for r in order][:2] == [1, 2]
        assert sorted(r.player for r in order) == list(range(n))


def test_a_withdrawn_entrant_forfeits_its_ties() -> None:
    field, history, steps = _play_out(6, 4, withdraw={1, 4})
    ties = [t for rnd in bracket(field, history) for t in rnd]
    assert any(t.decided_by == BY_FORFEIT for t in ties)
    for t in ties:
        pair = {t.high, t.low}
        if t.low is not None and pair & {1, 4} and pair - {1, 4}:  # one withdrawn engine
            assert t.decided_by == BY_FORFEIT and t.winner not in (1, 4)
    assert all(1 not in (p.a, p.b) and 4 not in (p.a, p.b) for s in steps for p in s.pairings)


def test_a_double_round_robin_gives_each_engine_south_once_against_each_opponent() -> None:
    for n in range(2, 12):
        rounds = double_round_robin(n)
        pairs = [(p.a, p.b) for rnd in rounds for p in rnd]
        assert sorted(pairs) == sorted((a, b) for a in range(n) for b in range(n) if a != b)
        for player in range(n):
            assert sum(a == player for a, _ in pairs) == n - 1
            assert sum(player in (a, b) for a, b in pairs) == 2 * (n - 1)
        for rnd in rounds:  # nobody twice in a round
            seen = [x for p in rnd for x in (p.a, p.b)]
            assert len(seen) == len(set(seen))


def test_the_registry_holds_the_five_formats_and_what_each_decides() -> None:
    assert list(FORMATS) == ["round_robin", "double_round_robin", "gauntlet", "swiss", "knockout"]
    assert [f.known_up_front for f in FORMATS.values()] == [True, True, True, False, False]
    assert get_format("swiss").tie_breaks == ("buchholz", "sonneborn_berger")
    assert get_format("round_robin").ranking == (
        "points",
        "sonneborn_berger",
        "head_to_head",
        "games_won",
    )
    assert len(get_format("double_round_robin").possible_pairs(4)) == 12
    assert len(get_format("knockout").possible_pairs(4)) == 6
    with pytest.raises(KeyError):
        get_format("ladder")


def test_formats_known_up_front_forfeit_a_withdrawn_engines_pairings() -> None:
    field = Field(tuple(Entrant(i, withdrawn=i in (0, 3)) for i in range(4)))
    step = get_format("round_robin").first_round(field)
    assert isinstance(step, Round)
    # Round 1 of the Berger table for four: 0-3 and 1-2. Both of 0-3 withdrew: dropped.
    assert [(p.a, p.b) for p in step.pairings] == [(1, 2)]
    assert step.forfeits == ()
    step2 = get_format("round_robin").next_round(Field(field.entrants, round=1), ())
    assert isinstance(step2, Round)
    assert {(p.a, p.b) for p in step2.forfeits} <= {(1, 0), (2, 0), (1, 3), (2, 3)}
    assert len(step2.forfeits) == 2 and not step2.pairings


def test_a_tie_whose_match_was_never_created_is_paired_again_or_forfeited() -> None:
    entrants = tuple(Entrant(i, 1500.0 - i) for i in range(4))  # seeds = entry order
    ko = Knockout()
    history = [Played(1, 0, 3, 1.0)]  # 1 v 4 played; 2 v 3 was never created
    again = ko.next_round(Field(entrants, round=1), history)
    assert isinstance(again, Round)
    assert (again.number, [(p.a, p.b) for p in again.pairings], again.best_of) == (1, [(1, 2)], 3)
    gone = tuple(Entrant(i, 1500.0 - i, withdrawn=(i == 2)) for i in range(4))
    forfeit = ko.next_round(Field(gone, round=1), history)
    assert isinstance(forfeit, Round)
    assert ([(p.a, p.b) for p in forfeit.forfeits], forfeit.pairings) == ([(1, 2)], ())
