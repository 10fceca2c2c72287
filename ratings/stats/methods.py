"""The registry of rating methods: one small strategy module per method (pure: no Django).

A rating method turns a pool's rated games into ratings: ``fit(games)`` takes ``(south, north,
south_score)`` triples (the score 1, 0.5 or 0 from South's side; engines keyed by name or by
engine version id) in the order the games were played (no clock times), and
``fit_results(results)`` the same games counted per pair of engines, ``(a, b, wins, draws,
losses)``: what the service stores and refits from (``ratings.models.HeadToHead``, issue 32;
a method that needs the games' order, e.g. rating periods, needs a store of its own). Both
return a ``RatingFit`` (``ratings.stats.whr.fit``): the ratings best first with 95% intervals
in Elo, the engines left out and why, and the likelihood of superiority between any two rated
engines. Those are the figures the service stores in ``ratings.models.Rating`` and
``RatingPoint``, whatever the method.

``get_method(id)`` is the one place the service dispatches on a method; adding a method is one
new module (e.g. ``ratings/stats/glicko.py`` with its ``METHOD``) and one line in the list
``_REGISTERED``. The service fits with ``DEFAULT_METHOD``, the one place that chooses; after
changing it, ``manage.py refit_ratings`` refits every pool at once.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from ratings.stats import whr
from ratings.stats.whr.fit import K, RatingFit


class RatingMethod(Protocol):
    """What the service needs of a rating method (module docstring).

    ``id`` is its stable id (lower-case, ``[a-z0-9-]``), ``label`` a short name for people.
    ``fit`` raises ``ValueError`` for a score other than 1, 0.5 or 0 or an engine playing
    itself; no games give an empty fit.
    """

    @property
    def id(self) -> str: ...

    @property
    def label(self) -> str: ...

    def fit(self, games: Iterable[tuple[K, K, float]]) -> RatingFit[K]: ...

    def fit_results(self, results: Iterable[tuple[K, K, int, int, int]]) -> RatingFit[K]: ...


#: The registered methods, one entry a line, so that a new method adds one line.
_REGISTERED: list[RatingMethod] = [
    whr.METHOD,
]

#: Method id -> strategy.
METHODS: dict[str, RatingMethod] = {m.id: m for m in _REGISTERED}

#: The method the service rates every variant's pool with.
DEFAULT_METHOD = whr.METHOD.id


def get_method(method_id: str) -> RatingMethod:
    """The strategy of ``method_id``; raises ``KeyError`` for an unknown id."""
    return METHODS[method_id]
