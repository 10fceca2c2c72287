"""The whole-history maximum-likelihood fit (pure: no database): hand-computed cases and
properties (order, colours, draws between equals, intervals, anchor, prior, connectivity)."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ratings.stats.whr import (
    ABOVE,
    BELOW,
    FEW_GAMES,
    LOWER_BOUND,
    NOT_BOUNDED,
    NOT_CONNECTED,
    PROVISIONAL_GAMES,
    UPPER_BOUND,
    Z_95,
    expected_score,
    fit,
)
from ratings.stats.whr.draws import draw_probability, score_variance

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
    # The sandwich for the difference d: information H = n beta^2 s (1 - s), score variance
    # J = n beta^2 V with V = s (1 - s) - D(s) / 4 (the draw model); Var(d) = J / H^2, and
    # a's rating is the mean + d/2.
    v = float(score_variance(s, f.draw_rate))
    se = math.sqrt(n * BETA**2 * v) / (n * BETA**2 * s * (1 - s)) / 2
    assert a.half_width == pytest.approx(Z_95 * se)
    assert a.low == pytest.approx(a.rating - Z_95 * se)
    assert a.high == pytest.approx(a.rating + Z_95 * se)
    assert a.bound is None and b.bound is None
    assert (a.games, a.wins, a.draws, a.losses) == (n, wins, draws, losses)
    assert (a.points, b.points) == (wins + draws / 2, losses + draws / 2)


def test_three_to_one_is_190_elo_and_an_interval_of_175() -> None:
    f = fit(_two(3, 0, 1))
    a = f.get("a")
    assert a is not None
    assert round(a.rating, 1) == 1595.4  # 1500 + 200 log10(3)
    # No draws in 4 games: the expected draws at the fitted ratings plus 2 d0 equal 0 + 1.
    assert round(f.draw_rate, 3) == 0.187
    assert round(a.half_width, 1) == 174.9  # 196.6 if draws were impossible
    assert (a.provisional, a.provisional_reason) == (True, FEW_GAMES)


def test_a_single_draw_is_equal_ratings_with_a_finite_interval() -> None:
    f = fit([("a", "b", 0.5)])
    a = f.get("a")
    assert a is not None and a.rating == 1500.0 and a.bound is None
    # One draw: the draw rate between equals is (1 + 1) / (1 + 2); a game at p = 1/2 has the
    # score variance (1 - d0) / 4, the information of d is beta^2 / 4, so SE(a) is
    # sqrt(1 - d0) / beta.
    assert f.draw_rate == pytest.approx(2 / 3)
    assert a.half_width == pytest.approx(Z_95 * math.sqrt(1 / 3) / BETA)
    assert f.superiority("a", "b") == 0.5


def test_an_all_win_engine_gets_ordos_bound_and_moves_nobody() -> None:
    games = [*_two(6, 3, 5), ("x", "a", 1.0), ("b", "x", 0.0)]
    alone, f = fit(_two(6, 3, 5)), fit(games)
    for name in ("a", "b"):
        before, after = alone.get(name), f.get(name)
        assert before is not None and after is not None
        # The maximum-likelihood ratings and intervals of a and b are untouched.
        assert (after.rating, after.half_width) == (
            pytest.approx(before.rating, abs=1e-9),
            pytest.approx(before.half_width, abs=1e-9),
        )
    x = f.get("x")
    assert x is not None and (x.bound, x.high, x.provisional_reason) == (ABOVE, None, LOWER_BOUND)
    assert x.low is not None and x.low < x.rating
    # Ordo's rule: the rating at which winning both games has probability 1/2, each win
    # W = E - D(E) / 2 with the fitted draw rate; the low end where it is 0.025.
    a, b = f.get("a"), f.get("b")
    assert a is not None and b is not None

    def record(rating: float) -> float:
        p = 1.0
        for opponent in (a.rating, b.rating):
            e = expected_score(rating, opponent)
            p *= e - float(draw_probability(e, f.draw_rate)) / 2
        return p

    assert record(x.rating) == pytest.approx(0.5, abs=1e-6)
    assert record(x.low) == pytest.approx(0.025, abs=1e-6)
    assert f.superiority("x", "a") is None


def test_an_all_loss_engine_gets_an_upper_bound() -> None:
    f = fit([*_two(6, 3, 5), ("y", "a", 0.0), ("b", "y", 1.0), ("y", "b", 0.0)])
    y = f.get("y")
    assert y is not None and (y.bound, y.low, y.provisional_reason) == (BELOW, None, UPPER_BOUND)
    assert y.high is not None and y.high > y.rating
    assert y.rating < min(r.rating for r in f.ratings if r.engine != "y")


def test_a_single_decisive_game_is_two_bounds_about_nobody() -> None:
    f = fit([("a", "b", 1.0)])
    a, b = f.get("a"), f.get("b")
    assert a is not None and b is not None
    # The main group is one engine, the one with a group above it, whatever the names: the
    # all-win engine is the bound (">"), as a reader expects.
    assert (a.bound, b.bound) == (ABOVE, None)
    assert b.rating == 1500.0 and a.rating > 1500.0
    g = fit([("z", "b", 1.0)] * 5)
    assert {r.engine: r.bound for r in g.ratings} == {"z": ABOVE, "b": None}


def test_in_a_chain_of_one_sided_results_the_middle_engine_is_the_main_group() -> None:
    # search beat greedy and random, greedy beat random: every group is one engine, and the
    # one in the middle bounds the others from both sides, whatever the names' order.
    for names in (("search", "greedy", "random"), ("a", "b", "c"), ("c", "b", "a")):
        top, middle, bottom = names
        games = [(top, middle, 1.0), (top, bottom, 1.0), (middle, bottom, 1.0)] * 2
        bounds = {r.engine: r.bound for r in fit(games).ratings}
        assert bounds == {top: ABOVE, middle: None, bottom: BELOW}, names


def test_a_group_that_only_scored_against_the_rest_is_a_bound_as_a_whole() -> None:
    # a and b draw each other and beat c and d, which draw each other: no finite ML exists.
    games = [("a", "b", 0.5), ("c", "d", 0.5), ("a", "c", 1.0), ("b", "d", 1.0)]
    f = fit(games)
    ratings = {r.engine: r for r in f.ratings}
    # Two groups of one game each: the main group is the one with a group above it.
    assert [ratings[k].bound for k in "abcd"] == [ABOVE, ABOVE, None, None]
    assert ratings["a"].rating == pytest.approx(ratings["b"].rating)
    assert ratings["c"].rating < ratings["a"].rating
    assert all(math.isfinite(r.rating) for r in f.ratings)


def test_an_engine_bounded_only_by_a_bound_is_excluded() -> None:
    # x beat a and b (above the main group); z only lost to x: no bound against a or b.
    games = [*_two(2, 1, 2), ("x", "a", 1.0), ("x", "b", 1.0), ("z", "x", 0.0)]
    f = fit(games)
    assert [(e.engine, e.reason) for e in f.excluded] == [("z", NOT_BOUNDED)]
    assert f.get("x") is not None and f.get("z") is None


def test_an_engine_with_a_mixed_record_keeps_its_plain_ml_value() -> None:
    # c beats d (only losses: a bound) and splits with a and b, who are plain ML.
    games = [*_two(2, 0, 2), ("a", "c", 1.0), ("c", "a", 1.0), ("b", "c", 0.5), ("c", "d", 1.0)]
    f = fit(games)
    assert {r.engine: r.bound for r in f.ratings} == {"a": None, "b": None, "c": None, "d": BELOW}


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
    bounds = {r.engine: r.bound for r in result.ratings}
    assert bounds["p08"] == bounds["p23"] == ABOVE


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
    # Intervals stay relative to the reference mean: the same widths.
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
    se_d = 2 * (f.ratings[0].half_width or 0.0) / Z_95
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
    # The reference (the established engines, or all while fewer than two are): mean 1500.
    established = [r for r in first.ratings if not r.provisional]
    reference = established if len(established) >= 2 else first.ratings
    assert sum(r.rating for r in reference) == pytest.approx(1500 * len(reference))


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
    assert after_a is not None and (after_a.half_width or 0) < (a.half_width or 0)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), engines=st.integers(2, 6), count=st.integers(0, 10))
def test_intervals_shrink_as_games_grow(seed: int, engines: int, count: int) -> None:
    rng = random.Random(seed)
    games = _pool_games(rng, engines, count)
    # At most 4 + 10 games an engine, so 28 twice: the reference (all, none established) stays.
    once, twice = ({r.engine: r for r in fit(games * k).ratings} for k in (1, 2))
    for name, r in once.items():
        # The same results twice: the same ratings, the information twice (no bound here: the
        # ring gives every engine a win and a loss), so the half-width about over sqrt(2)
        # (the draw rate's one virtual draw weighs less as games grow: within 5%).
        hw, hw2 = r.half_width or 0, twice[name].half_width or 0
        assert twice[name].rating == pytest.approx(r.rating, abs=1e-6)
        assert hw2 == pytest.approx(hw / math.sqrt(2), rel=0.05)
        assert hw > hw2


def test_a_rating_is_provisional_below_30_games_whatever_its_interval() -> None:
    assert PROVISIONAL_GAMES == 30
    short, enough = fit(_two(10, 9, 10)).ratings[0], fit(_two(10, 10, 10)).ratings[0]
    assert (short.games, short.provisional, short.provisional_reason) == (29, True, FEW_GAMES)
    assert (enough.games, enough.provisional, enough.provisional_reason) == (30, False, "")


def test_186_wins_and_a_loss_is_an_established_rating() -> None:
    # The case of issue 26: a version far above its opponents, with one loss.
    f = fit(_two(186, 0, 1))
    a = f.get("a")
    assert a is not None and a.bound is None and not a.provisional
    assert a.rating - 1500 == pytest.approx(200 * math.log10(186))


def test_a_newcomer_changes_no_established_rating_or_interval() -> None:
    rng = random.Random(5)
    games = _pool_games(rng, 6, 300)
    before = {r.engine: r for r in fit(games).ratings}
    assert not any(r.provisional for r in before.values())
    after = {r.engine: r for r in fit([*games, ("new", "e1", 1.0), ("e1", "new", 0.5)]).ratings}
    assert after["new"].provisional
    for name, r in before.items():
        # One opponent only: the newcomer adds nothing to the others' information.
        assert after[name].rating == pytest.approx(r.rating, abs=1e-6)
        assert after[name].half_width == pytest.approx(r.half_width, rel=2e-3)


def test_the_sparse_and_the_dense_factorisations_give_the_same_fit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Pools of up to 1,000 engines are factorised dense; a large sparse one (a ladder of
    # neighbours) with SuperLU. Forced here on a small pool, the two must agree.
    from ratings.stats.whr import likelihood

    rng = random.Random(11)
    names = [f"e{i:02d}" for i in range(40)]
    games: list[Game] = []
    for i, name in enumerate(names):
        for other in names[i + 1 : i + 4]:  # a ladder: each meets its next three
            games += [(name, other, rng.choice((1.0, 0.5, 0.0))) for _ in range(8)]
    dense_fit = fit(games)
    dense = {r.engine: r for r in dense_fit.ratings}
    monkeypatch.setattr(likelihood, "_DENSE_ENGINES", 0)
    monkeypatch.setattr(likelihood, "_DENSE_SHARE", 1.0)
    sparse = fit(games)
    assert sparse._errors is not None and sparse._errors._h._lu is not None  # SuperLU used
    for r in sparse.ratings:
        assert r.rating == pytest.approx(dense[r.engine].rating, abs=1e-6)
        assert r.half_width == pytest.approx(dense[r.engine].half_width, rel=1e-9)
    assert sparse.superiority("e00", "e01") == pytest.approx(
        dense_fit.superiority("e00", "e01"), rel=1e-9
    )
