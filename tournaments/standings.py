"""Tournament standings and crosstable (pure, no Django).

Scoring: a best-of-three match is worth 1 point to its winner, 1/2 to each player when drawn
(equal game scores, e.g. 1.5-1.5), 0 to the loser. Aborted or unplayed matches score nothing.
Games count at the game level (win 1, draw 1/2) for the W/D/L columns and the last tie-break.

Order (the tie-breaks, in this order):
  1. points (match points), more is better;
  2. Sonneborn-Berger: the sum of the final points of the opponents an engine beat, plus half
     the points of those it drew with (rewards results against the strong);
  3. head-to-head: match points scored in the matches among the engines still tied after 1-2;
  4. games won (game-level wins over the whole tournament);
  5. seed order (entry number), so the order is total and deterministic.
Whenever 3 or 4 splits a tied group, head-to-head is applied again within each part that is
still tied, counting only the matches among that part, before games won (the usual practice,
e.g. FIDE's handbook on tie-breaks: a mini-table of the players still tied): three engines
level on head-to-head in a cycle can leave two of them tied, and the match between those two
then decides. ``head_to_head`` shows the points of the last such mini-table the engine was in.
Engines that no tie-break separates share a rank.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field


@dataclass(frozen=True)
class MatchResult:
    """A finished match between players ``a`` and ``b`` (indexes).

    ``games`` are A's game scores (1, 0.5, 0).
    """

    a: int
    b: int
    score_a: float
    score_b: float
    games: tuple[float, ...]
    match_id: int | None = None

    def match_points(self) -> tuple[float, float]:
        """(A's, B's) match points: 1/0, 1/2 each, or 0/1."""
        if self.score_a > self.score_b:
            return 1.0, 0.0
        if self.score_a < self.score_b:
            return 0.0, 1.0
        return 0.5, 0.5


@dataclass
class StandingRow:
    """One line of the standings (``player`` is the player index; ``rank`` 1-based)."""

    player: int
    rank: int = 0
    points: float = 0.0
    matches: int = 0
    match_wins: int = 0
    match_draws: int = 0
    match_losses: int = 0
    game_points: float = 0.0
    games: int = 0
    game_wins: int = 0
    game_draws: int = 0
    game_losses: int = 0
    sonneborn_berger: float = 0.0
    head_to_head: float = 0.0


@dataclass
class CrossCell:
    """Player ``row`` against ``col``: game points each way and the match ids behind them."""

    score: float = 0.0
    opponent_score: float = 0.0
    match_points: float = 0.0
    match_ids: list[int] = field(default_factory=list)


def standings(n: int, results: list[MatchResult]) -> list[StandingRow]:
    """The ordered standings of players 0..n-1 from their finished matches (module docstring)."""
    rows = [StandingRow(player=i) for i in range(n)]
    for m in results:
        pa, pb = m.match_points()
        for me, my_points, my_score in ((m.a, pa, m.score_a), (m.b, pb, m.score_b)):
            row = rows[me]
            row.points += my_points
            row.matches += 1
            row.game_points += my_score
            if my_points == 1.0:
                row.match_wins += 1
            elif my_points == 0.5:
                row.match_draws += 1
            else:
                row.match_losses += 1
        for g in m.games:
            _count_game(rows[m.a], g)
            _count_game(rows[m.b], 1.0 - g)
    for m in results:
        pa, pb = m.match_points()
        rows[m.a].sonneborn_berger += pa * rows[m.b].points
        rows[m.b].sonneborn_berger += pb * rows[m.a].points

    def primary(r: StandingRow) -> tuple[float, float]:
        return (r.points, r.sonneborn_berger)

    groups: dict[tuple[float, float], list[StandingRow]] = defaultdict(list)
    for r in rows:
        groups[primary(r)].append(r)
    ordered: list[StandingRow] = []
    for key in sorted(groups, key=lambda k: (-k[0], -k[1])):
        for tied in _break_ties(groups[key], results):
            rank = len(ordered) + 1
            for r in sorted(tied, key=lambda r: r.player):
                r.rank = rank
                ordered.append(r)
    return ordered


def _break_ties(group: list[StandingRow], results: list[MatchResult]) -> list[list[StandingRow]]:
    """``group`` (equal on points and Sonneborn-Berger) as ordered classes of engines that no
    tie-break separates: head-to-head within the group, then games won; a part that either
    splits off is ordered again from head-to-head (module docstring)."""
    if len(group) < 2:
        return [group]
    members = {r.player for r in group}
    by_player = {r.player: r for r in group}
    for r in group:
        r.head_to_head = 0.0
    for m in results:
        if m.a in members and m.b in members:
            pa, pb = m.match_points()
            by_player[m.a].head_to_head += pa
            by_player[m.b].head_to_head += pb
    for value in (lambda r: r.head_to_head, lambda r: float(r.game_wins)):
        parts: dict[float, list[StandingRow]] = defaultdict(list)
        for r in group:
            parts[value(r)].append(r)
        if len(parts) > 1:
            return [
                tied for v in sorted(parts, reverse=True) for tied in _break_ties(parts[v], results)
            ]
    return [group]


def crosstable(n: int, results: list[MatchResult]) -> list[list[CrossCell | None]]:
    """An n x n table: cell [i][j] is i's record against j (None on the diagonal or if unplayed)."""
    table: list[list[CrossCell | None]] = [[None] * n for _ in range(n)]
    for m in results:
        pa, pb = m.match_points()
        sides = ((m.a, m.b, m.score_a, m.score_b, pa), (m.b, m.a, m.score_b, m.score_a, pb))
        for me, other, mine, theirs, points in sides:
            cell = table[me][other]
            if cell is None:
                cell = table[me][other] = CrossCell()
            cell.score += mine
            cell.opponent_score += theirs
            cell.match_points += points
            if m.match_id is not None:
                cell.match_ids.append(m.match_id)
    return table


def _count_game(row: StandingRow, score: float) -> None:
    row.games += 1
    if score == 1.0:
        row.game_wins += 1
    elif score == 0.5:
        row.game_draws += 1
    else:
        row.game_losses += 1
