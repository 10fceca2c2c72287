"""Adversarial review of the Bao la Kiswahili / Bao la Kete rules engine (``arena/rules/bao*.py``).

Each test builds a position for one rule that the worked examples leave untested, derives the
expected legal moves and resulting positions by hand from ``docs/rules/bao-la-kete.md``,
``bao-la-kiswahili.md`` and ``README.md``, and compares. Ring indices (rules 4.2) are
written ``S3`` / ``N7``: South a2..h2 = S0..S7, h1..a1 = S8..S15; North h3..a3 = N0..N7,
a4..h4 = N8..N15.

Never-ending moves are of two kinds here. Real ones (found by a search, each with its cycle
checked by ``_lap_state_repeats``, a reference sower independent of the engine), and, where a
hand-checkable position needs one, a lowered lap bound (``_bound``): with ``MAX_LAPS = k`` a
move that needs more than ``k`` laps counts as never-ending, which is exactly what the
10,000-lap bound does at full size (README 6.2; the full-size bound is tested at the end).

The last tests compare the engine with ``bao_reference`` (a drop-by-drop reading of the spec
with no shortcuts) on random games and on random test positions far from play.

Decisions taken where the spec is silent are marked DECISION in the test's comment. Two
findings of the review need no engine change: a takata relay can never lift a lone kichwa
outwards (the K-9 relay clause), and no move can leave the mover's own front row empty
(section 7 step 2); see ``test_no_legal_move_of_the_mover_empties_his_own_front_row``.
"""

from __future__ import annotations

import random

import pytest

from arena.rules import (
    BAO_HAMNA,
    NO_LEGAL_MOVE,
    InvalidPositionError,
    Outcome,
    Variant,
    bao_sowing,
    get_variant,
)
from arena.rules.bao_board import BaoPosition
from arena.rules.bao_moves import takasia_target
from arena.rules.bao_sowing import ENDED, NEVER_ENDING, NO_CHOICE, sow_move

from . import bao_reference

KSW = get_variant("bao-la-kiswahili")
KETE = get_variant("bao-la-kete")
BOTH = pytest.mark.parametrize("variant", [KSW, KETE], ids=["kiswahili", "kete"])


def _moves(variant: Variant, text: str) -> list[str]:
    return [str(m) for m in variant.legal_moves(variant.parse_position(text))]


def _after(variant: Variant, text: str, move: str) -> str:
    return variant.apply(variant.parse_position(text), move).to_text()


def _bound(monkeypatch: pytest.MonkeyPatch, laps: int) -> None:
    """Lower the never-ending bound of README 6.2 to ``laps`` (lap states recorded from lap 1)."""
    monkeypatch.setattr(bao_sowing, "RECORD_FROM", 0)
    monkeypatch.setattr(bao_sowing, "MAX_LAPS", laps)
    # sow_move reads the lap from which it looks at laps from its default ``record_from``.
    monkeypatch.setattr(bao_sowing.sow_move, "__defaults__", (None, 0))


def _lap_state_repeats(pits: list[int], p: int, d: int, extra: int = 0) -> int:
    """Reference takata sower (no nyumba stop, no mark): the lap at which the move's lap state
    first repeats, or 0 if the move ends. ``extra``: the namua reserve seed put into ``p``."""
    me = list(pits)
    n = me[p] + extra
    me[p] = 0
    pos = (p + d) % 16
    seen: dict[tuple[object, ...], int] = {}
    laps = 0
    while True:
        state = (tuple(me), pos, n)
        if state in seen:
            return laps
        seen[state] = laps
        laps += 1
        for _ in range(n):
            me[pos] += 1
            last = pos
            pos = (pos + d) % 16
        if me[last] == 1:
            return 0
        n, me[last] = me[last], 0
        pos = (last + d) % 16


# ---------------------------------------------------------------- Bao la Kete D2 (L-3, K-16)

# South's kuu e2 (9) never ends in either direction: the lap state of e2+ and of e2- is back
# to the start after 256 laps. No capture: North's only front seeds (a3) face South's empty
# a2. D2 step 0 gives nothing, so steps 1-2 apply: c2 and g2, both directions.
D2_LOOP = "4,4,4,4,4,4,4,4/5,0,0,0,0,0,0,0/0,1,2,1,9,1,2,1/1,2,1,2,1,2,1,0 S 0:0 m H- - 100"
D2_LOOP_SOUTH = [0, 1, 2, 1, 9, 1, 2, 1, 0, 1, 2, 1, 2, 1, 2, 1]


def test_the_d2_loop_position_really_holds_two_never_ending_kuu_moves() -> None:
    assert _lap_state_repeats(D2_LOOP_SOUTH, 4, 1) == 256
    assert _lap_state_repeats(D2_LOOP_SOUTH, 4, -1) == 256
    assert list(KETE.parse_position(D2_LOOP).pits[0]) == D2_LOOP_SOUTH


@BOTH
def test_kete_falls_back_to_front_takata_when_both_kuu_moves_never_end(variant: Variant) -> None:
    assert _moves(variant, D2_LOOP) == ["c2+", "c2-", "g2+", "g2-"]
    board = "4,4,4,4,4,4,4,4/5,0,0,0,0,0,0,0/"
    # c2+ (traced by hand, 7 laps): c2(2)->e2, e2(10)->b1 (kuu destroyed by the relay),
    # b1(3)->b2, b2(2)->d2, d2(3)->g2, g2(4)->f1, f1(4)->b1 (was emptied): end.
    assert _after(variant, D2_LOOP, "c2+") == (
        board + "1,0,1,0,1,3,0,3/2,1,3,4,3,0,3,2 N 0:0 m -- - 101"
    )
    # c2- and g2+ are one lap each and leave the kuu owned: D2 applies again next time (L-3).
    assert _after(variant, D2_LOOP, "c2-") == (
        board + "1,2,0,1,9,1,2,1/1,2,1,2,1,2,1,0 N 0:0 m H- - 101"
    )
    assert _after(variant, D2_LOOP, "g2+") == (
        board + "0,1,2,1,9,1,0,2/1,2,1,2,1,2,1,1 N 0:0 m H- - 101"
    )


def test_kete_d2_gives_way_to_front_takata_only_when_the_kuu_moves_never_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # KETE-E3: e2+ (e2->e1, e1->c1, c1->a2) and e2- (e2->c1, c1->f1, f1->h1) take 3 laps.
    text = "4,4,4,4,4,4,4,4/2,2,0,2,0,2,2,2/0,0,3,0,7,0,0,0/2,2,2,2,1,1,0,0 S 0:0 m H- - 90"
    assert _moves(KETE, text) == ["e2+", "e2-"]
    # With a 2-lap bound both kuu moves never end: step 1 (front pits with 2+). c2+ (d2, e2
    # passed, f2 empty) is one lap; c2- (b2, a2, a1 3: relay 3 to d1, relay 3 ...) needs 3.
    _bound(monkeypatch, 2)
    assert _moves(KETE, text) == ["c2+"]
    # The kuu was only passed: it stays owned, and D2 applies again at the next takata (L-3).
    assert _after(KETE, text, "c2+") == (
        "4,4,4,4,4,4,4,4/2,2,0,2,0,2,2,2/0,0,0,1,8,1,0,0/2,2,2,2,1,1,0,0 N 0:0 m H- - 91"
    )
    _bound(monkeypatch, 3)
    assert _moves(KETE, text) == ["e2+", "e2-"]


# ---------------------------------------------------------------- Bao la Kete D3 (L-4)

KETE_E4 = "5,5,4,4,4,4,4,5/2,0,0,3,2,1,0,1/1,0,0,0,1,1,0,0/0,0,3,2,0,2,6,4 S 0:0 m -- e3 120"


def test_kete_priority_is_free_when_the_only_capture_of_the_marked_pit_never_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # KETE-E4: h1- captures e3 (4 laps: h1->e2, 2 captured from h2->g2, g2->e2, e2->b2);
    # c1+ captures a3 (2 laps: c1->a2, 2 captured from a2->b2). Full bound: h1- only.
    assert _moves(KETE, KETE_E4) == ["h1-"]
    # With a 3-lap bound h1- never ends: no legal capture takes e3, so every legal capture
    # is allowed (L-4 "free"): c1+, not the never-ending h1-, and no takata.
    _bound(monkeypatch, 3)
    assert _moves(KETE, KETE_E4) == ["c1+"]
    assert _after(KETE, KETE_E4, "c1+") == (
        "5,5,4,4,4,4,4,5/0,0,0,3,2,1,0,1/3,1,0,0,1,1,0,0/1,1,0,2,0,2,6,4 N 0:0 m -- - 121"
    )
    # With a 1-lap bound both captures never end: takata, the mark plays no part there.
    _bound(monkeypatch, 1)
    assert "c1+" not in _moves(KETE, KETE_E4) and "h1-" not in _moves(KETE, KETE_E4)
    assert _moves(KETE, KETE_E4) == _moves(KSW, KETE_E4.replace(" e3 ", " - "))


# North's takata (mark a3 against North) threatens South's d2 alone: a new mark.
NEW_MARK = "0,5,0,0,0,0,0,0/1,0,0,0,0,0,3,0/2,0,0,2,0,0,0,0/0,0,0,0,0,0,0,0 N 0:0 m -- a3 101"


@BOTH
def test_a_reply_that_sets_a_new_mark_replaces_the_old_one(variant: Variant) -> None:
    # North (g3 3, b4 5, a3 1 marked) has no capture; a3 holds one seed so g3 is the only
    # takata pit. g3+ sows f3 e3 d3; then b4- (5 seeds: a4 a3 b3 c3 d3) lands in the occupied
    # d3 facing South's d2 (2). South has no capture candidate (a2, d2 land in empty pits),
    # South's front holds a2 and d2, both 2: d2 is not excluded (K-6). The new mark d2
    # replaces a3 in both games (bao-la-kete.md D3, last paragraph).
    assert _moves(variant, NEW_MARK) == ["g3+", "g3-"]
    assert _after(variant, NEW_MARK, "g3+") == (
        "0,5,0,0,0,0,0,0/1,0,0,1,1,1,0,0/2,0,0,2,0,0,0,0/0,0,0,0,0,0,0,0 S 0:0 m -- d2 102"
    )


def test_a_reply_without_a_new_mark_keeps_the_kete_priority_only() -> None:
    # g3- sows h3 h4 g4: no North capture candidate afterwards, so no new mark. Kiswahili
    # clears a3 (section 7 step 3); Kete keeps it as South's priority (D3).
    board = "0,5,0,0,0,0,1,1/1,0,0,0,0,0,0,1/2,0,0,2,0,0,0,0/0,0,0,0,0,0,0,0 S 0:0 m --"
    assert _after(KSW, NEW_MARK, "g3-") == board + " - 102"
    kete_after = _after(KETE, NEW_MARK, "g3-")
    assert kete_after == board + " a3 102"
    # South has no capture, so the priority does nothing: the same takata as in Kiswahili,
    # and the mark is gone after it.
    assert _moves(KETE, kete_after) == _moves(KSW, board + " - 102") == ["a2+", "a2-", "d2+", "d2-"]
    assert _after(KETE, kete_after, "d2+").split()[5] == "-"


# ---------------------------------------------------------------- K-16 fallbacks


def test_namua_tax_when_every_other_front_takata_never_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Functional nyumba e2 (6) and a2 (7). a2+ (8 seeds: b2..h2, h1 was 1) relays from h1:
    # 2 laps; a2- (a1..h1) relays from h1: 2 laps. The tax sows 2 seeds into empty pits: 1 lap.
    text = "4,4,4,4,4,4,4,4/0,2,0,0,0,0,0,2/7,0,0,0,6,0,0,0/0,0,0,0,0,0,0,1 S 7:7 n H- - 30"
    board = "4,4,4,4,4,4,4,4/0,2,0,0,0,0,0,2/"
    assert _moves(KSW, text) == _moves(KETE, text) == ["a2+", "a2-"]
    assert _after(KSW, text, "a2+") == (board + "0,1,1,1,7,1,1,1/0,0,0,0,0,1,1,0 N 6:7 n H- - 31")
    assert _after(KSW, text, "a2-") == (board + "0,0,0,0,6,0,1,1/1,1,1,1,1,1,1,0 N 6:7 n H- - 31")
    _bound(monkeypatch, 1)
    # K-16: the nyumba move is played as the tax, although a2 is occupied (6.1).
    assert _moves(KSW, text) == ["e2+", "e2-"]
    assert _after(KSW, text, "e2+") == (board + "7,0,0,0,5,1,1,0/0,0,0,0,0,0,0,1 N 6:7 n H- - 31")
    assert _after(KSW, text, "e2-") == (board + "7,0,1,1,5,0,0,0/0,0,0,0,0,0,0,1 N 6:7 n H- - 31")
    # Bao la Kete: the kuu holds exactly 6, so the six-seed rule D1 lifts all 7.
    assert _moves(KETE, text) == ["e2+", "e2-"]
    assert _after(KETE, text, "e2+") == (board + "7,0,0,0,0,1,1,1/0,0,0,0,1,1,1,2 N 6:7 n -- - 31")
    assert _after(KETE, text, "e2-") == (board + "8,1,1,1,0,0,0,0/1,1,1,0,0,0,0,1 N 6:7 n -- - 31")


# d2 (2, plus the reserve seed) never ends in either direction (lap state repeats after 104
# laps), so the singletons a2, c2, e2, g2 may take the seed (K-16). Each of them is 7 laps.
SINGLETONS = "4,4,4,4,4,4,4,4/0,2,0,0,0,2,0,2/1,0,1,2,1,0,1,0/0,1,0,1,2,3,4,1 S 4:4 n -- - 36"


@BOTH
def test_namua_singletons_when_no_two_seed_pit_gives_a_legal_move(variant: Variant) -> None:
    south = list(variant.parse_position(SINGLETONS).pits[0])
    assert _lap_state_repeats(south, 3, 1, extra=1) == 104
    assert _lap_state_repeats(south, 3, -1, extra=1) == 104
    assert _moves(variant, SINGLETONS) == [
        "a2+", "a2-", "c2+", "c2-", "e2+", "e2-", "g2+", "g2-",
    ]  # fmt: skip
    # a2+ by hand: a2(2)->c2, c2(2)->e2, e2(2)->g2, g2(2)->h1, h1(2)->f1, f1(4)->b1,
    # b1(2)->a2 (emptied at the start): end.
    assert _after(variant, SINGLETONS, "a2+") == (
        "4,4,4,4,4,4,4,4/0,2,0,0,0,2,0,2/1,1,0,3,0,1,0,1/1,0,1,2,3,0,5,0 N 3:4 n -- - 37"
    )


# a2 (3) is the only front pit with 2+ and never ends either way (104-lap cycles), so the
# back row may start the takata (K-11, K-16).
BACK_ROW = "5,5,5,5,5,5,5,4/0,0,2,0,2,0,2,0/3,1,0,1,0,1,0,1/1,0,1,2,3,2,1,2 S 0:0 m -- - 100"


@BOTH
def test_mtaji_back_row_only_when_no_front_takata_is_legal(variant: Variant) -> None:
    south = list(variant.parse_position(BACK_ROW).pits[0])
    assert _lap_state_repeats(south, 0, 1) == 104
    assert _lap_state_repeats(south, 0, -1) == 104
    assert _moves(variant, BACK_ROW) == [
        "d1+", "d1-", "e1+", "e1-", "f1+", "f1-", "h1+", "h1-",
    ]  # fmt: skip
    board = "5,5,5,5,5,5,5,4/0,0,2,0,2,0,2,0/"
    # d1+ (c1 2, b1 1), e1+ (d1 3, c1 2, b1 1), h1- (h2 2, g2 1): one lap each.
    assert _after(variant, BACK_ROW, "d1+") == (
        board + "3,1,0,1,0,1,0,1/1,1,2,0,3,2,1,2 N 0:0 m -- - 101"
    )
    assert _after(variant, BACK_ROW, "e1+") == (
        board + "3,1,0,1,0,1,0,1/1,1,2,3,0,2,1,2 N 0:0 m -- - 101"
    )
    assert _after(variant, BACK_ROW, "h1-") == (
        board + "3,1,0,1,0,1,1,2/1,0,1,2,3,2,1,0 N 0:0 m -- - 101"
    )


# ---------------------------------------------------------------- K-7 and K-6 through apply()

# North's last namua move (reserve 1): g3+ leaves a position in which, were it a mtaji
# takata, North would mark South's d2 (b4- lands in d3 facing d2; South has no candidate).
LAST_NAMUA = "0,5,0,0,0,0,0,0/0,0,0,0,0,0,2,0/1,0,0,1,0,0,0,0/2,0,0,0,0,0,0,0 N 0:1 n -- - 43"


@BOTH
def test_the_last_namua_takata_sets_no_mark_k7(variant: Variant) -> None:
    assert _moves(variant, LAST_NAMUA) == ["g3+", "g3-"]
    after = variant.apply(variant.parse_position(LAST_NAMUA), "g3+")
    assert after.to_text() == (
        "0,5,0,0,0,0,0,0/0,0,0,1,1,1,0,0/1,0,0,1,0,0,0,0/2,0,0,0,0,0,0,0 S 0:0 m -- - 44"
    )
    # The three takasia conditions do hold on that board: only K-7 prevents the mark.
    assert takasia_target(list(after.pits[1]), list(after.pits[0]), False) == 3
    assert _after(variant, LAST_NAMUA, "g3-") == (
        "0,5,0,0,0,0,1,1/0,0,0,0,0,0,0,1/1,0,0,1,0,0,0,0/2,0,0,0,0,0,0,0 S 0:0 m -- - 44"
    )


# South b2 (3) and g1 (5). b2+ sows c2 d2 e2, after which g1- lands in e2 facing e3: the one
# threatened pit. North: e3 and h3 (counts vary per case below), nothing else in front.
TAKASIA = "0,0,0,0,0,0,0,0/0,0,0,0,{e3},0,0,{h3}/0,3,0,0,0,0,0,0/0,0,0,0,0,0,5,0 S 0:0 m -- - 100"


@BOTH
@pytest.mark.parametrize(
    ("e3", "h3", "mark"),
    [
        (2, 2, "e3"),  # two pits with 2+: marked
        (2, 1, "-"),  # e3 is North's only front pit with 2+ and holds 2: excluded
        (1, 1, "e3"),  # e3 holds 1: the 2+ exclusion does not apply (K-6)
        (1, 2, "e3"),
        (2, 0, "-"),  # North's only occupied front pit: excluded
        (1, 0, "-"),
    ],
)
def test_takasia_exclusions_k6_through_apply(variant: Variant, e3: int, h3: int, mark: str) -> None:
    text = TAKASIA.format(e3=e3, h3=h3)
    assert _moves(variant, text) == ["b2+", "b2-"]
    after = _after(variant, text, "b2+")
    assert after == (
        f"0,0,0,0,0,0,0,0/0,0,0,0,{e3},0,0,{h3}/0,0,1,1,1,0,0,0/0,0,0,0,0,0,5,0"
        f" N 0:0 m -- {mark} 101"
    )
    # b2- (a2, a1, b1) creates no candidate: never a mark.
    assert _after(variant, text, "b2-").split()[5] == "-"


@pytest.mark.parametrize(
    ("variant", "d3", "houses", "mark"),
    [
        (KSW, 6, "-H", "-"),  # functional nyumba: excluded
        (KSW, 5, "-H", "d3"),  # owned but 5 seeds: not functional, marked (K-2)
        (KSW, 6, "--", "d3"),  # destroyed: an ordinary pit
        (KETE, 6, "-H", "-"),
        (KETE, 6, "--", "d3"),
    ],
    ids=["ksw-functional", "ksw-owned-5", "ksw-destroyed", "kete-functional", "kete-destroyed"],
)
def test_takasia_never_marks_a_functional_nyumba(
    variant: Variant, d3: int, houses: str, mark: str
) -> None:
    # b2+ (2 seeds: c2, d2); then g1- (6 seeds) lands in d2 facing North's d3. h3 2 keeps a
    # second North pit with 2+.
    board = f"0,0,0,0,0,0,0,0/0,0,0,{d3},0,0,0,2/0,2,0,0,0,0,0,0/0,0,0,0,0,0,6,0"
    text = f"{board} S 0:0 m {houses} - 100"
    assert _moves(variant, text) == ["b2+", "b2-"]
    assert _after(variant, text, "b2+") == (
        f"0,0,0,0,0,0,0,0/0,0,0,{d3},0,0,0,2/0,0,1,1,0,0,0,0/0,0,0,0,0,0,6,0"
        f" N 0:0 m {houses} {mark} 101"
    )


# ---------------------------------------------------------------- namua stops (6.3 steps 3-4)


@BOTH
def test_a_takasia_mark_in_a_namua_test_position_stops_a_takata_lap(variant: Variant) -> None:
    # North namua, house destroyed, h3 (2) the only 2+ pit; e3 (1) is marked. The namua
    # candidates ignore the mark (4.1), but h3+ (3 seeds: g3 f3 e3) ends in the occupied
    # marked e3 instead of relaying (6.3 step 4). h3- sows h4 g4 f4.
    text = "0,0,0,0,0,0,0,0/0,0,0,0,1,0,0,2/2,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 N 3:3 n -- e3 41"
    assert _moves(variant, text) == ["h3+", "h3-"]
    # DECISION (bao.py): Bao la Kete carries the mark against the mover over as the other
    # side's priority after any reply, in either stage; Kiswahili clears it (7 step 3).
    mark = "e3" if variant is KETE else "-"
    assert _after(variant, text, "h3+") == (
        f"0,0,0,0,0,0,0,0/0,0,0,0,2,1,1,0/2,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 S 3:2 n -- {mark} 42"
    )
    unmarked = text.replace(" e3 ", " - ")
    assert _after(variant, unmarked, "h3+") == (
        "0,0,0,0,0,0,0,0/0,0,1,1,0,1,1,0/2,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 S 3:2 n -- - 42"
    )
    assert _after(variant, text, "h3-") == (
        f"0,0,0,0,0,1,1,1/0,0,0,0,1,0,0,0/2,0,0,0,0,0,0,0/0,0,0,0,0,0,0,0 S 3:2 n -- {mark} 42"
    )


def test_an_owned_five_seed_nyumba_stops_a_namua_takata_again_k3() -> None:
    # e2 owned with 5 (taxed earlier): not functional, so e2 and h2 are the 2+ candidates.
    # h2- (3 seeds: g2 f2 e2) ends in e2, which holds 6 after the drop: the move stops there
    # (K-3) instead of relaying 6 seeds.
    text = "5,4,4,4,4,4,4,4/2,2,0,0,0,0,0,0/0,0,0,0,5,0,0,2/0,0,0,0,0,0,0,0 S 10:10 n H- - 24"
    board = "5,4,4,4,4,4,4,4/2,2,0,0,0,0,0,0/"
    assert _moves(KSW, text) == ["e2+", "e2-", "h2+", "h2-"]
    assert _after(KSW, text, "h2-") == board + "0,0,0,0,6,1,1,0/0,0,0,0,0,0,0,0 N 9:10 n H- - 25"
    assert _after(KSW, text, "h2+") == board + "0,0,0,0,5,0,0,0/0,0,0,0,0,1,1,1 N 9:10 n H- - 25"
    assert _after(KSW, text, "e2+") == board + "0,0,0,0,0,1,1,3/0,0,0,0,0,1,1,1 N 9:10 n -- - 25"
    assert _after(KSW, text, "e2-") == board + "1,1,1,1,0,0,0,2/1,1,0,0,0,0,0,0 N 9:10 n -- - 25"


# c2 (2+1) captures c3 (5), entered at a2 (c2+) the lap ends in the owned nyumba e2 (9, e3
# empty): the choice. After the safari a later lap ends in e2 again holding 2: the nyumba is
# destroyed, so there is no second choice and the seeds are relayed (6.3 step 3).
SAFARI = "4,4,4,3,3,3,3,3/1,1,5,0,0,1,2,1/0,0,2,0,8,0,0,0/2,4,1,1,0,1,0,0 S 3:3 n H- - 38"


@BOTH
def test_the_safari_choice_arises_once(variant: Variant) -> None:
    assert _moves(variant, SAFARI) == ["c2+c", "c2+s", "c2-"]
    # c2+c by hand, 9 lap ends: c2 capture 5 -> a2..e2 (9, choice: safari) -> e2(9)->c1,
    # c1(2)->a1, a1(3)->c2, c2(5)->h2 captures h3 (1, right kichwa: h2, direction -),
    # h2(3)->e2 (2, destroyed: relay), e2(2)->c2 (emptied before): end.
    assert _after(variant, SAFARI, "c2+c") == (
        "4,4,4,3,3,3,3,3/1,1,0,0,0,1,2,0/2,2,1,3,0,3,3,0/0,5,0,2,1,2,1,1 N 2:3 n -- - 39"
    )
    assert _after(variant, SAFARI, "c2+s") == (
        "4,4,4,3,3,3,3,3/1,1,0,0,0,1,2,1/1,1,4,1,9,0,0,0/2,4,1,1,0,1,0,0 N 2:3 n H- - 39"
    )
    # c2-: the 5 seeds enter at h2 and pass e2 (KSW-E4: passing is no choice point).
    assert _after(variant, SAFARI, "c2-") == (
        "4,4,4,3,3,3,3,3/1,1,0,0,0,1,2,1/0,0,3,1,9,1,1,1/2,4,1,1,0,1,0,0 N 2:3 n H- - 39"
    )


# ---------------------------------------------------------------- captures and the end


def test_capturing_the_opponents_owned_nyumba_destroys_it() -> None:
    # g1- (6): h1..d2, d2 was occupied and faces North's owned nyumba d3 (5 seeds, not
    # functional): captured, destroyed (5 step 1). d2 central, direction -: enter at h2;
    # h2..d2 (3, d3 now empty): relay 3 to c2 b2 a2 (a2 was empty): end.
    text = "3,3,3,3,3,3,3,3/2,0,0,5,0,0,0,0/0,0,0,1,0,0,0,0/0,0,0,0,0,0,6,0 S 0:0 m -H - 100"
    assert _moves(KSW, text) == ["g1-"]
    assert _after(KSW, text, "g1-") == (
        "3,3,3,3,3,3,3,3/2,0,0,0,0,0,0,0/1,1,1,0,2,2,2,2/0,0,0,0,0,0,0,1 N 0:0 m -- - 101"
    )
    # Bao la Kete, kuu of 6 (functional): captured and destroyed as well; 6 seeds from h2
    # end in the empty c2.
    kete = text.replace("2,0,0,5,", "2,0,0,6,")
    assert _moves(KETE, kete) == ["g1-"]
    assert _after(KETE, kete, "g1-") == (
        "3,3,3,3,3,3,3,3/2,0,0,0,0,0,0,0/0,0,1,3,2,2,2,2/0,0,0,0,0,0,0,1 N 0:0 m -- - 101"
    )


@pytest.mark.parametrize(
    ("variant", "d3", "hand"), [(KSW, 5, 5), (KETE, 6, 6)], ids=["kiswahili", "kete"]
)
def test_a_namua_win_mid_move_keeps_reserves_and_destroys_the_captured_house(
    variant: Variant, d3: int, hand: int
) -> None:
    # North's only front seeds are in its owned nyumba d3. South's d2 takes the reserve seed
    # and captures it: bao hamna at once. Final text: side and ply moved on, South's
    # reserve used (5 -> 4), North's house destroyed, mark "-"; the seeds stay in hand.
    back = "4,4,3,3,3,3,3,3" if d3 == 5 else "4,3,3,3,3,3,3,3"
    text = f"{back}/0,0,0,{d3},0,0,0,0/0,0,0,1,6,0,0,0/2,2,2,2,2,2,2,2 S 5:5 n HH - 34"
    position = variant.parse_position(text, strict=True)
    assert _moves(variant, text) == ["d2+", "d2-"]
    final = f"{back}/0,0,0,0,0,0,0,0/0,0,0,2,6,0,0,0/2,2,2,2,2,2,2,2 N 4:5 n H- - 35"
    for move in ("d2+", "d2-"):
        after = variant.apply(position, move)
        assert after.to_text() == final
        assert variant.outcome(after) == Outcome("S", BAO_HAMNA, seeds_in_hand=hand)
        variant.parse_position(final, strict=True)  # the one reachable text short of 64


def test_a_kete_win_on_the_priority_pit_ends_with_mark_dash() -> None:
    # North's only front pit e3 is the priority pit; h1- captures it and wins mid-move.
    text = "8,7,7,7,7,7,7,7/0,0,0,0,2,0,0,0/0,0,0,0,1,0,0,0/0,0,0,0,0,0,0,4 S 0:0 m -- e3 120"
    assert _moves(KETE, text) == ["h1-"]
    after = KETE.apply(KETE.parse_position(text), "h1-")
    assert after.to_text() == (
        "8,7,7,7,7,7,7,7/0,0,0,0,0,0,0,0/0,0,0,0,2,1,1,1/0,0,0,0,0,0,0,0 N 0:0 m -- - 121"
    )
    assert KETE.outcome(after) == Outcome("S", BAO_HAMNA, seeds_in_hand=2)


def test_no_legal_move_of_the_mover_empties_his_own_front_row() -> None:
    # Found by this review: the "mover's own front row empty after his capture move" loss of
    # section 7 step 2 cannot happen. A front row empties only when its last seeds are
    # lifted from a kichwa outwards; a lap that ends in that kichwa moving outwards dropped a
    # seed in the kimbi next to it (every lap has 2+ seeds, captured seeds enter at the
    # kichwa moving inwards), and a mtaji capture cannot start from the lone kichwa (its
    # landing pit is then empty). Checked here on random positions of both stages.
    rng = random.Random(7)
    checked = 0
    for _ in range(150):
        south = [rng.choice((0, 0, 1, 1, 2, 3, 5, 9)) for _ in range(16)]
        north = [rng.choice((0, 0, 1, 2, 3, 6)) for _ in range(16)]
        south[rng.randrange(8)] += 1
        north[rng.randrange(8)] += 1
        reserves = rng.choice(("0:0 m", "3:3 n"))
        r4, r3 = north[8:], north[7::-1]
        r2, r1 = south[:8], south[15:7:-1]
        board = "/".join(",".join(map(str, row)) for row in (r4, r3, r2, r1))
        position = KSW.parse_position(f"{board} S {reserves} -- - 100")
        for move in KSW.legal_moves(position):
            after = KSW.apply(position, move)
            assert any(after.pits[0][:8]), (position, move)
            checked += 1
    assert checked > 300


def test_outcome_when_the_side_to_move_has_no_legal_move() -> None:
    # Mtaji, only singletons on South's side: no candidate of any class (4.3): South loses.
    bare = "5,5,5,5,5,5,5,4/0,0,2,0,2,0,2,0/1,1,0,1,0,1,0,1/1,0,1,1,1,1,1,1 S 0:0 m -- - 100"
    for variant in (KSW, KETE):
        position = variant.parse_position(bare)
        assert variant.legal_moves(position) == []
        assert variant.outcome(position) == Outcome("N", NO_LEGAL_MOVE)


def test_no_legal_move_because_every_move_never_ends_loses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # BACK_ROW: a2 never ends; the back-row moves need 1 to 13 laps. With a bound below
    # every one of them the mover has no legal move left and loses (README 6.2).
    _bound(monkeypatch, 13)
    assert "d1-" in _moves(KSW, BACK_ROW)
    _bound(monkeypatch, 0)
    position = KSW.parse_position(BACK_ROW)
    assert KSW.legal_moves(position) == []
    assert KSW.outcome(position) == Outcome("N", NO_LEGAL_MOVE)


# ---------------------------------------------------------------- laps of 16+ seeds (3, K-10)


def test_a_lap_of_33_seeds_sows_twice_round_and_relays_on() -> None:
    # h1 (33) cannot capture (K-10) and the front holds only singletons: h1+ and h1-.
    # h1- by hand: every pit +2, h2 +1 more (the 33rd seed): h2 3 -> relay; then
    # h2(3)->e2, e2(4)->a2, a2(4)->d1, d1(3)->g1, g1(3)->g2, g2(5)->b2, b2(4)->c1,
    # c1(4)->g1 (emptied earlier, now 1): end, 9 laps.
    text = "3,3,2,2,2,2,2,3/0,2,0,2,0,2,0,2/1,0,1,0,1,0,1,0/0,0,0,0,0,0,0,33 S 0:0 m -- - 100"
    assert _moves(KSW, text) == ["h1+", "h1-"]
    assert _after(KSW, text, "h1-") == (
        "3,3,2,2,2,2,2,3/0,2,0,2,0,2,0,2/1,0,5,4,1,4,0,1/4,4,0,1,4,4,1,3 N 0:0 m -- - 101"
    )


def test_a_lap_of_exactly_16_seeds_ends_in_its_emptied_start_pit() -> None:
    text = "3,3,2,2,2,2,2,3/0,2,0,2,0,2,0,2/1,0,1,0,1,0,1,0/0,0,0,0,0,0,0,16 S 0:0 m -- - 100"
    assert _moves(KSW, text) == ["h1+", "h1-"]
    for move in ("h1+", "h1-"):
        assert _after(KSW, text, move) == (
            "3,3,2,2,2,2,2,3/0,2,0,2,0,2,0,2/2,1,2,1,2,1,2,1/1,1,1,1,1,1,1,1 N 0:0 m -- - 101"
        )


# ---------------------------------------------------------------- strict tier (README 5.1)


@pytest.mark.parametrize(
    "text",
    [
        KETE_E4,
        "0,3,4,3,6,1,4,4/2,0,3,1,5,3,2,3/0,2,0,0,1,1,0,0/0,0,2,2,0,2,6,4 S 0:0 m -- e3 102",
    ],
    ids=["KETE-E4", "KETE-E6"],
)
def test_strict_parsing_accepts_the_kete_priority_marks_of_play(text: str) -> None:
    KETE.parse_position(text, strict=True)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # North to move at ply 1 must have one seed more in reserve than South.
        (
            "0,0,0,0,0,0,0,0/0,2,2,6,0,0,0,0/0,0,1,1,7,0,2,0/0,0,0,0,0,0,0,0 N 22:21 n HH - 1",
            "do not follow ply",
        ),
        # A takasia mark at a namua ply, although the reserves are consistent.
        (
            "0,0,0,0,0,0,0,0/0,2,2,6,0,0,0,0/0,0,1,1,7,0,2,0/0,0,0,0,0,0,0,0 N 21:22 n HH c3 1",
            "only in the mtaji stage",
        ),
        # KETE-E4 with the priority on d3, which no capture candidate of South faces.
        (KETE_E4.replace(" e3 ", " d3 "), "no capture candidate"),
    ],
)
def test_strict_parsing_rejects_more_unreachable_texts(text: str, message: str) -> None:
    KETE.parse_position(text)
    with pytest.raises(InvalidPositionError, match=message):
        KETE.parse_position(text, strict=True)


def test_every_mark_set_in_kete_play_satisfies_the_strict_invariants() -> None:
    # Random Kete games: every position with a mark (takasia or priority) parses strictly,
    # and the priority pit is always one a capture candidate of the side to move faces.
    rng = random.Random(11)
    marks = 0
    for _ in range(60):
        game = KETE.new_game()
        while game.outcome is None:
            position = game.position
            if position.mark >= 0:
                marks += 1
                KETE.parse_position(position.to_text(), strict=True)
            game.play(rng.choice(game.legal_moves()))
    assert marks > 0


# ---------------------------------------------------------------- the 10,000-lap bound


def test_the_real_bound_is_ten_thousand_laps() -> None:
    assert bao_sowing.MAX_LAPS == 10_000


def _sow(me: list[int], p: int, d: int) -> int:
    me = list(me)
    n, me[p] = me[p], 0
    code, *_ = sow_move(
        me, [1] * 16, (p + d) % 16, n, d, False, False, False, False, NO_CHOICE, -1, -1
    )
    return code


def test_never_ending_verdicts_agree_with_the_reference_sower() -> None:
    assert _sow(D2_LOOP_SOUTH, 4, 1) == NEVER_ENDING
    assert _sow(D2_LOOP_SOUTH, 2, 1) == ENDED


def _laps_to_end(pits: list[int], p: int, d: int, limit: int = 20_000) -> tuple[int, list[int]]:
    """Reference takata sower: (laps the move needs, final pits); laps of 16+ seeds in whole
    rounds. Raises AssertionError past ``limit`` laps."""
    me = list(pits)
    n, me[p] = me[p], 0
    pos = (p + d) % 16
    for laps in range(1, limit + 1):
        rounds, rest = divmod(n, 16)
        me = [seeds + rounds for seeds in me]
        for step in range(rest):
            me[(pos + d * step) % 16] += 1
        last = (pos + d * (n - 1)) % 16
        if me[last] == 1:
            return laps, me
        n, me[last] = me[last], 0
        pos = (last + d) % 16
    raise AssertionError(f"no end within {limit} laps")


# Two lap states of one finite takata of 12,230 laps (found by a search over random dense
# boards), written as positions: from the first, h2- needs exactly 10,000 laps (the board is
# the mirror image of a state whose lifted pit was h1); from the second, f2+ needs 10,001.
# Every South pit holds 16+ seeds or its first lap ends in the back row, so no capture
# candidate exists (K-10) and every front pit is a takata candidate.
LAPS_10000 = (
    "0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,1/453,579,164,112,385,1236,151,57"
    "/59,685,99,120,248,54,571,820 S 0:0 m -- - 100"
)
LAPS_10001 = (
    "0,0,0,0,0,0,0,0/0,0,0,0,0,0,0,1/5,631,45,66,194,867,516,765"
    "/399,525,110,58,331,1182,97,2 S 0:0 m -- - 100"
)


def test_a_move_of_exactly_10000_laps_is_legal() -> None:
    position = KSW.parse_position(LAPS_10000)
    laps, final = _laps_to_end(list(position.pits[0]), 7, -1)
    assert laps == 10_000
    assert "h2-" in KSW.legal_moves(position)
    after = KSW.apply(position, "h2-")
    assert list(after.pits[0]) == final and after.pits[1] == position.pits[1]


def test_a_move_of_10001_laps_is_never_ending() -> None:
    position = KSW.parse_position(LAPS_10001)
    assert _laps_to_end(list(position.pits[0]), 5, 1)[0] == 10_001
    moves = KSW.legal_moves(position)
    assert "f2+" not in moves and len(moves) == 15  # every other front takata is legal
    assert _sow(list(position.pits[0]), 5, 1) == NEVER_ENDING


# ---------------------------------------------------------------- differential check


def _check_against_reference(variant: Variant, position: BaoPosition) -> int:
    kete = variant is KETE
    expected = bao_reference.legal(bao_reference.side_of(position, kete))
    assert [str(m) for m in variant.legal_moves(position)] == sorted(expected), position
    for token, done in expected.items():
        want = bao_reference.after(position, kete, done)
        assert variant.apply(position, token) == want, (position, token)
    return len(expected)


@BOTH
def test_the_engine_agrees_with_the_plain_reference_in_random_games(variant: Variant) -> None:
    rng = random.Random(3)
    moves = 0
    for _ in range(15):
        game = variant.new_game()
        while game.outcome is None:
            moves += _check_against_reference(variant, game.position)
            game.play(rng.choice(game.legal_moves()))
    assert moves > 2000


@BOTH
def test_the_engine_agrees_with_the_plain_reference_on_random_test_positions(
    variant: Variant,
) -> None:
    # Positions far from play: any reserves (one side in namua, the other not), owned houses
    # with 5 to 8 seeds, takasia marks in either stage, Kete priority marks, seed counts up
    # to 17 (laps of 16+ seeds), singletons everywhere.
    rng = random.Random(5)
    kete = variant is KETE
    moves = 0
    for _ in range(400):
        weights = rng.choice(
            ((0, 1, 1, 2, 2, 3, 4, 6, 9), (0, 0, 0, 1, 1, 2), (0, 1, 2, 3, 5, 8, 12, 17))
        )
        pits = [[rng.choice(weights) for _ in range(16)] for _ in range(2)]
        houses = [False, False]
        for owner in (0, 1):
            if rng.random() < 0.5:
                pits[owner][4] = max(pits[owner][4], rng.choice((6, 7, 8) if kete else (5, 6, 8)))
                houses[owner] = True
        owner = rng.randrange(2)
        reserves = rng.choice(((0, 0), (0, 0), (rng.randint(0, 3), rng.randint(0, 3))))
        mark = -1
        if rng.random() < 0.4:
            marked = owner if not kete or rng.random() < 0.5 else 1 - owner
            mark = marked * 16 + rng.randrange(8)
        text = BaoPosition(
            (tuple(pits[0]), tuple(pits[1])),
            "SN"[owner],
            reserves,
            (houses[0], houses[1]),
            mark,
            100 + owner,
        ).to_text()
        moves += _check_against_reference(variant, variant.parse_position(text))
    assert moves > 1500
