"""Whole-history maximum-likelihood Elo ratings: the pure fit (numpy/scipy, no Django) and
its command line (``python -m ratings.stats.whr fit FILE``).

``fit(games)`` takes ``(south, north, south_score)`` triples (``fit_results`` the same games
counted per pair) and returns a ``RatingFit``: the
ratings best first with 95% intervals (or a bound), the engines left out and why, and the
likelihood of superiority between any two rated engines. The service (``ratings.services``),
the command line and simulations call the same function. The model and its choices are in the
docstring of ``ratings.stats.whr.fit``; the formulas and sources in docs/ratings.md.
"""

from ratings.stats.whr.fit import (
    FEW_GAMES,
    LOWER_BOUND,
    NOT_BOUNDED,
    NOT_CONNECTED,
    POOL_MEAN,
    PROVISIONAL_GAMES,
    SOUTH_SCORE,
    UPPER_BOUND,
    Z_95,
    EngineRating,
    Excluded,
    RatingFit,
    WholeHistory,
    expected_score,
    fit,
    fit_results,
)
from ratings.stats.whr.groups import ABOVE, BELOW

#: This module's entry in the registry of rating methods (``ratings.stats.methods``).
METHOD = WholeHistory()

__all__ = [
    "ABOVE",
    "BELOW",
    "FEW_GAMES",
    "LOWER_BOUND",
    "METHOD",
    "NOT_BOUNDED",
    "NOT_CONNECTED",
    "POOL_MEAN",
    "PROVISIONAL_GAMES",
    "SOUTH_SCORE",
    "UPPER_BOUND",
    "Z_95",
    "EngineRating",
    "Excluded",
    "RatingFit",
    "WholeHistory",
    "expected_score",
    "fit",
    "fit_results",
]
