"""The whole-history maximum-likelihood fit (pure: no database): hand-computed cases and
properties (order, colours, draws between equals, intervals, anchor, prior, connectivity)."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ratings.stats.whr import NOT_CONNECTED, Z_95, expected_score, fit

BETA = math.log(10) / 400  # natural-log odds per Elo point

Game = tuple[str, str, float]


def _two(wins: int, draws: int, losses: int) -> list[Game]:
    """A's record against B: ``wins`` 1-0, ``draws`` 1/2, ``losses`` 0-1, colours alternating."""
    games: list[Game] = []
    for score, count in ((1.0, wins), (0.5, draws), (0.0, losses)):
        for k in range(count):
            games.append(("a", "b", score) if k % 2 == 0 else ("b", "a", 1.0 - score))
    return games


def _ratings(games: list[Game], **kwargs: object) -> dict[str, float]:
    return {r.engine: r.rating for r in fit(games, **kwargs).ratings}  # type: ignore[arg-type]


def test_the_expected_score_is_the_logistic_elo_curve() -> None:
    assert expected_score(1500, 1500) == 0.5
    assert expected_score(1900, 1500) == pytest.approx(10 / 11)


@pytest.mark.parametrize(("wins", "draws", "losses"), [(3, 0, 1), (2, 2, 0), (7, 2, 3), (1, 1, 2)])
def test_two_engines_are_400_log10_of_the_score_odds_apart(
    wins: int, draws: int, losses: int
) -> None:
    n = wins + draws + losses
    s = (wins + draws / 2) / n
    diff = 400 * math.log10(s / (1 - s))
    f = fit(_two(wins, draws, losses))
    a, b = f.get("a"), f.get("b")
    assert a is not None and b is not None
    assert (a.rating, b.rating) == (pytest.approx(1500 + diff / 2), pytest.approx(1500 - diff / 2))
    # Information of the difference d: n beta^2 s (1 - s); a's rating is the mean + d/2.
    se = 1 / (2 * math.sqrt(n * BETA**2 * s * (1 - s)))
    assert a.half_width == pytest.approx(Z_95 * se)
    assert a.low == pytest.approx(a.rating - Z_95 * se)
    assert a.high == pytest.approx(a.rating + Z_95 * se)
    assert not a.prior and not b.prior
    assert (a.games, a.wins, a.draws, a.losses) == (n, wins, draws, losses)
    assert (a.points, b.points) == (wins + draws / 2, losses + draws / 2)


def test_three_to_one_is_190_elo_and_an_interval_of_196() -> None:
    a = fit(_two(3, 0, 1)).get("a")
    assert a is not None
    assert round(a.rating, 1) == 1595.4  # 1500 + 200 log10(3)
    assert round(a.half_width, 1) == 196.6  # 1.96 * 100.29
    assert a.provisional


def test_a_single_draw_is_equal_ratings_with_a_finite_interval() -> None:
    f = fit([("a", "b", 0.5)])
    a = f.get("a")
    assert a is not None and a.rating == 1500.0 and not a.prior
    # One game at p = 1/2: information of d is beta^2 / 4, so SE(a) = 1 / beta.
    assert a.half_width == pytest.approx(Z_95 / BETA)
    assert f.superiority("a", "b") == 0.5


def test_only_wins_get_the_virtual_draw_against_the_pool_mean() -> None:
    f = fit([("a", "b", 1.0)])
    a, b = f.get("a"), f.get("b")
    assert a is not None and b is not None and a.prior and b.prior
    # By symmetry a = 1500 + x, b = 1500 - x; x maximises
    # ln E(2x) + 2 * (ln E(x) + ln E(-x)) / 2; its derivative is zero where
    # 2 beta (1 - E(2x)) = beta (2 E(x) - 1), i.e. 1 - E(2x) = E(x) - 1/2 (x = 131.4).
    lo, hi = 0.0, 1000.0
    for _ in range(100):
        x = (lo + hi) / 2
        if 1 - expected_score(2 * x, 0) > expected_score(x, 0) - 0.5:
            lo = x
        else:
            hi = x
    assert a.rating == pytest.approx(1500 + x, abs=1e-6)
    assert b.rating == pytest.approx(1500 - x, abs=1e-6)
    assert round(x, 1) == 131.4
    assert math.isfinite(a.low) and math.isfinite(a.high)


def test_a_group_that_only_scored_against_the_rest_gets_the_prior_too() -> None:
    # a and b draw each other and beat c and d, which draw each other: no finite ML exists.
    games = [("a", "b", 0.5), ("c", "d", 0.5), ("a", "c", 1.0), ("b", "d", 1.0)]
    f = fit(games)
    assert all(r.prior for r in f.ratings)
    assert all(math.isfinite(r.rating) and r.half_width < 1000 for r in f.ratings)
    assert [r.engine for r in f.ratings][:2] in (["a", "b"], ["b", "a"])


def test_an_engine_with_a_mixed_record_keeps_its_plain_ml_value() -> None:
    # c beats d (only losses: prior) and splits with a and b, who are plain ML.
    games = [*_two(2, 0, 2), ("a", "c", 1.0), ("c", "a", 1.0), ("b", "c", 0.5), ("c", "d", 1.0)]
    f = fit(games)
    assert {r.engine: r.prior for r in f.ratings} == {"a": False, "b": False, "c": False, "d": True}


def test_a_pool_whose_maximum_lies_thousands_of_elo_apart_is_still_fitted() -> None:
    # Found by ``python -m ladder.simulate simulate --players 40 --matches 3000 --seed 18``
    # (placement games, shrunk): p08 and p23 only drew each other and beat p10, so the
    # maximum puts them thousands of Elo above the pool mean. A full Newton step overshot into a
    # region where the information underflowed and Cholesky failed (LinAlgError).
    games: list[Game] = [
        ("p08", "p23", 0.5), ("p11", "p05", 0.5), ("p31", "p38", 0.0), ("p24", "p11", 1.0),
        ("p10", "p28", 0.5), ("p18", "p05", 0.5), ("p24", "p25", 0.0), ("p18", "p40", 0.5),
        ("p32", "p29", 1.0), ("p09", "p22", 1.0), ("p29", "p04", 0.5), ("p02", "p40", 0.5),
        ("p29", "p21", 0.0), ("p29", "p27", 0.0), ("p22", "p14", 1.0), ("p04", "p13", 1.0),
        ("p13", "p39", 1.0), ("p40", "p06", 0.5), ("p02", "p37", 1.0), ("p35", "p37", 0.0),
        ("p26", "p14", 0.5), ("p03", "p26", 0.0), ("p15", "p27", 1.0), ("p32", "p07", 0.5),
        ("p25", "p28", 0.0), ("p39", "p35", 1.0), ("p10", "p23", 0.0), ("p10", "p31", 0.0),
        ("p03", "p06", 1.0), ("p18", "p34", 1.0), ("p18", "p34", 0.0), ("p21", "p01", 0.0),
        ("p17", "p06", 1.0), ("p06", "p17", 0.0),
    ]  # fmt: skip
    result = fit(games)
    ratings = {r.engine: r.rating for r in result.ratings}
    assert all(math.isfinite(r) for r in ratings.values())
    assert ratings["p08"] == pytest.approx(ratings["p23"])
    assert ratings["p08"] > 4000
    assert sum(ratings.values()) / len(ratings) == pytest.approx(1500)


def test_engines_not_connected_to_the_pool_are_reported_not_rated() -> None:
    games = [*_two(3, 1, 2), ("b", "c", 1.0), ("c", "b", 0.5), ("x", "y", 1.0)]
    f = fit(games)
    assert {r.engine for r in f.ratings} == {"a", "b", "c"}
    assert [(e.engine, e.reason, e.games) for e in f.excluded] == [
        ("x", NOT_CONNECTED, 1),
        ("y", NOT_CONNECTED, 1),
    ]
    assert f.get("x") is None
    assert sum(r.rating for r in f.ratings) == pytest.approx(3 * 1500)


def test_no_games_is_an_empty_fit() -> None:
    f = fit([])
    assert (f.ratings, f.excluded) == ((), ())


@pytest.mark.parametrize(
    ("game", "message"),
    [(("a", "a", 1.0), "cannot play itself"), (("a", "b", 0.7), "1, 0.5 or 0")],
)
def test_a_bad_game_is_a_value_error(game: Game, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        fit([game])


def test_an_anchor_fixes_its_engine_and_keeps_the_differences() -> None:
    games = _pool_games(random.Random(3), 6, 60)
    free = _ratings(games)
    anchored = _ratings(games, anchor=("e2", 2000.0))
    assert anchored["e2"] == 2000.0
    for name, rating in free.items():
        assert anchored[name] - 2000.0 == pytest.approx(rating - free["e2"], abs=1e-6)
    # Intervals stay relative to the pool mean: the same widths.
    widths = {r.engine: r.half_width for r in fit(games).ratings}
    assert {r.engine: r.half_width for r in fit(games, anchor=("e2", 2000.0)).ratings} == {
        k: pytest.approx(v) for k, v in widths.items()
    }


def test_an_anchor_that_played_no_game_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="played no game"):
        fit(_two(1, 0, 1), anchor=("zed", 1800.0))


def test_the_likelihood_of_superiority_follows_the_rating_order() -> None:
    f = fit(_two(7, 2, 3))
    assert f.superiority("a", "b") == pytest.approx(1 - f.superiority("b", "a"))
    diff = f.ratings[0].rating - f.ratings[1].rating
    # The interval of d is twice a's about the mean: SE(d) = 2 SE(a).
    se_d = 2 * f.ratings[0].half_width / Z_95
    phi = 0.5 * (1 + math.erf(diff / se_d / math.sqrt(2)))
    assert f.superiority("a", "b") == pytest.approx(phi)
    with pytest.raises(KeyError):
        f.superiority("a", "nobody")


def _pool_games(rng: random.Random, engines: int, count: int) -> list[Game]:
    """A connected random pool: a ring of split results, then ``count`` random games."""
    names = [f"e{i}" for i in range(engines)]
    games: list[Game] = []
    for i, name in enumerate(names):
        other = names[(i + 1) % engines]
        games += [(name, other, 1.0), (other, name, 1.0)]
    for _ in range(count):
        s, n = rng.sample(names, 2)
        games.append((s, n, rng.choice((1.0, 0.5, 0.0))))
    return games


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), engines=st.integers(2, 7), count=st.integers(0, 40))
def test_the_order_and_colours_of_games_change_nothing(seed: int, engines: int, count: int) -> None:
    rng = random.Random(seed)
    games = _pool_games(rng, engines, count)
    shuffled = [(n, s, 1.0 - x) if rng.random() < 0.5 else (s, n, x) for s, n, x in games]
    rng.shuffle(shuffled)
    first, second = fit(games), fit(shuffled)
    for r in first.ratings:
        other = second.get(r.engine)
        assert other is not None
        assert other.rating == pytest.approx(r.rating, abs=1e-6)
        assert other.half_width == pytest.approx(r.half_width, abs=1e-6)
    assert sum(r.rating for r in first.ratings) == pytest.approx(1500 * engines)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), count=st.integers(0, 30), results=st.integers(0, 8))
def test_a_draw_between_two_equal_engines_changes_no_rating(
    seed: int, count: int, results: int
) -> None:
    rng = random.Random(seed)
    games = _pool_games(rng, 4, count)
    # a and b have the same record against the same opponents (a win and a loss against e0 at
    # least, so neither needs the prior), hence equal ratings.
    record = [("e0", 1.0), ("e0", 0.0)] + [
        (rng.choice(("e0", "e1", "e2", "e3")), rng.choice((1.0, 0.5, 0.0))) for _ in range(results)
    ]
    for engine in ("a", "b"):
        games += [(engine, opponent, score) for opponent, score in record]
    before = fit(games)
    a, b = before.get("a"), before.get("b")
    assert a is not None and b is not None and a.rating == pytest.approx(b.rating, abs=1e-6)
    after = fit([*games, ("a", "b", 0.5)])
    for r in before.ratings:
        again = after.get(r.engine)
        assert again is not None and again.rating == pytest.approx(r.rating, abs=1e-6)
    after_a = after.get("a")
    assert after_a is not None and after_a.half_width < a.half_width


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), engines=st.integers(2, 6), count=st.integers(0, 30))
def test_intervals_shrink_as_games_grow(seed: int, engines: int, count: int) -> None:
    rng = random.Random(seed)
    games = _pool_games(rng, engines, count)
    once, twice, thrice = ({r.engine: r for r in fit(games * k).ratings} for k in (1, 2, 3))
    for name, r in once.items():
        # The same results k times: the same ratings, the information k times (no prior here:
        # the ring gives every engine a win and a loss), so the half-width over sqrt(k).
        assert twice[name].rating == pytest.approx(r.rating, abs=1e-6)
        assert twice[name].half_width == pytest.approx(r.half_width / math.sqrt(2))
        assert thrice[name].half_width == pytest.approx(r.half_width / math.sqrt(3))
        assert r.half_width > twice[name].half_width > thrice[name].half_width


def test_a_rating_is_provisional_while_its_half_width_exceeds_100() -> None:
    # Two equal engines, n games: SE about the mean = 1 / (beta sqrt(n)), 1.96 SE = 340.5/sqrt(n).
    assert round(fit(_two(4, 3, 4)).ratings[0].half_width, 1) == 102.7  # 11 games
    assert fit(_two(4, 3, 4)).ratings[0].provisional
    assert round(fit(_two(4, 4, 4)).ratings[0].half_width, 1) == 98.3  # 12 games
    assert not fit(_two(4, 4, 4)).ratings[0].provisional
