"""The ladder's matchmaker (pure, no Django): which rated matches to create next.

The ladder (``tournaments.ladder``) keeps rated play going by itself. Each time it runs, the
matchmaker gets every engine on a variant's ladder that is free to play (no ladder match queued
or running) and the number of matches wanted, and answers that many pairings, by these rules:

1. **Placement first.** An engine that still owes placement matches (:data:`PLACEMENT_MATCHES`
   when it joins) is paired first, against opponents spread over the rating range: its k-th
   placement opponent (k = 0, 1, ...) is the rated engine nearest the ``(k + 1/2) /
   PLACEMENT_MATCHES`` quantile of the ladder's ratings, so three placement matches meet the
   lower, middle and upper part of the field.
2. **Fair shares.** Otherwise the engine with the fewest ladder matches is paired next (ties are
   broken by the seeded random generator); an engine more than :func:`fair_share_slack` matches
   above the median is not paired at all until the others catch up.
3. **The most informative opponent.** Among the eligible opponents the matchmaker takes the one
   that maximizes ``p (1 - p) (var_a + var_b) / (1 + n_ab)^2``, where ``p`` is the logistic
   expected score between the two fitted ratings (``1 / (1 + 10^(-d/400))``), ``var`` the
   squared standard error of a rating (Elo^2; an engine with no interval yet counts
   :data:`UNRATED_SE`) and ``n_ab`` the ladder matches the two have already played. A game
   between close ratings tells the most about their order (``p (1 - p)`` is the Fisher
   information of one game on the logistic scale, up to a constant), a wide interval has the
   most to learn, and the penalty on repeats spreads an engine's games over all its near
   neighbours: a rating is placed by many opponents, not by one rival met again and again
   (measured with ``python -m tournaments.ladder simulate``: without the penalty the ladder
   needed about as many matches as a round robin to order the field).
4. **No pairing back to back.** An engine is never paired with the opponent of its previous
   ladder match (unless it has no other).

Everything is deterministic for a given ``random.Random``: tests and ``simulate`` are seeded.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass

#: Placement matches a new engine (version) plays before ordinary ladder pairing.
PLACEMENT_MATCHES = 3
#: The standard error (Elo) assumed for an engine that has no fitted interval yet.
UNRATED_SE = 350.0
#: 95% two-sided normal quantile: a half-width of an interval is 1.96 standard errors.
Z95 = 1.959963984540054


@dataclass(frozen=True)
class LadderEntry:
    """One engine free to play on a ladder.

    ``key``: any hashable id (an engine-version id, a player name). ``rating``: fitted Elo, or
    the pool mean when it has none. ``half_width``: the 95% interval's half-width in Elo, or
    ``None`` while it is not rated. ``matches``: ladder matches it has played or has queued.
    ``placement_left``: placement matches it still owes (0..PLACEMENT_MATCHES).
    ``last_opponent``: the key of its previous ladder opponent, or ``None``.
    """

    key: Hashable
    rating: float
    half_width: float | None
    matches: int
    placement_left: int = 0
    last_opponent: Hashable | None = None

    @property
    def variance(self) -> float:
        """Squared standard error of the rating, Elo^2."""
        se = UNRATED_SE if self.half_width is None else self.half_width / Z95
        return se * se


def expected_score(rating: float, opponent: float) -> float:
    """Logistic expected score: ``1 / (1 + 10^((opponent - rating) / 400))``."""
    return 1 / (1 + 10 ** ((opponent - rating) / 400))


def information(a: LadderEntry, b: LadderEntry, met: int = 0) -> float:
    """How much a match between ``a`` and ``b``, who have met ``met`` times on the ladder, is
    expected to tell: ``p (1 - p) (var_a + var_b) / (1 + met)^2`` (module docstring, rule 3)."""
    p = expected_score(a.rating, b.rating)
    return p * (1 - p) * (a.variance + b.variance) / (1 + met) ** 2


def fair_share_slack(median: float) -> float:
    """How many matches above the median an engine may be before it waits: ``max(2, median /
    10)``."""
    return max(2.0, median / 10)


def _placement_opponent(
    entry: LadderEntry, candidates: Sequence[LadderEntry], rng: random.Random
) -> LadderEntry:
    rated = sorted(
        (c for c in candidates if c.half_width is not None), key=lambda c: (c.rating, str(c.key))
    )
    if not rated:
        return rng.choice(list(candidates))
    k = PLACEMENT_MATCHES - entry.placement_left
    quantile = (k + 0.5) / PLACEMENT_MATCHES
    target = rated[min(len(rated) - 1, int(quantile * len(rated)))].rating
    return min(rated, key=lambda c: (abs(c.rating - target), str(c.key)))


def choose_pairings(
    entries: Sequence[LadderEntry],
    wanted: int,
    rng: random.Random,
    met: Mapping[frozenset[Hashable], int] | None = None,
    compatible: Callable[[Hashable, Hashable], bool] | None = None,
) -> list[tuple[Hashable, Hashable]]:
    """Up to ``wanted`` pairings ``(key_a, key_b)`` among ``entries`` (each engine at most once;
    ``key_a`` is the engine being served, i.e. South in game 1). Fewer when fewer engines are
    free. ``met`` counts the ladder matches already played per pair (``frozenset({a, b})``);
    ``compatible(a, b)``, when given, is False for two keys that must never meet (e.g. two
    engines of one owner, whose games could not be rated). Raises ``ValueError`` for duplicate
    keys."""
    met = met or {}
    keys = [e.key for e in entries]
    if len(set(keys)) != len(keys):
        raise ValueError("ladder entries must have distinct keys")
    median = statistics.median(e.matches for e in entries) if entries else 0.0
    limit = median + fair_share_slack(median)
    free = {e.key: e for e in entries if e.matches <= limit or e.placement_left > 0}
    pairings: list[tuple[Hashable, Hashable]] = []
    while len(pairings) < wanted and len(free) >= 2:
        order = list(free.values())
        rng.shuffle(order)  # the tie-break among equals
        order.sort(key=lambda e: (e.placement_left == 0, e.matches))
        first = order[0]
        allowed = [e for e in order[1:] if compatible is None or compatible(first.key, e.key)]
        if not allowed:
            del free[first.key]  # nobody it may meet is free now
            continue
        candidates = [
            e for e in allowed if first.key != e.last_opponent and e.key != first.last_opponent
        ] or allowed
        if first.placement_left > 0:
            second = _placement_opponent(first, candidates, rng)
        else:
            second = max(
                candidates,
                key=lambda c: information(first, c, met.get(frozenset((first.key, c.key)), 0)),
            )
        pairings.append((first.key, second.key))
        del free[first.key], free[second.key]
    return pairings
