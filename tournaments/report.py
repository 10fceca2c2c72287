"""Plain-text tables of a tournament for terminals (the demo command): one line per finished
match, the leaderboard, the standings with crosstable. Reads only (through the selectors)."""

from __future__ import annotations

from arena.matches.models import Match
from ratings import selectors as rating_selectors
from tournaments import selectors
from tournaments.models import Tournament


def _half(x: float) -> str:
    """1.5 -> "1½", 0.5 -> "½", 2.0 -> "2"."""
    whole, frac = int(x), x - int(x)
    if frac == 0:
        return str(whole)
    return ("" if whole == 0 else str(whole)) + "½"


def match_line(match: Match, done: int, total: int) -> str:
    """One line per match, e.g.

    ``[3/6] round 2  greedy v1 ½-1½ search v1  | g1 search-greedy 1-0 bao_hamna 57 plies | ...``.
    """
    a, b = match.engine_a, match.engine_b
    head = f"[{done}/{total}] round {match.round or '-'}  {a} "
    if match.status == Match.Status.ABORTED:
        reason = (match.error or "").splitlines()[0][:80] if match.error else "no reason"
        head += f"-- {b}  aborted: {reason}"
    else:
        head += f"{_half(match.score_a or 0)}-{_half(match.score_b or 0)} {b}"
    games = [
        f"g{g.index} {g.south.engine.name}-{g.north.engine.name} {g.result} {g.termination} "
        f"{g.plies} plies"
        for g in match.games.select_related("south__engine", "north__engine").order_by("index")
    ]
    return "  | ".join([head, *games])


def leaderboard_table(variant: str) -> str:
    """The variant's leaderboard from the latest fit: rank, engine, rating, 95% interval,
    games, W/D/L, score, likelihood of superiority over the next row; then versions left out."""
    lines = [
        f"Leaderboard {variant}",
        f"{'rank':>4}  {'engine':<16} {'rating':>7} {'95% interval':>15} {'games':>5}  "
        f"{'W/D/L':<9} {'score':>6} {'LOS':>6}",
    ]
    for r in rating_selectors.leaderboard(variant=variant):
        flag = f" (provisional: {r.provisional_reason})" if r.provisional else ""
        los = "" if r.superiority is None else f"{100 * r.superiority:.1f}%"
        low = "unbounded" if r.low is None else f"{r.low:.1f}"
        high = "unbounded" if r.high is None else f"{r.high:.1f}"
        lines.append(
            f"{r.rank:>4}  {r.engine_version!s:<16} {r.bound}{r.rating or 0.0:>7.1f} "
            f"{low:>7}-{high:<7} {r.games:>5}  "
            f"{f'{r.wins}/{r.draws}/{r.losses}':<9} {100 * r.points / max(r.games, 1):>5.1f}% "
            f"{los:>6}{flag}"
        )
    for left_out in rating_selectors.leaderboard_excluded(variant=variant):
        lines.append(f"   -  {left_out.engine_version!s:<16} not rated: {left_out.excluded_reason}")
    return "\n".join(lines)


def standings_table(tournament: Tournament) -> str:
    """Standings (points, SB, match and game W/D/L) and the crosstable in game points."""
    table = selectors.tournament_table(tournament)
    names = [str(e.engine_version) for e in table.entries]
    width = max([len(n) for n in names] + [6])
    lines = [
        f"Standings of '{tournament.name}' (tie-breaks: Sonneborn-Berger, head-to-head, games won)",
        f"{'rank':>4}  {'engine':<{width}} {'pts':>4} {'SB':>5}  matches W/D/L  games W/D/L",
    ]
    for row in table.standings:
        lines.append(
            f"{row.rank:>4}  {names[row.player]:<{width}} {_half(row.points):>4} "
            f"{row.sonneborn_berger:>5.2f}"
            f"  {row.match_wins}/{row.match_draws}/{row.match_losses:<9}  "
            f"{row.game_wins}/{row.game_draws}/{row.game_losses}"
        )
    lines.append("")
    lines.append("Crosstable (game points, row against column)")
    cols = [str(i + 1) for i in range(len(names))]
    lines.append(" " * (width + 4) + " ".join(f"{c:>5}" for c in cols))
    for i, cross_row in enumerate(table.crosstable):
        cells = [
            "x" if i == j else "." if c is None else f"{_half(c.score)}-{_half(c.opponent_score)}"
            for j, c in enumerate(cross_row)
        ]
        lines.append(f"{i + 1:>2}. {names[i]:<{width}}" + " ".join(f"{c:>5}" for c in cells))
    return "\n".join(lines)
