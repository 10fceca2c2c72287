"""Elo formulas and error bars (pure: no database)."""

from __future__ import annotations

import math

import pytest

from tournaments import ratings


def test_equal_ratings_expect_half() -> None:
    assert ratings.expected_score(1500, 1500) == 0.5


def test_a_400_point_edge_expects_ten_to_one() -> None:
    assert ratings.expected_score(1900, 1500) == pytest.approx(10 / 11)
    assert ratings.expected_score(1500, 1900) == pytest.approx(1 / 11)


def test_a_first_game_win_between_newcomers_moves_both_by_twenty() -> None:
    update = ratings.rate_game(1500.0, 0, 1500.0, 0, 1.0)
    assert (update.a_after, update.b_after, update.k_a, update.k_b) == (1520.0, 1480.0, 40.0, 40.0)


def test_a_draw_against_a_weaker_newcomer_costs_the_established_engine() -> None:
    # E(1600 vs 1400) = 1 / (1 + 10^-0.5) = 0.759747; established K 20, provisional K 40.
    update = ratings.rate_game(1600.0, 25, 1400.0, 3, 0.5)
    assert update.a_after == pytest.approx(1600 + 20 * (0.5 - 0.7597469266), abs=1e-6)
    assert update.b_after == pytest.approx(1400 + 40 * (0.5 - 0.2402530734), abs=1e-6)
    assert round(update.a_after, 3) == 1594.805
    assert round(update.b_after, 3) == 1410.390


def test_k_factor_drops_after_twenty_games() -> None:
    assert [ratings.k_factor(g) for g in (0, 19, 20, 500)] == [40.0, 40.0, 20.0, 20.0]
    assert ratings.is_provisional(19) and not ratings.is_provisional(20)


def test_a_game_score_must_be_win_draw_or_loss() -> None:
    with pytest.raises(ValueError):
        ratings.updated_rating(1500, 1500, 0.7, 40)


def test_elo_from_score_inverts_expected_score() -> None:
    assert ratings.elo_from_score(0.75) == pytest.approx(190.848501, abs=1e-6)
    assert ratings.expected_score(1500 + ratings.elo_from_score(0.3), 1500) == pytest.approx(0.3)
    with pytest.raises(ValueError):
        ratings.elo_from_score(1.0)


def test_performance_of_a_mixed_record_is_the_trinomial_interval() -> None:
    # 10 W, 5 D, 5 L: mu = 0.625, var = (10*0.375^2 + 5*0.125^2 + 5*0.625^2)/20 = 0.171875
    perf = ratings.performance(10, 5, 5)
    assert perf is not None
    half = 1.959964 * math.sqrt(0.171875 / 20)
    expected_margin = (
        ratings.elo_from_score(0.625 + half) - ratings.elo_from_score(0.625 - half)
    ) / 2
    assert perf.score == 0.625
    assert perf.elo == pytest.approx(88.7395, abs=1e-3)
    assert perf.margin == pytest.approx(expected_margin)
    assert round(perf.margin, 2) == 143.87


def test_a_perfect_record_gets_a_finite_interval_from_one_pseudo_draw() -> None:
    # 4-0 becomes 4 W 1 D: mu = 0.9, var = (4*0.01 + 0.16)/5 = 0.04, half = 1.96*sqrt(0.008)
    perf = ratings.performance(4, 0, 0)
    assert perf is not None and perf.score == 1.0
    assert perf.elo == pytest.approx(ratings.elo_from_score(0.9))
    half = 1.959964 * math.sqrt(0.04 / 5)
    hi = min(0.9 + half, 0.999)
    assert perf.margin == pytest.approx(
        (ratings.elo_from_score(hi) - ratings.elo_from_score(0.9 - half)) / 2
    )


def test_no_games_has_no_performance() -> None:
    assert ratings.performance(0, 0, 0) is None
