"""The FIDE Dutch system: one Swiss round paired from a field and its history (pure).

Source: FIDE Handbook C.04.3, FIDE (Dutch) System, the edition approved by the Council on
13 April 2024 (the 2025 rules), and C.04.1 (basic rules of Swiss systems). The pairing is
computed as bbpPairings (Bierema) computes it: each pairing bracket is one maximum-weight
matching whose integer edge weights order the criteria lexicographically, the higher bits
holding the earlier criteria. Articles implemented:

* 1.1 initial ranking list: pairing numbers by rating (Elo) descending, then seed (entry
  order); 1.2 order: score, then pairing number.
* 1.3 score groups and brackets: brackets are paired from the top; the players a bracket
  leaves unpaired (downfloaters) are the moved-down players (MDPs) of the next.
* 1.4 floats: after a game between different scores the higher player has a downfloat, the
  lower an upfloat; a player who scores more than a loss without playing (a pairing-allocated
  bye, a forfeit win) has a downfloat.
* 1.5 the pairing-allocated bye (PAB) goes to a player of the lowest score group that can
  take it: a virtual player scored below everyone, that only PAB-eligible players may meet.
* 1.6-1.7 colour difference and preferences from the full colour sequence of played games:
  absolute (difference beyond +-1, or the same colour in the last two games played), strong
  (difference +-1), mild (difference 0: alternate); topscorers (more than half the maximum
  score, when the last round is paired).
* C1 no two players meet twice; C2 no second PAB, and none after a forfeit win; C3
  non-topscorers with the same absolute colour preference do not meet (so no colour three
  times in a row and no difference beyond 2, except for topscorers in the last round); C4
  completion: a bracket's pairing leaves the remaining players pairable.
* Quality criteria, in order: C5 the most pairs in the bracket; C6 the highest scores paired
  (the smallest score differences); C7 the most pairs, then the highest scores, in the next
  bracket; C10 topscorers' colour difference beyond 2 and C11 three same colours in a row; C12
  colour preferences met; C13 strong colour preferences met; C14-C17 the fewest repeated
  downfloats and upfloats of the previous round and of two rounds before; C18-C21 the lowest
  scores of those repeated floaters (opponents' scores for upfloaters). C8 and C9 (the PAB
  assignee's unplayed games) are not modelled separately.
* 3 (bracket procedure): among pairings equal on every criterion, MDPs are paired first, in
  order, each with the highest resident it can have (S1 the MDPs, S2 the residents); the
  remainder is split into S1 (its top half) and S2, and S1's players in order take the
  earliest S2 player they can (the order of transpositions); pairs inside S1 (exchanges) come
  last.
* 5 colour allocation (E rules): both preferences when compatible; else the absolute
  preference (the wider difference first), then the strong one; else alternate from the last
  round the two had different colours; else the higher-ranked player's preference; else the
  higher-ranked player gets the initial colour when its pairing number is odd.

Computation: a bracket's matching sees the bracket and the next score group (C7), counting
for C4 only the bracket's players matched; when the rest of the field cannot be paired after
it, the bracket is matched again with the whole rest (bbpPairings always uses the whole rest).
A bracket whose first candidate in the bracket procedure's order meets every criterion at its
best (all paired, every colour preference met, no repeated float) is taken without a matching.

Extensions of the arena: completability over rounds (C.04.1: the remaining rounds must stay
pairable). For fields of at most ``LOOKAHEAD_PLAYERS`` a round's pairing is checked to extend
to repeat-free pairings of every remaining round (a bounded search); when it does not, the
nearest pairing that does is chosen (fewest and smallest score differences). White is South
in game 1 of the best-of-three.
"""

from __future__ import annotations

import copy
import functools
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

import networkx as nx

from tournaments.formats.base import BYE, FORFEIT, MATCH, Field, Played

WHITE, BLACK, NO_COLOUR = 1, -1, 0
DOWN, UP = "D", "U"
#: The virtual player a pairing-allocated bye is a "pairing" with.
BYE_ID = -1
#: Fields up to this many active players are checked for completability over the rounds.
LOOKAHEAD_PLAYERS = 16
#: Search nodes the completability check may spend before it assumes the rounds complete.
LOOKAHEAD_BUDGET = 20000


@dataclass
class Player:
    """One player to pair: ``id`` (the caller's index), ``tpn`` (pairing number, 1-based),
    ``score2`` (score in half points), ``colours`` (WHITE/BLACK of each played game, in round
    order), ``floats`` (DOWN/UP/"" of the last rounds, most recent first), ``bye_ok`` (C2),
    ``opponents`` (ids met)."""

    id: int
    tpn: int
    score2: int
    colours: tuple[int, ...] = ()
    floats: tuple[str, ...] = ()
    bye_ok: bool = True
    opponents: frozenset[int] = frozenset()
    topscorer: bool = False
    # Derived colour data (1.6-1.7), set by ``__post_init__``.
    imbalance: int = field(init=False, default=0)
    preference: int = field(init=False, default=NO_COLOUR)
    repeated: int = field(init=False, default=NO_COLOUR)
    #: An absolute colour preference (1.7.1): a difference beyond +-1 or the same colour in
    #: the last two games played.
    absolute: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        whites = self.colours.count(WHITE)
        blacks = len(self.colours) - whites
        lower = BLACK if whites > blacks else WHITE
        self.imbalance = abs(whites - blacks)
        run = 0
        for c in reversed(self.colours):
            if c != self.colours[-1]:
                break
            run += 1
        last = self.colours[-1] if self.colours else NO_COLOUR
        if self.imbalance > 1:
            self.preference = lower
        elif run > 1:
            self.preference = -last
        elif self.imbalance > 0:
            self.preference = lower
        elif run:
            self.preference = -last
        self.repeated = last if run > 1 else NO_COLOUR
        self.absolute = self.imbalance > 1 or self.repeated != NO_COLOUR

    @property
    def absolute_imbalance(self) -> bool:
        return self.imbalance > 1

    @property
    def strong(self) -> bool:
        return not self.absolute and self.imbalance > 0

    def float_ago(self, rounds_back: int) -> str:
        return self.floats[rounds_back - 1] if len(self.floats) >= rounds_back else ""


def compatible_preferences(a: int, b: int) -> bool:
    return a != b or a == NO_COLOUR or b == NO_COLOUR


def compatible(p: Player, q: Player) -> bool:
    """C1 and C3 (C2 for the virtual bye player)."""
    if q.id == BYE_ID:
        return p.bye_ok
    if p.id == BYE_ID:
        return q.bye_ok
    if q.id in p.opponents:
        return False
    if p.absolute and q.absolute and p.preference == q.preference:
        return p.topscorer or q.topscorer
    return True


def white_of(a: Player, b: Player, initial: int = WHITE) -> Player:
    """The player of ``a``, ``b`` who gets White (article 5; ``a`` ranks higher)."""
    colour = _neutral_colour(a, b)
    if colour == NO_COLOUR:
        if a.preference == NO_COLOUR and b.preference == NO_COLOUR:
            colour = initial if a.tpn % 2 else -initial
        else:
            colour = a.preference if a.preference != NO_COLOUR else -b.preference
    return a if colour == WHITE else b


def _neutral_colour(a: Player, b: Player) -> int:
    """``a``'s colour by rules 5.2.1-5.2.3, NO_COLOUR when they do not decide."""
    if compatible_preferences(a.preference, b.preference):
        if a.preference != NO_COLOUR:
            return a.preference
        return -b.preference  # NO_COLOUR stays NO_COLOUR
    if a.absolute and (a.imbalance > b.imbalance or not b.absolute):
        return a.preference
    if b.absolute and (b.imbalance > a.imbalance or not a.absolute):
        return -b.preference
    if a.strong and not b.strong:
        return a.preference
    if b.strong and not a.strong:
        return -b.preference
    for ca, cb in zip(reversed(a.colours), reversed(b.colours), strict=False):
        if ca != cb:
            return cb
    return NO_COLOUR


# --- edge weights -------------------------------------------------------------------------


class Weights:
    """The bit layout of one bracket's edge weights (module docstring, criteria order)."""

    def __init__(self, players: Sequence[Player], played_rounds: int):
        n = len(players) + 2
        self.count_bits = n.bit_length() + 1
        scores = sorted({p.score2 for p in players})
        self.level = {s: k * self.count_bits for k, s in enumerate(scores)}
        self.score_bits = len(scores) * self.count_bits
        self.played_rounds = played_rounds

    def for_players(self, players: Sequence[Player]) -> Weights:
        """The same layout with score levels only for the scores of ``players`` (a matching's
        nodes): the weights order every pairing of them as before (the levels keep their
        order and the count fields their width), with far fewer bits to add and compare."""
        narrow = copy.copy(self)
        scores = sorted({p.score2 for p in players})
        narrow.level = {s: k * self.count_bits for k, s in enumerate(scores)}
        narrow.score_bits = len(scores) * self.count_bits
        return narrow

    def base(
        self, h: Player, lo: Player, in_bracket: bool, in_next: bool, completion: int = 2
    ) -> tuple[int, int]:
        """(weight, bits) of the pair ``h`` (higher) ``lo`` without the order term."""
        cb, sb = self.count_bits, self.score_bits
        w = completion  # C4: the matched players (edges x 2, or the bracket's players only)
        bye = h.id == BYE_ID or lo.id == BYE_ID
        real_in = in_bracket and not bye
        real_next = in_next and not bye
        # C5, C6
        w = (w << cb) | real_in
        w = (w << sb) | ((1 << self.level[h.score2]) if real_in else 0)
        # C7
        w = (w << cb) | real_next
        w = (w << sb) | ((1 << self.level[h.score2]) if real_next else 0)
        # C10-C13
        c10, c11, c12, c13 = colour_bits(h, lo) if real_in else (False,) * 4
        for bit in (c10, c11, c12, c13):
            w = (w << cb) | bit
        # C14-C17 then C18-C21
        floating = h.score2 > lo.score2
        counts: list[int] = []
        scores: list[int] = []
        for back in (1, 2):
            if self.played_rounds < back:
                continue
            hf, lf = h.float_ago(back), lo.float_ago(back)
            if real_in:
                counts.append((lf == DOWN) + (not floating and hf == DOWN))
                counts.append(int(not (floating and lf == UP)))
                scores.append(
                    ((lf == DOWN) << self.level[lo.score2]) + ((hf == DOWN) << self.level[h.score2])
                )
                scores.append(0 if floating and lf == UP else 1 << self.level[h.score2])
            else:
                counts += [0, 0]
                scores += [0, 0]
        # bbp's order: counts of round -1, of round -2, then scores of -1, of -2.
        for c in counts:
            w = (w << cb) | c
        for s in scores:
            w = (w << sb) + s
        return w, 0


def colour_bits(h: Player, lo: Player) -> tuple[bool, bool, bool, bool]:
    """Whether the pair ``h``-``lo`` meets C10 (no topscorer's difference beyond 2), C11 (no
    topscorer's third same colour running), C12 (both preferences) and C13 (both strong
    preferences), as bbpPairings evaluates them."""
    return _colour_bits(
        h.preference, h.imbalance, h.repeated, lo.preference, lo.imbalance, lo.repeated
    )


@functools.cache
def _colour_bits(
    h_pref: int, h_imb: int, h_rep: int, lo_pref: int, lo_imb: int, lo_rep: int
) -> tuple[bool, bool, bool, bool]:
    """``colour_bits`` from the colour data (1.6-1.7) alone: few distinct arguments a round,
    so the answers are cached."""
    h_abs, lo_abs = h_imb > 1 or h_rep != NO_COLOUR, lo_imb > 1 or lo_rep != NO_COLOUR
    h_strong, lo_strong = not h_abs and h_imb > 0, not lo_abs and lo_imb > 0
    same = h_pref == lo_pref
    c10 = not (h_imb > 1 and lo_imb > 1 and same)
    if not (h_abs and lo_abs and same):
        c11 = True
    elif h_imb == lo_imb:
        c11 = h_rep == NO_COLOUR or h_rep != lo_rep
    else:
        weaker_rep = lo_rep if h_imb > lo_imb else h_rep
        c11 = weaker_rep != -h_pref
    c12 = compatible_preferences(h_pref, lo_pref)
    c13 = not (h_strong or h_abs) or not (lo_strong or lo_abs) or (h_abs and lo_abs) or not same
    return c10, c11, c12, c13


def perfect_pair(h: Player, lo: Player) -> bool:
    """Whether ``h``-``lo`` may meet (C1, C3) and meets every colour criterion."""
    return compatible(h, lo) and all(colour_bits(h, lo))


# --- brackets -----------------------------------------------------------------------------


def score_groups(players: Sequence[Player]) -> list[list[Player]]:
    """Players in pairing order (1.2) cut into score groups, highest first."""
    groups: list[list[Player]] = []
    for p in sorted(players, key=lambda p: (-p.score2, p.tpn)):
        if groups and groups[-1][0].score2 == p.score2:
            groups[-1].append(p)
        else:
            groups.append([p])
    return groups


class _MatchingGraph(nx.Graph):  # type: ignore[type-arg]
    """A graph whose ``graph[v]`` is its adjacency dict itself, not a read-only view of it:
    networkx's blossom matching looks up ``graph[v][w]`` in every slack it computes, and the
    view layers took about a quarter of its time at 200 entrants. Same graph, same matching;
    only for graphs built here and handed to ``max_weight_matching``."""

    def __getitem__(self, n: int) -> dict[int, dict[str, int]]:  # type: ignore[override]
        adjacency: dict[int, dict[str, int]] = self._adj[n]  # type: ignore[attr-defined]
        return adjacency


def _match(nodes: Sequence[Player], weight: dict[tuple[int, int], int]) -> dict[int, int]:
    """Maximum-weight matching of ``nodes`` (ids) under ``weight`` (pairs of ids)."""
    graph = _MatchingGraph()
    graph.add_nodes_from(p.id for p in nodes)
    for (a, b), w in weight.items():
        graph.add_edge(a, b, weight=w)
    mate: dict[int, int] = {}
    for a, b in nx.max_weight_matching(graph):
        mate[a], mate[b] = b, a
    return mate


def pairable(players: Sequence[Player]) -> bool:
    """Whether ``players`` can all be paired under C1-C3 (C4 check)."""
    if len(players) % 2:
        return False
    if not players:
        return True
    allowed = {p.id: {q.id for q in players if q is not p and compatible(p, q)} for p in players}
    # Greedy first (most constrained first): almost always enough in a large field.
    left = set(allowed)
    # degree[x] is len(allowed[x] & left), kept up to date as pairs leave.
    degree = {x: len(xs) for x, xs in allowed.items()}
    while left:
        p = min(left, key=lambda x: (degree[x], x))
        options = allowed[p] & left
        if not options:
            break
        q = min(options, key=lambda x: (degree[x], x))
        left -= {p, q}
        for x in left:
            degree[x] -= (p in allowed[x]) + (q in allowed[x])
    if not left:
        return True
    graph = _MatchingGraph()
    graph.add_nodes_from(allowed)
    graph.add_edges_from((a, b) for a, bs in allowed.items() for b in bs if a < b)
    return len(nx.max_weight_matching(graph, maxcardinality=True)) * 2 == len(players)


def _mdp_term(
    mdps: Sequence[Player], residents: Sequence[Player]
) -> tuple[dict[tuple[int, int], int], int]:
    """The bracket-procedure term of a heterogeneous bracket (article 3.1): the MDPs (S1) in
    order each meet the highest resident (S2) they can; an MDP-MDP pair ranks below any
    MDP-resident pair. Returns {(id, id): term} and its bit width."""
    k = len(residents) + len(mdps) + 1
    width = k.bit_length()
    terms: dict[tuple[int, int], int] = {}
    m = len(mdps)
    for i, p in enumerate(mdps):
        shift = (m - 1 - i) * width
        for j, q in enumerate(residents):
            terms[(p.id, q.id)] = (k - 1 - j) << shift
        for j in range(i + 1, m):
            terms[(p.id, mdps[j].id)] = (m - j) << shift
    return terms, m * width


def _remainder_term(
    remainder: Sequence[Player], pairs: int
) -> tuple[dict[tuple[int, int], int], int]:
    """The bracket-procedure term of a remainder (article 3.2-3.3) split into S1 (its first
    ``pairs`` players) and S2: first the fewest exchanges (the most pairs led by an S1
    player), then the smallest exchanged numbers (the smallest sum of the leading players'
    places), then each leading player in order meets the earliest player it can (the order of
    transpositions). Returns {(id, id): term} and its bit width."""
    k = len(remainder)
    width = k.bit_length() + 1
    order_bits = k * width
    place_bits = (k * k).bit_length() + 1
    count_bits = k.bit_length() + 1
    terms: dict[tuple[int, int], int] = {}
    for i, p in enumerate(remainder):
        for j in range(i + 1, k):
            term = int(i < pairs)
            term = (term << place_bits) + (k - i)
            term = (term << order_bits) + ((k - j) << ((k - 1 - i) * width))
            terms[(p.id, remainder[j].id)] = term
    return terms, count_bits + place_bits + order_bits


def _bracket_matching(
    bracket: Sequence[Player],
    lower: Sequence[Player],
    next_ids: set[int],
    weights: Weights,
    order: tuple[dict[tuple[int, int], int], int],
    whole_rest: bool = True,
) -> dict[int, int]:
    """One matching of ``bracket`` and ``lower`` (bracket players paired inside it first).
    When ``lower`` is not the whole rest of the field, C4 counts only the bracket's players
    matched (the caller checks the rest pairs afterwards)."""
    in_bracket = {p.id for p in bracket}
    terms, order_bits = order
    nodes = [*bracket, *lower]
    weights = weights.for_players(nodes)
    weight: dict[tuple[int, int], int] = {}
    for x, y in itertools.combinations(nodes, 2):
        h, lo = (x, y) if (-x.score2, x.tpn) <= (-y.score2, y.tpn) else (y, x)
        if h.id == BYE_ID:
            h, lo = lo, h
        if not compatible(h, lo):
            continue
        both_in = h.id in in_bracket and lo.id in in_bracket
        to_next = lo.id in next_ids and (h.id in in_bracket or h.id in next_ids)
        completion = 2 if whole_rest else (h.id in in_bracket) + (lo.id in in_bracket)
        if h.id not in in_bracket and lo.id not in in_bracket and not to_next:
            if not completion:
                continue
            w, _ = weights.base(h, lo, False, False, completion)
        else:
            w, _ = weights.base(h, lo, both_in, to_next, completion)
        t = terms.get((h.id, lo.id), 0) or terms.get((lo.id, h.id), 0)
        weight[(h.id, lo.id)] = (w << order_bits) + t
    return _match(nodes, weight)


def pair_brackets(players: Sequence[Player], played_rounds: int) -> list[tuple[Player, Player]]:
    """The round's pairs (higher-ranked first; the bye as a pair with the virtual player
    ``BYE_ID``) by the bracket procedure. Raises ``NoPairing`` when C1-C4 cannot all hold."""
    everyone = list(players)
    if len(everyone) % 2:
        everyone = _bye_candidates(everyone)
        everyone.append(Player(BYE_ID, tpn=10**9, score2=-1))
    if not pairable(everyone):
        raise NoPairing
    weights = Weights(everyone, played_rounds)
    groups = score_groups(everyone)
    by_id = {p.id: p for p in everyone}
    pairs: list[tuple[Player, Player]] = []
    mdps: list[Player] = []
    done: set[int] = set()
    for g in range(len(groups)):
        group = [p for p in groups[g] if p.id not in done]
        later = [
            grp for grp in ([p for p in gr if p.id not in done] for gr in groups[g + 1 :]) if grp
        ]
        bracket = [*mdps, *group]
        if not bracket:
            continue
        # The bracket's matching sees the next score group (C7) and, when that is tiny, the
        # one after; C4 is checked on the whole rest below, and the whole rest is matched
        # when it fails.
        lower: list[Player] = []
        for grp in later:
            lower += grp
            if len(lower) >= LOWER_MIN:
                break
        next_ids = {p.id for p in later[0]} if later else set()
        rest = [p for grp in later for p in grp]
        fast = _fast_bracket(bracket, mdps, later[0] if later else [], played_rounds)
        if fast is None and len(bracket) % 2 == 0 and pairable(bracket) and pairable(rest):
            # Everyone can be paired inside the bracket and the rest among itself: then only
            # such pairings are best on C4-C7, and the players below change nothing.
            lower, rest = [], []
        mate = (
            fast
            if fast is not None
            else _pair_one_bracket(bracket, mdps, lower, next_ids, weights, len(lower) == len(rest))
        )
        fixed = _fixed_pairs(bracket, mate, by_id)
        paired_ids = {p.id for pr in fixed for p in pr}
        carried = [p for p in bracket if p.id not in paired_ids]
        remaining = [*carried, *(p for p in rest if p.id not in paired_ids)]
        if (fast is not None or len(lower) < len(rest)) and not pairable(remaining):
            mate = _pair_one_bracket(bracket, mdps, rest, next_ids, weights)
            fixed = _fixed_pairs(bracket, mate, by_id)
            paired_ids = {p.id for pr in fixed for p in pr}
            carried = [p for p in bracket if p.id not in paired_ids]
        pairs += fixed
        done |= paired_ids
        mdps = carried
    if mdps:
        raise NoPairing
    return pairs


def _bye_candidates(players: list[Player]) -> list[Player]:
    """``players`` with the PAB allowed only to the eligible players (C2) of the lowest score
    that can take it with everyone else still paired (1.5, C4), as bbpPairings restricts it.
    Raises ``NoPairing`` when nobody can take it."""
    for score in sorted({p.score2 for p in players if p.bye_ok}):
        if any(
            pairable([q for q in players if q is not p])
            for p in players
            if p.bye_ok and p.score2 == score
        ):
            return [p if p.score2 <= score else replace(p, bye_ok=False) for p in players]
    raise NoPairing


def _fixed_pairs(
    bracket: Sequence[Player], mate: dict[int, int], by_id: dict[int, Player]
) -> list[tuple[Player, Player]]:
    ids = {p.id for p in bracket}
    out = []
    for p in bracket:
        q = mate.get(p.id)
        if (q is not None and q in ids and bracket.index(p) < bracket.index(by_id[q])) or (
            q is not None and q == BYE_ID
        ):
            out.append((p, by_id[q]))
    return out


#: Players below a bracket its matching sees at least (whole score groups).
LOWER_MIN = 4
#: Search nodes the fast path may spend on one bracket before the matching takes over.
FAST_BUDGET = 4000


def _fast_bracket(
    bracket: Sequence[Player],
    mdps: Sequence[Player],
    next_group: Sequence[Player],
    played_rounds: int,
) -> dict[int, int] | None:
    """A bracket's mates when a pairing meets every quality criterion at its best, found in
    the bracket procedure's own order (article 3: MDPs each with the highest resident they
    can have, then the transpositions of the remainder): then it is the matching's answer
    too, without the matching. None when no such pairing is found quickly."""
    residents = [p for p in bracket if p not in mdps]
    mate: dict[int, int] = {}
    recent = range(1, min(played_rounds, 2) + 1)
    for m in mdps:
        # C15/C17 (and their scores): no resident who upfloated lately meets an MDP.
        for r in residents:
            if (
                r.id not in mate
                and perfect_pair(m, r)
                and all(r.float_ago(b) != UP for b in recent)
            ):
                mate[m.id], mate[r.id] = r.id, m.id
                break
        else:
            return None
    remainder = [r for r in residents if r.id not in mate]
    pairs = len(remainder) // 2
    # C12 in every pair: a pair holds at most one player preferring each colour, so more
    # of one preference than pairs (and the floater) means the search below cannot succeed.
    for colour in (WHITE, BLACK):
        if sum(r.preference == colour for r in remainder) > len(remainder) - pairs:
            return None
    s1, s2 = remainder[:pairs], remainder[pairs:]
    taken: set[int] = set()
    chosen: list[int] = []
    budget = [FAST_BUDGET]

    def floater_ok(f: Player) -> bool:
        # C14/C16: a player who downfloated lately does not float again; C7: the floater
        # is paired in the next bracket (or takes the bye).
        if any(f.float_ago(b) == DOWN for b in recent):
            return False
        if len(next_group) == 1 and next_group[0].id == BYE_ID:
            return f.bye_ok
        return _pairable_with(f, next_group)

    def search(i: int) -> bool:
        budget[0] -= 1
        if budget[0] <= 0:
            return False
        if i == len(s1):
            left = [q for q in s2 if q.id not in taken]
            return not left or floater_ok(left[0])
        for q in s2:
            if q.id in taken or not perfect_pair(s1[i], q):
                continue
            taken.add(q.id)
            chosen.append(q.id)
            if search(i + 1):
                return True
            taken.discard(q.id)
            chosen.pop()
        return False

    if not search(0):
        return None
    for p, q in zip(s1, chosen, strict=True):
        mate[p.id], mate[q] = q, p.id
    left = [q for q in s2 if q.id not in taken]
    if left and len(next_group) == 1 and next_group[0].id == BYE_ID:
        mate[left[0].id] = BYE_ID
    return mate


def _pairable_with(f: Player, group: Sequence[Player]) -> bool:
    """Whether the next bracket (``f`` and ``group``) pairs as well as it can with ``f``
    paired: all of it, or all but one when its size is odd."""
    if len(group) % 2 == 0:
        # One of the group must float anyway: try each partner of f, the rest pairs but one.
        for q in group:
            if compatible(f, q):
                rest = [x for x in group if x is not q]
                if any(pairable([x for x in rest if x is not y]) for y in rest[-1:]):
                    return True
        return False
    return pairable([f, *group])


def _pair_one_bracket(
    bracket: Sequence[Player],
    mdps: Sequence[Player],
    lower: Sequence[Player],
    next_ids: set[int],
    weights: Weights,
    whole_rest: bool = True,
) -> dict[int, int]:
    """The mates of one bracket's players: MDPs first (pass 1), then the remainder (pass 2)."""
    residents = [p for p in bracket if p not in mdps]
    fixed: dict[int, int] = {}
    remainder = residents
    if mdps:
        order = _mdp_term(mdps, residents)
        mate = _bracket_matching(bracket, lower, next_ids, weights, order, whole_rest)
        resident_ids = {p.id for p in residents}
        for p in mdps:
            q = mate.get(p.id)
            if q is not None and q in resident_ids:
                fixed[p.id], fixed[q] = q, p.id
        remainder = [p for p in residents if p.id not in fixed]
        # MDPs not paired with a resident float on; MDP-MDP pairs are kept as matched.
        for p in mdps:
            q = mate.get(p.id)
            if p.id not in fixed and q is not None and any(m.id == q for m in mdps):
                fixed[p.id], fixed[q] = q, p.id
    if not remainder:
        return fixed
    # S1 is as long as the remainder has pairs: a count the order term cannot change (C5 is
    # above it), so a guess is checked by the matching it orders and corrected if wrong.
    rem_ids = {p.id for p in remainder}
    # The MDPs that float on stay in the graph, below the remainder, for C4.
    lower = [*(m for m in mdps if m.id not in fixed), *lower]
    guess = len(remainder) // 2
    order = _remainder_term(remainder, guess)
    mate = _bracket_matching(remainder, lower, next_ids, weights, order, whole_rest)
    pairs_in = sum(1 for p in remainder if mate.get(p.id) in rem_ids) // 2
    if pairs_in != guess:
        order = _remainder_term(remainder, pairs_in)
        mate = _bracket_matching(remainder, lower, next_ids, weights, order, whole_rest)
    for p in remainder:
        q = mate.get(p.id)
        if q is not None and (q in rem_ids or q == BYE_ID):
            fixed[p.id] = q
    return fixed


class NoPairing(Exception):
    """No pairing meets the absolute criteria C1-C3 with everyone paired (C4)."""


# --- completability over rounds ------------------------------------------------------------


def rounds_completable(
    ids: Sequence[int], met: set[frozenset[int]], had_bye: set[int], rounds: int
) -> bool | None:
    """Whether ``rounds`` more rounds of repeat-free pairings (with at most one bye each for
    an odd field) exist; None when the search budget ran out first."""
    budget = [LOOKAHEAD_BUDGET]

    def search(met_: set[frozenset[int]], byes: set[int], left: int) -> bool | None:
        if left == 0:
            return True
        pool = list(ids)
        choices_bye: Iterable[int | None] = [None]
        if len(pool) % 2:
            choices_bye = [p for p in reversed(pool) if p not in byes]
        unknown = False
        for bye in choices_bye:
            players = [p for p in pool if p != bye]
            for matching in _perfect_matchings(players, met_, budget):
                if budget[0] <= 0:
                    return None
                new_met = met_ | {frozenset(pr) for pr in matching}
                got = search(new_met, byes | ({bye} if bye is not None else set()), left - 1)
                if got:
                    return True
                unknown = unknown or got is None
            if budget[0] <= 0:
                return None
        return None if unknown else False

    return search(set(met), set(had_bye), rounds)


def _perfect_matchings(
    players: Sequence[int], met: set[frozenset[int]], budget: list[int]
) -> Iterable[list[tuple[int, int]]]:
    """Every repeat-free perfect matching of ``players`` (first player's partner first)."""
    if not players:
        yield []
        return
    first, rest = players[0], players[1:]
    for k, q in enumerate(rest):
        budget[0] -= 1
        if budget[0] <= 0:
            return
        if frozenset((first, q)) in met:
            continue
        for tail in _perfect_matchings([*rest[:k], *rest[k + 1 :]], met, budget):
            yield [(first, q), *tail]


# --- from the arena's field and history ------------------------------------------------------


def pairing_numbers(field: Field) -> dict[int, int]:
    """Each entrant's pairing number (1.1: rating descending, then seed), 1-based."""
    order = sorted(range(field.n), key=lambda i: (-field.entrants[i].rating, i))
    return {player: k + 1 for k, player in enumerate(order)}


def players_from(field: Field, history: Sequence[Played], total_rounds: int) -> list[Player]:
    """The active players of ``field`` with their scores, colours and floats (1.4-1.7) from
    ``history``; ``total_rounds`` decides who is a topscorer when the last round is paired."""
    tpn = pairing_numbers(field)
    rounds = max((p.round for p in history), default=0)
    gained: dict[int, list[float]] = {i: [0.0] * (rounds + 1) for i in range(field.n)}
    colours: dict[int, list[int]] = {i: [] for i in range(field.n)}
    opponents: dict[int, set[int]] = {i: set() for i in range(field.n)}
    # Per round: who played whom (for floats) and who scored without playing.
    games: dict[int, list[tuple[int, int]]] = {}
    unplayed_win: dict[int, set[int]] = {}
    no_bye: set[int] = set()
    for p in sorted(history, key=lambda p: p.round):
        if p.kind == BYE:
            gained[p.a][p.round] += 1.0
            unplayed_win.setdefault(p.round, set()).add(p.a)
            no_bye.add(p.a)
        elif p.kind == FORFEIT:
            gained[p.a][p.round] += 1.0
            unplayed_win.setdefault(p.round, set()).add(p.a)
            no_bye.add(p.a)
            if p.b is not None:
                opponents[p.a].add(p.b)
                opponents[p.b].add(p.a)
        elif p.kind == MATCH and p.b is not None:
            opponents[p.a].add(p.b)
            opponents[p.b].add(p.a)
            if p.points_a is None:
                continue  # aborted or unfinished: met (C1), but no game for colours or floats
            gained[p.a][p.round] += p.points_a
            gained[p.b][p.round] += 1.0 - p.points_a
            colours[p.a].append(WHITE)
            colours[p.b].append(BLACK)
            games.setdefault(p.round, []).append((p.a, p.b))

    def score_before(player: int, rnd: int) -> float:
        return sum(gained[player][1:rnd])

    floats: dict[int, list[str]] = {i: [] for i in range(field.n)}
    for rnd in range(rounds, max(0, rounds - 2), -1):
        this = {i: "" for i in range(field.n)}
        for a, b in games.get(rnd, []):
            sa, sb = score_before(a, rnd), score_before(b, rnd)
            if sa != sb:
                this[a], this[b] = (DOWN, UP) if sa > sb else (UP, DOWN)
        for a in unplayed_win.get(rnd, set()):
            this[a] = DOWN
        for i in range(field.n):
            floats[i].append(this[i])
    top_line = rounds * 1.0 / 2
    last_round = field.round + 1 >= total_rounds
    out = []
    for i in range(field.n):
        if not field.active(i):
            continue
        score = sum(gained[i])
        out.append(
            Player(
                id=i,
                tpn=tpn[i],
                score2=round(score * 2),
                colours=tuple(colours[i]),
                floats=tuple(floats[i]),
                bye_ok=i not in no_bye,
                opponents=frozenset(opponents[i]),
                topscorer=last_round and score > top_line,
            )
        )
    return out


@dataclass(frozen=True)
class DutchRound:
    """One round's pairing: ``pairs`` as (White, Black) player ids, in board order (the
    higher-ranked player's board first), and ``bye`` (None: no PAB)."""

    pairs: tuple[tuple[int, int], ...]
    bye: int | None


def pair_players(players: Sequence[Player], played_rounds: int, initial: int = WHITE) -> DutchRound:
    """The Dutch pairing of ``players`` (module docstring). Raises ``NoPairing``."""
    pairs = pair_brackets(players, played_rounds)
    bye = next((h.id for h, lo in pairs if lo.id == BYE_ID), None)
    board = sorted(
        ((h, lo) for h, lo in pairs if lo.id != BYE_ID),
        key=lambda pr: (-max(pr[0].score2, pr[1].score2), min(pr[0].tpn, pr[1].tpn)),
    )
    out = []
    for h, lo in board:
        white = white_of(h, lo, initial)
        out.append((white.id, (lo if white is h else h).id))
    return DutchRound(tuple(out), bye)


def pair_completable(
    players: Sequence[Player], played_rounds: int, rounds_after: int, initial: int = WHITE
) -> DutchRound:
    """``pair_players``, then, for a field of at most ``LOOKAHEAD_PLAYERS``, the check that
    ``rounds_after`` more rounds stay pairable without repeats (module docstring); when the
    Dutch pairing fails it, the nearest pairing that passes (fewest players paired outside
    their score group, then the smallest squared score differences, then the most pairs in
    common with the Dutch pairing). Raises ``NoPairing``."""
    best = pair_players(players, played_rounds, initial)
    if rounds_after <= 0 or len(players) > LOOKAHEAD_PLAYERS:
        return best
    ids = [p.id for p in sorted(players, key=lambda p: (-p.score2, p.tpn))]
    met = {frozenset((p.id, q)) for p in players for q in p.opponents}
    had_bye = {p.id for p in players if not p.bye_ok}
    by_id = {p.id: p for p in players}

    def completes(pairs: Iterable[tuple[int, int]], bye: int | None) -> bool:
        after = met | {frozenset(pr) for pr in pairs}
        byes = had_bye | ({bye} if bye is not None else set())
        return rounds_completable(ids, after, byes, rounds_after) is not False

    if completes(best.pairs, best.bye):
        return best
    dutch_pairs = {frozenset(pr) for pr in best.pairs}
    candidates: list[tuple[tuple[int, int, int], list[tuple[int, int]], int | None]] = []
    budget = [LOOKAHEAD_BUDGET]
    byes: list[int | None] = [None]
    if len(ids) % 2:
        byes = [i for i in reversed(ids) if by_id[i].bye_ok]
    for bye in byes:
        pool = [i for i in ids if i != bye]
        for matching in _perfect_matchings(pool, met, budget):
            if any(not compatible(by_id[a], by_id[b]) for a, b in matching):
                continue
            gaps = [abs(by_id[a].score2 - by_id[b].score2) for a, b in matching]
            key = (
                sum(g > 0 for g in gaps),
                sum(g * g for g in gaps),
                -sum(frozenset(pr) in dutch_pairs for pr in matching),
            )
            candidates.append((key, matching, bye))
    candidates.sort(key=lambda c: c[0])
    for _, matching, bye in candidates:
        if completes(matching, bye):
            board = []
            for a, b in matching:
                h, lo = sorted((by_id[a], by_id[b]), key=lambda p: (-p.score2, p.tpn))
                white = white_of(h, lo, initial)
                board.append(((white.id, (lo if white is h else h).id), h))
            board.sort(key=lambda x: (-x[1].score2, x[1].tpn))
            return DutchRound(tuple(pr for pr, _ in board), bye)
    return best
