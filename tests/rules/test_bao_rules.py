"""Rules of bao-la-kiswahili.md / bao-la-kete.md beyond the worked examples: never-ending
moves (README 6.2), the front-row rule K-9, takasia conditions and exclusions (K-6, K-7),
results (README 6.4) and the errors raised on bad input."""

from __future__ import annotations

import time

import pytest

from arena.rules import (
    BAO_HAMNA,
    NO_LEGAL_MOVE,
    PLY_CAP,
    REPETITION,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    Outcome,
    bao_sowing,
    get_variant,
)
from arena.rules.bao_moves import takasia_target
from arena.rules.bao_sowing import (
    ENDED,
    FRONT_ROW_EMPTIED,
    NEVER_ENDING,
    NO_CHOICE,
    sow_move,
)

KSW = get_variant("bao-la-kiswahili")
KETE = get_variant("bao-la-kete")
E8A = "4,4,4,4,4,2,2,2/2,2,2,2,2,2,2,3/1,0,1,0,1,0,1,0/0,0,0,0,0,0,0,17 S 0:0 m -- - 90"
E10 = "0,1,2,1,4,8,2,2/10,0,0,10,2,1,0,1/0,2,0,0,0,0,2,0/0,0,2,2,0,2,6,4 S 0:0 m -- - 100"
E11 = "4,4,4,4,4,4,4,3/0,5,0,5,0,5,0,5/1,0,1,0,1,0,1,0/2,0,2,1,0,1,2,1 S 0:0 m -- - 120"
E12_FINAL = "6,6,6,6,6,6,6,6/0,0,0,0,0,0,0,0/0,0,2,0,6,2,0,0/0,0,0,0,0,0,0,0 N 1:2 n H- - 41"

# ---------------------------------------------------------------- never-ending moves


def _run_e11(move: str) -> int:
    """Run KSW-E11's back-row takata ``move`` (c1+ or a1-) through the sowing core."""
    south = list(KSW.parse_position(E11).pits[0])
    north = list(KSW.parse_position(E11).pits[1])
    pit, d = {"c1+": (13, 1), "a1-": (15, -1)}[move]
    seeds = south[pit]
    south[pit] = 0
    code, *_ = sow_move(
        south,
        north,
        (pit + d) & 15,
        seeds,
        d,
        False,
        False,
        False,
        False,
        NO_CHOICE,
        -1,
        -1,
    )
    return code


@pytest.mark.parametrize("move", ["c1+", "a1-"])
def test_the_ksw_e11_loops_are_found_never_ending(move: str) -> None:
    assert _run_e11(move) == NEVER_ENDING


def test_the_10000_lap_bound_alone_gives_the_same_verdict(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Without lap-state recording the bound itself must decide (README 6.2: counting laps
    # alone is a complete implementation).
    monkeypatch.setattr(bao_sowing, "RECORD_FROM", bao_sowing.MAX_LAPS + 1)
    assert KSW.legal_moves(KSW.parse_position(E11)) == ["a1+", "c1-", "g1+", "g1-"]


def test_a_move_may_use_exactly_the_lap_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    # KSW-E8a h1- is a 9-lap move: legal with a bound of 9 laps, never-ending with 8.
    monkeypatch.setattr(bao_sowing, "RECORD_FROM", 0)
    monkeypatch.setattr(bao_sowing.sow_move, "__defaults__", (None, 0))  # its record_from
    monkeypatch.setattr(bao_sowing, "MAX_LAPS", 9)
    assert "h1-" in KSW.legal_moves(KSW.parse_position(E8A))
    monkeypatch.setattr(bao_sowing, "MAX_LAPS", 8)
    assert "h1-" not in KSW.legal_moves(KSW.parse_position(E8A))


def test_huge_seed_counts_are_decided_quickly() -> None:
    # A test position far outside play: laps of millions of seeds are sown arithmetically
    # and the 10,000-lap bound keeps the answer bounded.
    text = "1,1,1,1,1,1,1,1/1,1,1,1,1,1,1,1/0,0,0,1,0,0,0,0/0,0,0,0,0,0,0,999999999 S 0:0 m -- - 90"
    began = time.perf_counter()
    moves = KSW.legal_moves(KSW.parse_position(text))
    assert time.perf_counter() - began < 20  # generous: a hang would never return
    assert set(moves) <= {"h1+", "h1-"}


# ---------------------------------------------------------------- front-row rule K-9


def test_a_lone_namua_kichwa_is_sown_towards_the_centre() -> None:
    text = "2,2,2,2,2,2,2,2/0,2,2,2,2,2,2,2/1,0,0,0,0,0,0,0/1,1,1,1,1,1,1,1 S 5:5 n -- - 34"
    position = KSW.parse_position(text)
    assert KSW.legal_moves(position) == ["a2+"]
    assert KSW.apply(position, "a2+").to_text() == (
        "2,2,2,2,2,2,2,2/0,2,2,2,2,2,2,2/0,1,1,0,0,0,0,0/1,1,1,1,1,1,1,1 N 4:5 n -- - 35"
    )


def test_a_takata_relay_may_not_lift_the_last_front_seeds_outwards() -> None:
    # Only h2 holds a seed; a one-seed lap ending there relays 2 seeds towards h1 (K-9).
    me = [0] * 7 + [1] + [0] * 8
    code, *_ = sow_move(me, [1] * 16, 7, 1, 1, False, False, False, False, NO_CHOICE, -1, -1)
    assert code == FRONT_ROW_EMPTIED
    me = [0] * 7 + [1] + [0] * 8  # the same lap inwards relays towards g2: allowed
    code, *_ = sow_move(me, [1] * 16, 7, 1, -1, False, False, False, False, NO_CHOICE, -1, -1)
    assert code == ENDED and me[:8] == [0, 0, 0, 0, 0, 1, 1, 0]


def test_a_capture_move_may_empty_the_movers_row_during_the_move() -> None:
    # Capture mode: a relay that lifts the last front seeds outwards is not restricted (K-9).
    me = [0] * 7 + [1] + [0] * 8
    code, *_ = sow_move(me, [0] * 16, 7, 1, 1, True, False, False, False, NO_CHOICE, -1, -1)
    assert code == ENDED and me == [0] * 8 + [1, 1] + [0] * 6


# ---------------------------------------------------------------- takasia (section 7, K-6, K-7)


def _takasia_world() -> tuple[list[int], list[int]]:
    """Mover: one candidate, g1- (relative 9, 4 seeds) landing in f2 (5), facing c3 (2)."""
    mine = [0] * 16
    mine[5] = 1
    mine[9] = 4
    theirs = [0] * 16
    theirs[2] = 3  # the threatened pit
    theirs[6] = 2  # another pit with 2+, no capture for the opponent
    theirs[7] = 1
    return mine, theirs


def test_takasia_marks_the_one_threatened_pit() -> None:
    mine, theirs = _takasia_world()
    assert takasia_target(mine, theirs, False) == 2


def test_takasia_excludes_the_only_front_pit_with_two_or_more() -> None:
    mine, theirs = _takasia_world()
    theirs[6] = 1
    assert takasia_target(mine, theirs, False) == -1
    theirs[2] = 1  # a single-seed target is not protected by that exclusion (K-6)
    theirs[6] = 2
    assert takasia_target(mine, theirs, False) == 2


def test_takasia_excludes_the_only_occupied_front_pit() -> None:
    mine, theirs = _takasia_world()
    theirs[6] = theirs[7] = 0
    assert takasia_target(mine, theirs, False) == -1


def test_takasia_excludes_a_functional_nyumba_only() -> None:
    mine = [0] * 16
    mine[3] = 1
    mine[9] = 6  # g1- lands in d2 (3), facing the opponent's nyumba (4)
    theirs = [0] * 16
    theirs[4] = 6
    theirs[1] = 2
    theirs[7] = 1
    assert takasia_target(mine, theirs, True) == -1
    assert takasia_target(mine, theirs, False) == 4  # destroyed: an ordinary pit


def test_takasia_needs_exactly_one_target_and_no_opponent_capture() -> None:
    mine, theirs = _takasia_world()
    mine[0] = 1
    mine[14] = 2  # b1+ lands in a2 (0) facing the opponent's 7: a second target
    assert takasia_target(mine, theirs, False) == -1
    mine, theirs = _takasia_world()
    theirs[4] = 2  # the opponent's 4- lands in his occupied 2, facing the mover's 5
    assert takasia_target(mine, theirs, False) == -1


def test_no_takasia_while_a_reserve_is_left_k7() -> None:
    # KSW-E10 with seeds left in North's reserve: South's g2- sets no mark.
    text = E10.replace("S 0:0 m", "S 0:3 n")
    after = KSW.apply(KSW.parse_position(text), "g2-")
    assert after.to_text().endswith(" N 0:3 n -- - 101")


def test_the_takasia_mark_lasts_one_move_in_kiswahili_and_stays_in_kete() -> None:
    reply = "0,1,2,1,4,8,2,2/10,0,0,10,2,1,0,1/0,2,0,0,1,1,0,0/0,0,2,2,0,2,6,4 N 0:0 m -- e3 101"
    for move in ("a3+", "d3+", "d3-"):
        assert KSW.apply(KSW.parse_position(reply), move).to_text().split()[5] == "-"
        assert KETE.apply(KETE.parse_position(reply), move).to_text().split()[5] == "e3"


def test_a_takasiad_pit_may_not_start_a_takata() -> None:
    reply = KSW.parse_position(
        "0,1,2,1,4,8,2,2/10,0,0,10,2,1,0,1/0,2,0,0,1,1,0,0/0,0,2,2,0,2,6,4 N 0:0 m -- e3 101"
    )
    unmarked = KSW.parse_position(reply.to_text().replace(" e3 ", " - "))
    assert "e3+" not in KSW.legal_moves(reply)
    assert {"e3+", "e3-"} <= set(KSW.legal_moves(unmarked))


# ---------------------------------------------------------------- results (README 6.4)


def test_the_player_with_only_singletons_has_no_legal_move() -> None:
    text = "2,2,2,2,2,2,2,2/2,2,0,2,2,2,2,2/1,0,1,0,1,0,1,0/1,0,1,0,1,0,1,0 S 0:0 m -- - 100"
    position = KSW.parse_position(text)
    assert KSW.legal_moves(position) == []
    assert KSW.outcome(position) == Outcome("N", NO_LEGAL_MOVE)


def test_a_mover_whose_own_front_row_is_empty_after_his_move_loses() -> None:
    # South just moved (North to move) and South's rank 2 is empty: South loses, no hand.
    text = "2,2,2,2,2,2,2,2/2,2,2,2,2,2,2,2/0,0,0,0,0,0,0,0/4,4,4,4,4,4,4,4 N 0:0 m -- - 101"
    position = KSW.parse_position(text)
    assert KSW.outcome(position) == Outcome("N", BAO_HAMNA)
    assert KSW.legal_moves(position) == []


def test_the_final_position_of_a_win_mid_move_reports_the_hand() -> None:
    position = KSW.parse_position(E12_FINAL)
    assert KSW.outcome(position) == Outcome("S", BAO_HAMNA, seeds_in_hand=3)
    with pytest.raises(IllegalMoveError):
        KSW.apply(position, "c3+")


def test_an_ongoing_position_has_no_outcome() -> None:
    assert KSW.outcome(KSW.initial_position()) is None
    assert KETE.outcome(KETE.initial_position()) is None


@pytest.mark.parametrize("reason", [REPETITION, PLY_CAP])
def test_game_limits_are_draws(reason: str) -> None:
    outcome = KSW.limit_outcome(KSW.initial_position(), reason)
    assert outcome == Outcome(None, reason)
    assert outcome.result == "1/2-1/2"


def test_limit_outcome_rejects_a_rules_reason() -> None:
    with pytest.raises(ValueError, match="not a game-limit reason"):
        KETE.limit_outcome(KETE.initial_position(), BAO_HAMNA)


# ---------------------------------------------------------------- errors


def test_apply_rejects_bad_tokens_and_illegal_moves() -> None:
    start = KSW.initial_position()
    with pytest.raises(InvalidMoveError):
        KSW.apply(start, "f2")
    with pytest.raises(IllegalMoveError, match="e2\\+ is not legal"):
        KSW.apply(start, "e2+")  # the functional nyumba may not take the seed (KSW-E1)
    with pytest.raises(IllegalMoveError):
        KSW.apply(start, "f3+")  # North's pit
    with pytest.raises(IllegalMoveError):
        KSW.apply(start, "f2+s")  # a choice suffix where no choice point is reached


def test_rules_calls_reject_something_that_is_not_a_bao_position() -> None:
    kingulu_like = "4,4,4,4,4,4/4,4,4,4,4,4 S 0:0 0"
    for call in (KSW.legal_moves, KSW.outcome):
        with pytest.raises(InvalidPositionError, match="not a Bao position"):
            call(kingulu_like)  # type: ignore[arg-type]


def test_applying_a_move_leaves_the_original_position_unchanged() -> None:
    start = KSW.initial_position()
    text = start.to_text()
    after = KSW.apply(start, "f2-")
    assert start.to_text() == text and after.ply == 1
    assert KSW.legal_moves(start) == ["f2+", "f2-", "g2+", "g2-"]
    # The same move applied to an equal but distinct position object gives an equal result.
    assert KSW.apply(KSW.parse_position(text), "f2-") == after


# ---------------------------------------------------------------- Bao la Kete D3 edge cases

KETE_E4 = "5,5,4,4,4,4,4,5/2,0,0,3,2,1,0,1/1,0,0,0,1,1,0,0/0,0,3,2,0,2,6,4 S 0:0 m -- {} 120"


@pytest.mark.parametrize(
    ("mark", "legal"),
    [("e3", ["h1-"]), ("a3", ["c1+"]), ("d3", ["c1+", "h1-"]), ("f3", ["c1+", "h1-"])],
)
def test_kete_priority_keeps_every_capture_when_none_takes_the_marked_pit(
    mark: str, legal: list[str]
) -> None:
    # KETE-E4's board with the mark moved: c1+ takes a3 and h1- takes e3; nothing takes d3 or
    # f3, so both captures stay legal (L-4). The priority mark is gone after the move.
    position = KETE.parse_position(KETE_E4.format(mark))
    assert KETE.legal_moves(position) == legal
    for move in legal:
        assert KETE.apply(position, move).to_text().split()[5] == "-"


def test_both_front_rows_empty_is_a_loss_for_the_player_to_move() -> None:
    text = "2,2,2,2,2,2,2,2/0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0/2,2,2,2,2,2,2,2 S 0:0 m -- - 100"
    assert KSW.outcome(KSW.parse_position(text)) == Outcome("N", BAO_HAMNA)
