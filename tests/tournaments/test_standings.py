"""Standings, tie-breaks and crosstable for constructed results (pure: no database)."""

from __future__ import annotations

from tournaments.standings import MatchResult, StandingRow, crosstable, standings


def _ranking(r: StandingRow) -> tuple[int, int, float, float, float, int]:
    """A row's rank, player and the tie-break values that ordered it."""
    return (r.rank, r.player, r.points, r.sonneborn_berger, r.head_to_head, r.game_wins)


def _results() -> list[MatchResult]:
    # Four players, a cycle among 0, 1, 2 and everyone beats 3, except 3 draws with 2.
    return [
        MatchResult(0, 1, 2.0, 0.0, (1.0, 1.0), 11),
        MatchResult(1, 2, 2.0, 1.0, (1.0, 0.0, 1.0), 12),
        MatchResult(2, 0, 1.5, 0.5, (1.0, 0.5), 13),
        MatchResult(0, 3, 2.0, 0.0, (1.0, 1.0), 14),
        MatchResult(3, 1, 0.5, 1.5, (0.5, 0.0), 15),
        MatchResult(2, 3, 1.5, 1.5, (0.5, 1.0, 0.0), 16),
    ]


def test_points_and_wdl_at_match_and_game_level() -> None:
    rows = {r.player: r for r in standings(4, _results())}
    r0 = rows[0]
    assert (r0.points, r0.match_wins, r0.match_draws, r0.match_losses) == (2.0, 2, 0, 1)
    assert (r0.game_points, r0.games, r0.game_wins, r0.game_draws, r0.game_losses) == (
        4.5,
        6,
        4,
        1,
        1,
    )
    r2 = rows[2]
    assert (r2.points, r2.match_wins, r2.match_draws, r2.match_losses) == (1.5, 1, 1, 1)
    assert (r2.game_wins, r2.game_draws, r2.game_losses) == (3, 2, 3)
    r3 = rows[3]
    assert (r3.points, r3.game_points, r3.game_wins, r3.game_draws, r3.game_losses) == (
        0.5,
        2.0,
        1,
        2,
        4,
    )


def test_sonneborn_berger_breaks_the_tie_between_equal_points() -> None:
    rows = standings(4, _results())
    # 0 and 1 both have 2 points. SB(0) = beat 1 (2) + beat 3 (0.5) = 2.5;
    # SB(1) = beat 2 (1.5) + beat 3 (0.5) = 2.0.
    by_player = {r.player: r for r in rows}
    assert by_player[0].sonneborn_berger == 2.5
    assert by_player[1].sonneborn_berger == 2.0
    assert by_player[2].sonneborn_berger == 2.0 + 0.25  # beat 0 (2) + half of 3's 0.5
    assert [(r.rank, r.player) for r in rows] == [(1, 0), (2, 1), (3, 2), (4, 3)]


def test_head_to_head_ranks_before_games_won() -> None:
    results = [
        MatchResult(0, 1, 2.0, 1.0, (1.0, 0.0, 1.0)),
        MatchResult(0, 2, 1.0, 2.0, (0.0, 1.0, 0.0)),
        MatchResult(0, 3, 2.0, 1.0, (1.0, 0.0, 1.0)),
        MatchResult(0, 4, 1.0, 2.0, (0.0, 1.0, 0.0)),
        MatchResult(1, 2, 0.0, 2.0, (0.0, 0.0)),
        MatchResult(1, 3, 1.0, 2.0, (0.0, 1.0, 0.0)),
        MatchResult(1, 4, 2.0, 1.0, (1.0, 0.0, 1.0)),
        MatchResult(2, 3, 0.0, 2.0, (0.0, 0.0)),
        MatchResult(2, 4, 1.0, 2.0, (0.0, 1.0, 0.0)),
        MatchResult(3, 4, 2.0, 0.0, (1.0, 1.0)),
    ]
    rows = standings(5, results)
    # 4 and 0 tie on 2 points and Sonneborn-Berger 4; 4 beat 0, although 0 won more games (6 vs 5).
    assert [_ranking(r) for r in rows] == [
        (1, 3, 3.0, 5.0, 0.0, 7),
        (2, 4, 2.0, 4.0, 1.0, 5),
        (3, 0, 2.0, 4.0, 0.0, 6),
        (4, 2, 2.0, 3.0, 0.0, 5),
        (5, 1, 1.0, 2.0, 0.0, 4),
    ]


def test_games_won_decides_when_head_to_head_is_drawn() -> None:
    results = [
        MatchResult(0, 1, 1.5, 1.5, (0.5, 0.5, 0.5)),
        MatchResult(0, 2, 2.0, 1.0, (0.5, 1.0, 0.5)),
        MatchResult(1, 2, 2.0, 0.0, (1.0, 1.0)),
    ]
    rows = standings(3, results)
    # 0 and 1: 1.5 points, SB 0.75 (half of each other's 1.5), head-to-head 0.5 each;
    # 1 won 2 games, 0 only 1, so 1 ranks ahead of the lower seed number.
    assert [_ranking(r) for r in rows] == [
        (1, 1, 1.5, 0.75, 0.5, 2),
        (2, 0, 1.5, 0.75, 0.5, 1),
        (3, 2, 0.0, 0.0, 0.0, 0),
    ]


def test_engines_equal_on_every_tie_break_share_a_rank() -> None:
    # A four-cycle of 2-0 wins plus drawn matches on both diagonals: every engine is alike.
    results = [
        MatchResult(0, 1, 2.0, 0.0, (1.0, 1.0)),
        MatchResult(1, 2, 2.0, 0.0, (1.0, 1.0)),
        MatchResult(2, 3, 2.0, 0.0, (1.0, 1.0)),
        MatchResult(3, 0, 2.0, 0.0, (1.0, 1.0)),
        MatchResult(0, 2, 1.5, 1.5, (1.0, 0.0, 0.5)),
        MatchResult(1, 3, 1.5, 1.5, (1.0, 0.0, 0.5)),
    ]
    rows = standings(4, results)
    assert [_ranking(r) for r in rows] == [
        (1, 0, 1.5, 2.25, 1.5, 3),
        (1, 1, 1.5, 2.25, 1.5, 3),
        (1, 2, 1.5, 2.25, 1.5, 3),
        (1, 3, 1.5, 2.25, 1.5, 3),
    ]


def test_crosstable_cells_hold_game_points_both_ways_and_the_match_ids() -> None:
    table = crosstable(4, _results())
    assert table[0][0] is None
    c01, c10 = table[0][1], table[1][0]
    assert c01 is not None and c10 is not None
    assert (c01.score, c01.opponent_score, c01.match_points, c01.match_ids) == (2.0, 0.0, 1.0, [11])
    assert (c10.score, c10.opponent_score, c10.match_points, c10.match_ids) == (0.0, 2.0, 0.0, [11])
    c23 = table[2][3]
    assert c23 is not None and (c23.score, c23.match_points) == (1.5, 0.5)


def test_unplayed_pairs_are_empty_cells() -> None:
    table = crosstable(3, [MatchResult(0, 1, 2.0, 0.0, (1.0, 1.0))])
    assert table[0][2] is None and table[2][1] is None


def test_head_to_head_is_applied_again_to_the_pair_still_tied_after_games_won() -> None:
    # 0, 2 and 3 end on 2 points and Sonneborn-Berger 2, and beat each other in a cycle
    # (0 > 2 > 3 > 0): head-to-head among the three is 1 each. Games won puts 3 (4) behind 0
    # and 2 (5 each); between the two still tied, 0 beat 2 2-1, which decides.
    results = [
        MatchResult(0, 1, 2.0, 1.0, (1.0, 0.0, 1.0)),
        MatchResult(0, 2, 2.0, 1.0, (1.0, 0.0, 1.0)),
        MatchResult(0, 3, 1.0, 2.0, (0.0, 1.0, 0.0)),
        MatchResult(1, 2, 1.0, 2.0, (0.0, 1.0, 0.0)),
        MatchResult(1, 3, 0.0, 2.0, (0.0, 0.0)),
        MatchResult(2, 3, 2.0, 0.0, (1.0, 1.0)),
    ]
    rows = standings(4, results)
    assert [_ranking(r) for r in rows] == [
        (1, 0, 2.0, 2.0, 1.0, 5),
        (2, 2, 2.0, 2.0, 0.0, 5),
        (3, 3, 2.0, 2.0, 1.0, 4),
        (4, 1, 0.0, 0.0, 0.0, 2),
    ]


def test_head_to_head_is_applied_again_within_a_group_split_by_games_won() -> None:
    # All four on 1.5 points and Sonneborn-Berger 2.25, head-to-head 1.5 each; games won
    # leaves 0, 1 and 2 (3 each) ahead of 3 (2); among those three, 2 beat 0, 0 beat 1 and
    # 1 drew with 2: a mini-table of 1.5, 1 and 0.5.
    results = [
        MatchResult(0, 1, 2.0, 0.0, (1.0, 1.0)),
        MatchResult(0, 2, 1.0, 2.0, (0.0, 1.0, 0.0)),
        MatchResult(0, 3, 1.5, 1.5, (0.5, 0.5, 0.5)),
        MatchResult(1, 2, 1.5, 1.5, (1.0, 0.0, 0.5)),
        MatchResult(1, 3, 2.0, 0.0, (1.0, 1.0)),
        MatchResult(2, 3, 0.0, 2.0, (0.0, 0.0)),
    ]
    rows = standings(4, results)
    assert [_ranking(r) for r in rows] == [
        (1, 2, 1.5, 2.25, 1.5, 3),
        (2, 0, 1.5, 2.25, 1.0, 3),
        (3, 1, 1.5, 2.25, 0.5, 3),
        (4, 3, 1.5, 2.25, 1.5, 2),
    ]
