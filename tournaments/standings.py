"""Tournament standings and crosstable (pure, no Django).

Scoring: a best-of-three match is worth 1 point to its winner, 1/2 to each player when drawn
(equal game scores, e.g. 1.5-1.5), 0 to the loser. Aborted or unplayed matches score nothing.
Games count at the game level (win 1, draw 1/2) for the W/D/L columns and the last tie-break.
A result without a game (``Award``) is worth 1 point: a *bye* (Swiss: no opponent) or a
*forfeit win* (the opponent withdrew); neither counts in the match or game W/D/L columns.

Order: points first, then the format's tie-breaks (``tie_breaks``), then seed order (entry
number), so the order is total and deterministic. Engines equal on points and every tie-break
share a rank. The tie-breaks by name (``TIE_BREAKS``):

* ``sonneborn_berger``: the sum of the final points of the opponents an engine beat (a forfeit
  win counts as a win), plus half the points of those it drew with (rewards results against
  the strong);
* ``buchholz``: the sum of the final points of every opponent met (forfeits included); a bye
  counts as an opponent with the engine's own final points (the FIDE "virtual opponent" idea
  reduced to the issue's rule);
* ``head_to_head``: match points scored in the matches among the engines still tied on points
  and every tie-break before it. Whenever a later tie-break splits such a group, head-to-head
  is applied again within each part that is still tied, counting only the matches among that
  part (the usual practice, e.g. FIDE's tie-break rules: a mini-table of the players still
  tied): three engines level on head-to-head in a cycle can be left two by games won, and the
  match between those two then decides. ``head_to_head`` shows the points of the last such
  mini-table the engine was in;
* ``games_won``: game-level wins over the whole tournament.

The default order (round robin, gauntlet) is points, Sonneborn-Berger, head-to-head, games won.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

#: The tie-breaks ``standings`` knows, by name (module docstring).
TIE_BREAKS = ("sonneborn_berger", "buchholz", "head_to_head", "games_won")
#: Round robin and gauntlet order.
DEFAULT_TIE_BREAKS = ("sonneborn_berger", "head_to_head", "games_won")


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


@dataclass(frozen=True)
class Award:
    """One match point without a game to ``player``: a bye when ``opponent`` is None, else a
    forfeit win over ``opponent`` (who withdrew)."""

    player: int
    opponent: int | None = None


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
    buchholz: float = 0.0
    byes: int = 0
    forfeit_wins: int = 0
    forfeit_losses: int = 0


@dataclass
class CrossCell:
    """Player ``row`` against ``col``: game points each way and the match ids behind them."""

    score: float = 0.0
    opponent_score: float = 0.0
    match_points: float = 0.0
    match_ids: list[int] = field(default_factory=list)


def standings(
    n: int,
    results: Sequence[MatchResult],
    awards: Sequence[Award] = (),
    *,
    tie_breaks: Sequence[str] = DEFAULT_TIE_BREAKS,
) -> list[StandingRow]:
    """The ordered standings of players 0..n-1 from their finished matches and their byes and
    forfeit wins (module docstring). Raises ``ValueError`` for an unknown tie-break name."""
    unknown = [t for t in tie_breaks if t not in TIE_BREAKS]
    if unknown:
        raise ValueError(f"unknown tie-break(s) {unknown}; known: {', '.join(TIE_BREAKS)}")
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
    for award in awards:
        rows[award.player].points += 1.0
        if award.opponent is None:
            rows[award.player].byes += 1
        else:
            rows[award.player].forfeit_wins += 1
            rows[award.opponent].forfeit_losses += 1
    # Tie-breaks read final points, so they come after every point is counted.
    for m in results:
        pa, pb = m.match_points()
        rows[m.a].sonneborn_berger += pa * rows[m.b].points
        rows[m.b].sonneborn_berger += pb * rows[m.a].points
        rows[m.a].buchholz += rows[m.b].points
        rows[m.b].buchholz += rows[m.a].points
    for award in awards:
        winner = rows[award.player]
        if award.opponent is None:
            winner.buchholz += winner.points
        else:
            winner.sonneborn_berger += rows[award.opponent].points
            winner.buchholz += rows[award.opponent].points
            rows[award.opponent].buchholz += winner.points

    ordered: list[StandingRow] = []
    for tied in _break_ties(rows, results, ("points", *tie_breaks)):
        rank = len(ordered) + 1
        for r in sorted(tied, key=lambda r: r.player):
            r.rank = rank
            ordered.append(r)
    return ordered


def _break_ties(
    group: list[StandingRow], results: Sequence[MatchResult], keys: Sequence[str]
) -> list[list[StandingRow]]:
    """``group`` as ordered classes of engines that no key separates. The keys are taken in
    order (``head_to_head`` computed among the group); the first one that splits the group
    orders its parts, and each part is ordered again from the first key: the other keys do
    not change within a part, so this re-applies head-to-head among the part alone."""
    if len(group) < 2:
        return [group]
    for name in keys:
        if name == "head_to_head":
            _head_to_head(group, results)
        parts: dict[float, list[StandingRow]] = defaultdict(list)
        for r in group:
            parts[_tie_break_value(r, name)].append(r)
        if len(parts) > 1:
            return [
                tied
                for value in sorted(parts, reverse=True)
                for tied in _break_ties(parts[value], results, keys)
            ]
    return [group]


def _tie_break_value(row: StandingRow, name: str) -> float:
    if name == "games_won":
        return float(row.game_wins)
    value: float = getattr(row, name)
    return value


def _head_to_head(group: list[StandingRow], results: Sequence[MatchResult]) -> None:
    """Set ``head_to_head`` of each row of ``group``: its match points in the matches among
    the group alone."""
    by_player = {r.player: r for r in group}
    for r in group:
        r.head_to_head = 0.0
    for m in results:
        if m.a in by_player and m.b in by_player:
            pa, pb = m.match_points()
            by_player[m.a].head_to_head += pa
            by_player[m.b].head_to_head += pb


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
