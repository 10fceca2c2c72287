"""The draw model of the rating fit: how often a game is drawn given its expected score (pure).

The fit itself counts a draw as half a win and half a loss (``ratings.stats.whr.fit``); this
model says how the expected score ``E`` splits into win, draw and loss, which the fit needs
for two things: the variance of one game's score (draws lower it: ``docs/ratings.md``) and the
probability of a perfect record (the bound of an engine that won or lost every game).

The model is the one Ordo uses (Ordo 1.2.6, ``xpect.c``, ``draw_rate_fperf``): the draw
probability ``D`` satisfies ``D^2 = k W L`` with ``W = E - D/2`` and ``L = 1 - E - D/2``, the
constant ``k`` set by the draw rate ``d0`` between equal engines (``W = L = (1 - d0)/2``):
``k = 4 d0^2 / (1 - d0)^2``. This is Davidson's (1970) draw model ``D = nu sqrt(W L)`` with
``nu = 2 d0 / (1 - d0)``, written on the expected score. Solving the quadratic
``a D^2 + 2 D - 4 E (1 - E) = 0``, ``a = (1 - 2 d0) / d0^2``:

    D(E) = 4 E (1 - E) / (1 + sqrt(1 + 4 a E (1 - E)))

(``d0 = 1/2`` gives ``D = 2 E (1 - E)``; ``d0 -> 1`` gives ``D = 2 min(E, 1 - E)``, the
most draws a score allows). The variance of one game's score is
``V = E (1 - E) - D / 4``: ``E (1 - E)`` without draws.

``d0`` is estimated from the games by the method of moments with one virtual draw in two
virtual games between equals (Laplace's rule of succession, so that no draws or only draws
stay inside (0, 1)): the expected number of draws at the fitted ratings, plus ``2 d0``, equals
the number of draws plus 1.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from scipy.optimize import brentq

FloatArray = npt.NDArray[np.float64]

_TINY = 1e-12


def draw_probability(expected: FloatArray, d0: float) -> FloatArray:
    """``D(E)`` of the module docstring for expected scores ``expected`` (0..1) and the draw
    rate ``d0`` (0..1) between equal engines."""
    e = np.asarray(expected, dtype=np.float64)
    c = 4.0 * e * (1.0 - e)
    if d0 <= 0.0:
        return np.zeros_like(e)
    a = (1.0 - 2.0 * d0) / (d0 * d0)
    root = np.sqrt(np.maximum(1.0 + a * c, 0.0))
    result: FloatArray = c / (1.0 + root)
    return result


def score_variance(expected: FloatArray, d0: float) -> FloatArray:
    """The variance of one game's score (points²) at expected score ``expected``: ``E (1 - E)
    - D / 4``, never below a tiny positive floor."""
    e = np.asarray(expected, dtype=np.float64)
    v: FloatArray = np.maximum(e * (1.0 - e) - draw_probability(e, d0) / 4.0, _TINY * e * (1 - e))
    return v


def win_probability(expected: FloatArray, d0: float) -> FloatArray:
    """``W = E - D / 2``: the probability of a win at expected score ``expected``."""
    e = np.asarray(expected, dtype=np.float64)
    w: FloatArray = np.maximum(e - draw_probability(e, d0) / 2.0, 0.0)
    return w


def estimate_draw_rate(expected: FloatArray, games: FloatArray, draws: float) -> float:
    """The draw rate between equal engines (module docstring): ``expected`` and ``games`` per
    pair of engines, ``draws`` the number of drawn games among them."""
    target = draws + 1.0

    def excess(d0: float) -> float:
        return float(np.sum(games * draw_probability(expected, d0))) + 2.0 * d0 - target

    if excess(1.0) <= 0.0:
        return 1.0
    return float(brentq(excess, 0.0, 1.0, xtol=1e-10))
