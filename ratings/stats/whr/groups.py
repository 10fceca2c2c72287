"""Which engines of a connected pool have a finite maximum-likelihood rating, and the bounds of
the others (pure).

In the directed graph "i scored a point or half a point against j" the strongly connected
groups form a DAG; the log-likelihood has a finite maximum exactly over a strongly connected
group (Zermelo 1929; Ford 1957). The **main group** is the group with the most games between
its members (then the most engines, then the one that bounds the most others, in the middle of
the order, then the smallest key): its engines are rated by maximum
likelihood, untouched by the rest. A group from which the main group can be reached (it only
won against the engines below it) is **above**, its rating only a lower bound (``">"``); one
reachable from the main group (it only lost against those above) is **below** (``"<"``). A
group neither above nor below (e.g. one that only lost to an engine above the main group) has
no bound against the rated engines and is excluded.

A bounded group is placed as Ordo 1.2.6 places an all-win or all-loss player
(``indiv.c``, ``calc_ind_rating_superplayer``): its members keep the differences of their
games among themselves, and the group is shifted to the rating at which its record against the
engines already placed below it (above: in reverse topological order, nearest the main group
first) has probability 1/2, each game a win with the draw model's ``W``
(``ratings.stats.whr.draws``). The end of its 95% interval is where that probability is
0.025 (an engine rated lower would make that record less often than that); the other end is
unbounded.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy.optimize import brentq
from scipy.sparse import coo_array
from scipy.sparse.csgraph import connected_components
from scipy.special import expit

from ratings.stats.whr.draws import win_probability
from ratings.stats.whr.likelihood import BETA, Pairs, maximise

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

ABOVE = ">"
BELOW = "<"
#: The probability of the bounded group's record at its reported rating (Ordo's choice) and at
#: the finite end of its 95% interval.
_MEDIAN = 0.5
_TAIL = 0.025


@dataclass(frozen=True)
class Groups:
    """The strongly connected groups of a pool (positions 0..m-1): ``labels[e]`` is engine
    ``e``'s group; ``main`` the main group; ``above`` and ``below`` the bounded groups in the
    order they are placed; ``unbounded`` the groups with no bound."""

    labels: IntArray
    main: int
    above: list[int]
    below: list[int]
    unbounded: list[int]

    def members(self, group: int) -> IntArray:
        return np.flatnonzero(self.labels == group).astype(np.int64)


#: Candidates for the main group whose reachability is compared (the rest lose the tie):
#: equally large candidates are many only in pools whose games are all one-sided.
MAX_TIED = 64


def find_groups(pairs: Pairs, order_key: list[object]) -> Groups:
    """The groups of ``pairs`` (module docstring). Between equally large candidates for the
    main group the one that bounds the most other groups wins, then the one in the middle of
    the order, then the one with more groups above it, then the smallest ``order_key``."""
    i, j, n, s = pairs.i, pairs.j, pairs.n, pairs.s
    scored = np.concatenate([i[s > 0], j[s < n]])  # edges scorer -> conceder
    conceded = np.concatenate([j[s > 0], i[s < n]])
    graph = coo_array((np.ones(len(scored)), (scored, conceded)), shape=(pairs.m, pairs.m))
    count, found = connected_components(graph, directed=True, connection="strong")
    labels: IntArray = found.astype(np.int64)
    inside = labels[i] == labels[j]
    internal = np.bincount(labels[i[inside]], weights=n[inside], minlength=count)
    size = np.bincount(labels, minlength=count)
    smallest: dict[int, object] = {}
    for e, g in enumerate(labels.tolist()):
        if g not in smallest or order_key[e] < smallest[g]:  # type: ignore[operator]
            smallest[g] = order_key[e]
    successors: dict[int, set[int]] = {g: set() for g in range(count)}
    predecessors: dict[int, set[int]] = {g: set() for g in range(count)}
    # The edges between groups, each once (a pool where every pair met has m² edges, and
    # only a handful between groups).
    ga, gb = labels[scored], labels[conceded]
    across = ga != gb
    for code in np.unique(ga[across] * count + gb[across]).tolist():
        a, b = divmod(code, count)
        successors[a].add(b)
        predecessors[b].add(a)
    best = max((internal[g], size[g]) for g in range(count))
    tied = [g for g in range(count) if (internal[g], size[g]) == best]
    reach = {g: (_reachable(g, predecessors), _reachable(g, successors)) for g in tied[:MAX_TIED]}

    def rank(g: int) -> tuple[object, ...]:
        # Among equals, the group that bounds the most others, then the one in the middle of
        # the order (an engine with wins and losses before an all-win or all-loss one), then
        # the one with more above it (so a lone all-win engine is a ">" bound), then the key.
        above, below = reach.get(g, (set(), set()))
        return (-(len(above) + len(below)), -min(len(above), len(below)), -len(above), smallest[g])

    main = min(tied, key=rank)
    above, below = reach.get(main) or (
        _reachable(main, predecessors),
        _reachable(main, successors),
    )
    order = _topological(count, successors, predecessors)
    return Groups(
        labels=labels,
        main=main,
        above=[g for g in reversed(order) if g in above],
        below=[g for g in order if g in below],
        unbounded=[g for g in order if g != main and g not in above and g not in below],
    )


def _reachable(start: int, edges: dict[int, set[int]]) -> set[int]:
    seen: set[int] = set()
    queue = deque([start])
    while queue:
        for nxt in edges[queue.popleft()]:
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    seen.discard(start)
    return seen


def _topological(
    count: int, successors: dict[int, set[int]], predecessors: dict[int, set[int]]
) -> list[int]:
    """Kahn's order of the DAG of groups: every group before those it scored against."""
    waiting = {g: len(predecessors[g]) for g in range(count)}
    queue = deque(sorted(g for g, k in waiting.items() if k == 0))
    order: list[int] = []
    while queue:
        g = queue.popleft()
        order.append(g)
        for nxt in sorted(successors[g]):
            waiting[nxt] -= 1
            if waiting[nxt] == 0:
                queue.append(nxt)
    return order


def internal_ratings(pairs: Pairs, members: IntArray) -> FloatArray:
    """The maximum-likelihood ratings (mean 0) of a group's members from their games among
    themselves (a strongly connected group: finite)."""
    position = np.full(pairs.m, -1, dtype=np.int64)
    position[members] = np.arange(len(members))
    keep = (position[pairs.i] >= 0) & (position[pairs.j] >= 0)
    sub = Pairs(
        len(members), position[pairs.i[keep]], position[pairs.j[keep]], pairs.n[keep],
        pairs.s[keep],
    )  # fmt: skip
    return maximise(sub)[0]


def place(
    pairs: Pairs,
    members: IntArray,
    relative: FloatArray,
    rating: FloatArray,
    placed: npt.NDArray[np.bool_],
    direction: str,
    d0: float,
) -> tuple[float, float] | None:
    """The shift ``t`` of a bounded group (``members`` at ``relative + t``) and that of its
    interval's finite end (module docstring), against the engines ``placed`` (their
    ``rating``); None if it played none of them."""
    here = np.zeros(pairs.m, dtype=bool)
    here[members] = True
    offset = np.zeros(pairs.m)
    offset[members] = relative
    mine_i = here[pairs.i] & placed[pairs.j]
    mine_j = here[pairs.j] & placed[pairs.i]
    me = np.concatenate([pairs.i[mine_i], pairs.j[mine_j]])
    them = np.concatenate([pairs.j[mine_i], pairs.i[mine_j]])
    games = np.concatenate([pairs.n[mine_i], pairs.n[mine_j]])
    if len(me) == 0:
        return None
    sign = 1.0 if direction == ABOVE else -1.0
    base = sign * (offset[me] - rating[them])

    def log_record(u: float) -> float:
        # The record is all wins seen from the group (above) or from its opponents (below);
        # u is the group's shift in the direction that makes that record likelier.
        expected = expit(BETA * (base + u))
        return float(np.sum(games * np.log(np.maximum(win_probability(expected, d0), 1e-300))))

    def solve(probability: float) -> float:
        target = math.log(probability)
        lo, hi = -1000.0, 1000.0
        while log_record(lo) >= target:
            lo -= 1000.0
        while log_record(hi) <= target:
            hi += 1000.0
        return sign * float(brentq(lambda u: log_record(u) - target, lo, hi, xtol=1e-6))

    return solve(_MEDIAN), solve(_TAIL)
