"""Rating games of finished matches: exact Elo values, order, idempotency, unrated games."""

from __future__ import annotations

from typing import Any

import pytest

from tournaments.models import Rating, RatingChange
from tournaments.services import match_finished

pytestmark = pytest.mark.django_db


def _rating(version: Any, variant: str = "bao-la-kete") -> Rating:
    return Rating.objects.get(engine_version=version, variant=variant)


def test_a_two_nil_match_rates_both_games_in_order(
    make_version: Any, make_finished_match: Any
) -> None:
    a, b = make_version("alpha"), make_version("beta")
    # Game 1: A South wins (1-0). Game 2: B South loses (0-1), so A wins again.
    match = make_finished_match(a, b, ["1-0", "0-1"])
    match_finished(match)
    ra, rb = _rating(a), _rating(b)
    # Game 1: 1500/1500 -> 1520/1480. Game 2: E(A) = 1/(1+10^(-40/400)) = 0.557312,
    # A += 40 * 0.442688 = 17.7075 -> 1537.7075; B -= 17.7075 -> 1462.2925.
    assert ra.rating == pytest.approx(1537.70752, abs=1e-4)
    assert rb.rating == pytest.approx(1462.29248, abs=1e-4)
    assert (ra.games, ra.wins, ra.draws, ra.losses, ra.provisional) == (2, 2, 0, 0, True)
    assert (rb.games, rb.wins, rb.draws, rb.losses) == (2, 0, 0, 2)
    history = list(RatingChange.objects.filter(engine_version=a).order_by("finished_at"))
    steps = [(c.score, round(c.rating_before, 4), round(c.rating_after, 4), c.games_before)
             for c in history]
    assert steps == [
        (1.0, 1500.0, 1520.0, 0),
        (1.0, 1520.0, 1537.7075, 1),
    ]


def test_recording_a_match_twice_counts_each_game_once(
    make_version: Any, make_finished_match: Any
) -> None:
    a, b = make_version("alpha"), make_version("beta")
    match = make_finished_match(a, b, ["1-0", "1-0", "1/2-1/2"])
    match_finished(match)
    first = (_rating(a).rating, _rating(b).rating)
    match_finished(match)
    assert (_rating(a).rating, _rating(b).rating) == first
    assert (_rating(a).games, _rating(b).games) == (3, 3)
    assert RatingChange.objects.count() == 6


def test_games_are_rated_in_the_order_they_finished(
    make_version: Any, make_finished_match: Any
) -> None:
    a, b = make_version("alpha"), make_version("beta")
    # Game 2 (B South, 1-0: B wins) finished before game 1 (A South, 1-0: A wins).
    match = make_finished_match(a, b, ["1-0", "1-0"], finish_order=[2, 1])
    match_finished(match)
    changes = list(RatingChange.objects.filter(engine_version=a).order_by("finished_at"))
    assert [(c.game.index, c.score, c.rating_before) for c in changes] == [
        (2, 0.0, 1500.0), (1, 1.0, 1480.0)]
    # Loss first (1480), then a win against 1520: E = 1/(1+10^(40/400)) = 0.442688 -> +22.2925.
    assert _rating(a).rating == pytest.approx(1480 + 40 * (1 - 0.4426884), abs=1e-4)


def test_aborted_games_and_unrated_matches_do_not_move_ratings(
    make_version: Any, make_finished_match: Any
) -> None:
    a, b = make_version("alpha"), make_version("beta")
    match = make_finished_match(a, b, ["1-0", "*"], terminations=["time_forfeit", "aborted"])
    match_finished(match)
    assert (_rating(a).games, _rating(a).wins, _rating(b).losses) == (1, 1, 1)
    friendly = make_finished_match(a, b, ["0-1", "0-1"], rated=False)
    match_finished(friendly)
    assert _rating(a).games == 1
    assert RatingChange.objects.filter(game__match=friendly).count() == 0


def test_ratings_are_kept_per_variant(make_version: Any, make_finished_match: Any) -> None:
    a, b = make_version("alpha"), make_version("beta")
    match_finished(make_finished_match(a, b, ["1-0", "0-1"], variant="bao-kingulu"))
    assert not Rating.objects.filter(variant="bao-la-kete").exists()
    assert _rating(a, "bao-kingulu").games == 2


def test_k_factor_drops_once_twenty_games_are_played(
    make_version: Any, make_finished_match: Any
) -> None:
    a, b = make_version("alpha"), make_version("beta")
    for _ in range(10):
        match_finished(make_finished_match(a, b, ["1/2-1/2", "1/2-1/2"]))
    ra = _rating(a)
    assert (ra.games, ra.draws, ra.rating, ra.provisional) == (20, 20, 1500.0, False)
    match_finished(make_finished_match(a, b, ["1-0", "1-0"]))
    last = RatingChange.objects.filter(engine_version=a).order_by("-finished_at", "-id").first()
    assert last is not None and last.k_factor == 20.0
