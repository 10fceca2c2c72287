"""Elo ratings: the pure formulas (no Django) used by ``tournaments.rating_service``.

Ratings are kept per engine version per variant, start at ``INITIAL_RATING`` = 1500 and move
after every rated game (a game = one result between South and North: win 1, draw 1/2, loss 0).

K-factor: ``K_PROVISIONAL`` = 40 for an engine's first ``PROVISIONAL_GAMES`` = 20 games, then
``K_ESTABLISHED`` = 20 (the FIDE scheme, halved steps once established). Why: a new engine's
1500 start is a guess, so early games should move it quickly towards its true strength; after
20 games the rating is informative and a smaller K keeps it from swinging on single results.
Each side uses its own K, so an update between a provisional and an established engine is not
zero-sum (as in FIDE).

Error bars (leaderboard "+/-"): a 95% interval of the engine's performance from its W/D/L
record, the trinomial normal approximation that Fishtest reports:

    N = W + D + L,  mu = (W + D/2) / N
    var = (W (1 - mu)^2 + D (1/2 - mu)^2 + L mu^2) / N      (per-game variance of the score)
    lo, hi = mu -/+ 1.96 sqrt(var / N)
    elo(p) = -400 log10(1/p - 1),  +/- = (elo(hi) - elo(lo)) / 2

A record with no spread (all wins, all losses or all draws) would give a zero-width interval;
there one pseudo-draw is added first (a prior of one drawn game, as BayesElo's draw prior
does), and the bounds are clamped to [0.001, 0.999] so the margin stays finite.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

INITIAL_RATING = 1500.0
PROVISIONAL_GAMES = 20
K_PROVISIONAL = 40.0
K_ESTABLISHED = 20.0
Z_95 = 1.959964  # two-sided 95% quantile of the normal distribution
_P_CLAMP = 0.001


def expected_score(rating: float, opponent: float) -> float:
    """The expected score (0..1) of a player rated ``rating`` against ``opponent``.

    Elo's logistic curve.
    """
    # float ** float is typed Any (a negative base gives a complex); the base here is 10.
    odds: float = 10.0 ** ((opponent - rating) / 400.0)
    return 1.0 / (1.0 + odds)


def k_factor(games_played: int) -> float:
    """The K-factor for a game played after ``games_played`` rated games.

    40 while provisional, then 20.
    """
    return K_PROVISIONAL if games_played < PROVISIONAL_GAMES else K_ESTABLISHED


def is_provisional(games_played: int) -> bool:
    """True while an engine has fewer than ``PROVISIONAL_GAMES`` rated games."""
    return games_played < PROVISIONAL_GAMES


def updated_rating(rating: float, opponent: float, score: float, k: float) -> float:
    """The rating after one game: ``rating + k * (score - expected)``.

    ``score`` is 1 (win), 0.5 (draw) or 0 (loss); raises ``ValueError`` for anything else.
    """
    if score not in (0.0, 0.5, 1.0):
        raise ValueError(f"a game score is 0, 0.5 or 1, not {score!r}")
    return rating + k * (score - expected_score(rating, opponent))


@dataclass(frozen=True)
class GameRatingUpdate:
    """Both sides' ratings after one game (``*_after``) and the K each side used."""

    a_before: float
    b_before: float
    a_after: float
    b_after: float
    k_a: float
    k_b: float


def rate_game(
    a_rating: float, a_games: int, b_rating: float, b_games: int, a_score: float
) -> GameRatingUpdate:
    """Update both players of one game; ``a_score`` is A's score (1, 0.5, 0), B scores the rest.

    ``*_games`` are the rated games each had played before this one (they choose each side's K).
    """
    k_a, k_b = k_factor(a_games), k_factor(b_games)
    return GameRatingUpdate(
        a_before=a_rating,
        b_before=b_rating,
        a_after=updated_rating(a_rating, b_rating, a_score, k_a),
        b_after=updated_rating(b_rating, a_rating, 1.0 - a_score, k_b),
        k_a=k_a,
        k_b=k_b,
    )


def elo_from_score(p: float) -> float:
    """The Elo difference that gives expected score ``p`` (0 < p < 1): ``-400 log10(1/p - 1)``."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"an expected score strictly between 0 and 1 is needed, not {p!r}")
    return -400.0 * math.log10(1.0 / p - 1.0)


@dataclass(frozen=True)
class Performance:
    """A W/D/L record as an Elo difference to the average opponent with its 95% margin."""

    score: float  # mean score per game, 0..1
    elo: float  # performance in Elo relative to the opponents faced
    margin: float  # half-width of the 95% interval, in Elo


def performance(wins: int, draws: int, losses: int) -> Performance | None:
    """The Fishtest-style trinomial 95% interval of a record (module docstring).

    None for no games.
    """
    if min(wins, draws, losses) < 0:
        raise ValueError("wins, draws and losses must be non-negative")
    n = wins + draws + losses
    if n == 0:
        return None
    raw_mu = (wins + draws / 2) / n
    mu, var = _mean_and_variance(wins, draws, losses)
    if var == 0.0:
        # No spread: a single pseudo-draw keeps the interval from collapsing to a point.
        draws, n = draws + 1, n + 1
        mu, var = _mean_and_variance(wins, draws, losses)
    half = Z_95 * math.sqrt(var / n)
    lo = _clamp(mu - half)
    hi = _clamp(mu + half)
    return Performance(
        score=raw_mu,
        elo=elo_from_score(_clamp(mu)),
        margin=(elo_from_score(hi) - elo_from_score(lo)) / 2,
    )


def _mean_and_variance(wins: int, draws: int, losses: int) -> tuple[float, float]:
    n = wins + draws + losses
    mu = (wins + draws / 2) / n
    var = (wins * (1 - mu) ** 2 + draws * (0.5 - mu) ** 2 + losses * mu**2) / n
    return mu, var


def _clamp(p: float) -> float:
    return min(max(p, _P_CLAMP), 1 - _P_CLAMP)
