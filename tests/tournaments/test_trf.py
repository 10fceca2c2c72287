"""TRF-16 read and written (pure): round trips through the arena's view, every result code,
the errors with their line, files bbpPairings wrote, and the reference events' consistency."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from tournaments.formats import Entrant, Field, Played
from tournaments.formats.base import BYE, FORFEIT, MATCH
from tournaments.formats.simulate import simulate_swiss
from tournaments.trf import (
    FIRST_BLACK,
    FIRST_WHITE,
    RESULT_CODES,
    Trf,
    TrfError,
    TrfGame,
    TrfPlayer,
    from_arena,
    parse,
    to_arena,
)

DATA = Path(__file__).resolve().parent / "data" / "dutch"
EVENTS = sorted(p.parent for p in DATA.glob("*/n*/final.trf"))


def _line(pid: int, points: float, games: str, rating: str = "1500", name: str = "") -> str:
    """A 001 record: ``games`` the round entries, each 'oooo c r', separated by two spaces."""
    head = f"001 {pid:>4}      {name or f'P{pid}':<33} {rating:>4}{'':28}{points:>4.1f} {pid:>4}"
    return f"{head}  {games}" if games else head


def _field(n: int, rounds: int, paired: int, withdrawn: tuple[int, ...] = ()) -> Field:
    return Field(tuple(Entrant(i, 1500.0, i in withdrawn) for i in range(n)), rounds, paired)


def test_a_simulated_swiss_comes_back_from_its_file_with_the_same_history() -> None:
    sim = simulate_swiss(9, 6, seed=5)
    field = _field(9, 6, 6)
    names = sim.names
    text = from_arena(field, sim.history, names, rounds_paired=6).text()
    view = to_arena(parse(text))
    assert sorted(view.history, key=lambda h: (h.round, h.a)) == sorted(
        sim.history, key=lambda h: (h.round, h.a)
    )
    assert Counter(h.kind for h in view.history) == {MATCH: 24, BYE: 6}
    assert view.ids == tuple(range(1, 10))
    assert view.names == tuple(names)
    assert (view.field.rounds, view.field.round) == (6, 6)
    assert not any(e.withdrawn for e in view.field.entrants)


def test_forfeits_aborted_matches_byes_and_a_withdrawal_round_trip() -> None:
    history = [
        Played(1, 0, 3, 1.0),
        Played(1, 1, 4, 0.5),
        Played(1, 2, None, kind=BYE),
        Played(2, 4, 0, 0.0),
        Played(2, 3, 2, None),  # aborted: met, no result
        Played(2, 1, None, 1.0, FORFEIT),  # a forfeit win over no one
        Played(3, 0, 1, 1.0, FORFEIT),  # 1 withdrew with a pairing made
        Played(3, 2, 4, 0.5),
        Played(3, 3, None, kind=BYE),
    ]
    field = _field(5, 5, 3, withdrawn=(1,))
    trf = from_arena(field, history, list("abcde"), rounds_paired=3, absent={1})
    text = trf.text()
    lines = text.splitlines()
    assert lines[:2] == ["XXR 5", "XXC white1"]
    assert lines[-1] == "XXP 4 3"  # the aborted pair may not meet again in a FIDE program
    b = next(line for line in lines if line.startswith("001    2"))
    assert [b[at : at + 8] for at in range(91, len(b), 10)] == [
        "   5 w =",
        "0000 - F",
        "   1 - -",
        "0000 - Z",
    ]
    view = to_arena(parse(text))
    assert sorted(view.history, key=lambda h: (h.round, h.a)) == sorted(
        history, key=lambda h: (h.round, h.a)
    )
    assert [e.withdrawn for e in view.field.entrants] == [False, True, False, False, False]
    assert view.field.round == 3
    points = {p.id: p.points for p in parse(text).players}
    assert points == {1: 3.0, 2: 1.5, 3: 1.5, 4: 1.0, 5: 1.0}


def test_every_result_code_is_read_as_the_pairing_programs_read_it() -> None:
    text = "\n".join(
        [
            "012 Every code",
            "XXR 4",
            "XXC black1",
            _line(1, 4.0, "   2 w 1     3 b W     4 w +  0000 - U"),
            _line(2, 2.0, "   1 b 0     4 w D  0000 - F     3 w d"),
            _line(3, 1.0, "   4 w =     1 w L  0000 - Z     2 b ="),
            _line(4, 1.0, "   3 b =     2 b =     1 b -  0000 - -"),
            _line(5, 0.0, "0000 - Z  0000 - -            0000 - Z"),
        ]
    )
    trf = parse(text)
    assert (trf.name, trf.rounds, trf.first_colour) == ("Every code", 4, FIRST_BLACK)
    codes = {g.result for p in trf.players for g in p.games}
    assert codes == {"1", "0", "=", "+", "-", "U", "F", "Z", " "}  # W, D, L read as 1, =, 0
    view = to_arena(trf)
    assert sorted(view.history, key=lambda h: (h.round, h.a)) == [
        Played(1, 0, 1, 1.0),
        Played(1, 2, 3, 0.5),
        Played(2, 1, 3, 0.5),
        Played(2, 2, 0, 0.0),
        Played(3, 0, 3, 1.0, FORFEIT),
        Played(3, 1, None, 1.0, FORFEIT),
        Played(4, 0, None, kind=BYE),
        Played(4, 1, 2, 0.5),
    ]
    assert view.field.round == 4  # 4 and 5 absent in it, nothing written after it
    assert not any(e.withdrawn for e in view.field.entrants)
    assert set(RESULT_CODES) == set("1=0+-UHFZWDL")


def test_a_pairing_allocated_bye_may_be_written_as_a_forfeit_win_over_no_one() -> None:
    text = "\n".join(
        ["XXR 3", _line(1, 1.0, "   2 w 1"), _line(2, 0.0, "   1 b 0"), _line(3, 1.0, "0000 - +")]
    )
    assert to_arena(parse(text)).history[-1] == Played(1, 2, None, kind=BYE)


def test_the_column_after_the_last_round_says_who_is_not_paired_next() -> None:
    text = "\n".join(
        [
            "XXR 3",
            _line(1, 1.0, "   2 w 1"),
            _line(2, 0.0, "   1 b 0  0000 - Z"),
            _line(3, 0.5, "   4 w =  0000 - H"),
            _line(4, 0.5, "   3 b ="),
        ]
    )
    view = to_arena(parse(text))
    assert view.field.round == 1
    assert [e.withdrawn for e in view.field.entrants] == [False, True, True, False]


def test_a_half_point_bye_in_a_paired_round_has_no_arena_counterpart() -> None:
    text = "\n".join(
        [
            "XXR 3",
            _line(1, 1.0, "   2 w 1     3 b 0"),
            _line(2, 0.5, "   1 b 0  0000 - H"),
            _line(3, 2.0, "0000 - U     1 w 1"),
        ]
    )
    trf = parse(text)  # a valid file
    with pytest.raises(TrfError, match="half-point bye") as err:
        to_arena(trf)
    assert err.value.line == 3


@pytest.mark.parametrize(
    ("lines", "line", "message"),
    [
        (["001    1      short"], 1, "at least 84 columns"),
        ([_line(1, 0, "").replace("   1", "  x1", 1)], 1, "start number must be a whole"),
        ([_line(1, 0, ""), _line(1, 0, "")], 2, "start number 1 is repeated"),
        ([_line(1, 0, "").replace(" 0.0", "  ab")], 1, "points must be a number"),
        ([_line(1, 0, "").replace(" 0.0", "0.25")], 1, "whole or half points"),
        ([_line(1, 0, "", rating="14x0")], 1, "rating must be a whole"),
        (["XXR x"], 1, "number of rounds must be a whole"),
        (["XXR " + "9" * 5000], 1, "at most 9 digits"),  # int() refuses over 4,300 digits
        (["XXR 3", "XXP 1 " + "2" * 5000], 2, "at most 9 digits"),
        ([_line(1, 0, "").replace(" 0.0", " inf")], 1, "whole or half points"),
        ([_line(1, 0, "").replace(" 0.0", " nan")], 1, "whole or half points"),
        (["XXR 0"], 1, "must be positive"),
        (["", "XXR 3", "0"], 3, "three-character code"),
        ([_line(1, 1, "   2 w Q")], 1, "unknown result code 'Q'"),
        ([_line(1, 1, "   2 x 1")], 1, "colour is w, b or -"),
        ([_line(1, 1, "   1 w 1")], 1, "cannot meet itself"),
        ([_line(1, 1, "   2 - 1"), _line(2, 0, "   1 - 0")], 1, "needs an opponent and w or b"),
        ([_line(1, 1, "0000 w U")], 1, "a colour without an opponent"),
        ([_line(1, 1, "   2 - U")], 1, "is a bye and has no opponent"),
        ([_line(1, 1, "   2 w  ")], 1, "an opponent without a result"),
        ([_line(1, 1, "   2 w 1")], 1, "opponent 2 is not in the file"),
        ([_line(1, 1, "   2 w 1"), _line(2, 0, "   3 b 0")], 1, "does not name 1"),
        ([_line(1, 1, "   2 w 1"), _line(2, 0, "   1 w 0")], 1, "w 1 against 2's w 0"),
        ([_line(1, 1, "   2 w 1"), _line(2, 1, "   1 b 1")], 1, "w 1 against 2's b 1"),
        ([_line(1, 1, "   2 - +"), _line(2, 1, "   1 - +")], 1, "forfeit + against +"),
        ([_line(1, 0.5, "   2 w 1"), _line(2, 0, "   1 b 0")], 1, "has 0.5 points, its results 1"),
        ([_line(1, 1, "   2 w 1 x"), _line(2, 0, "   1 b 0")], 1, "an entry is 'oooo c r'"),
        ([_line(1, 0, "0000 - Z  0000 - Z")], 1, "after the last round paired (0)"),
    ],
)
def test_a_bad_file_is_refused_with_its_line(lines: list[str], line: int, message: str) -> None:
    with pytest.raises(TrfError, match=re.escape(message)) as err:
        parse("\n".join(lines))
    assert err.value.line == line
    assert str(err.value).startswith(f"line {line}: ")


def test_names_stay_on_their_line_and_in_their_columns() -> None:
    field = _field(2, 1, 1)
    names = ["evil\n001    9 injected", "x" * 50]
    text = from_arena(field, [Played(1, 0, 1, 1.0)], names, rounds_paired=1).text()
    lines = text.splitlines()
    assert len(lines) == 4 and sum(line.startswith("001") for line in lines) == 2
    view = to_arena(parse(text))
    assert view.names == ("evil?001    9 injected", "x" * 33)
    assert view.history == (Played(1, 0, 1, 1.0),)


def test_the_first_colour_is_inferred_as_bbppairings_does() -> None:
    field = _field(4, 3, 1)
    # Start number 1 is black in round 1: black1.
    assert (
        from_arena(field, [Played(1, 2, 0, 0.5), Played(1, 1, 3, 0.5)], "abcd", rounds_paired=1)
    ).first_colour == FIRST_BLACK
    # 1 had the bye (no colour): 2 is white, read reversed for the second in line: black1.
    field5 = _field(5, 3, 1)
    history = [Played(1, 0, None, kind=BYE), Played(1, 1, 3, 1.0), Played(1, 4, 2, 0.0)]
    assert from_arena(field5, history, "abcde", rounds_paired=1).first_colour == FIRST_BLACK
    assert from_arena(field, [], "abcd", rounds_paired=0).first_colour == FIRST_WHITE


def test_a_file_reads_back_to_the_same_records() -> None:
    trf = Trf(
        (
            TrfPlayer(1, "a", 2100, 1.0, 1, (TrfGame(2, "w", "1"),)),
            TrfPlayer(2, "b", None, 0.0, 2, (TrfGame(1, "b", "0"),)),
        ),
        "Cup",
        5,
        FIRST_WHITE,
    )
    again = parse(trf.text())
    assert again.text() == trf.text()
    assert [(p.id, p.name, p.rating, p.points, p.rank, p.games) for p in again.players] == [
        (p.id, p.name, p.rating, p.points, p.rank, p.games) for p in trf.players
    ]


def test_a_file_bbppairings_wrote_is_read() -> None:
    """bbpPairings' random tournament generator (``-g``, seed 11: 25 players, 7 rounds,
    forfeits, retirements and half-point byes; ``\\r`` line ends) written by the program."""
    text = (DATA / "generated" / "bbp-random-n25-s11.trf").read_text()
    trf = parse(text)
    assert (len(trf.players), trf.rounds_paired, trf.name) == (25, 7, "AutoTest Tournament 11")
    codes = Counter(g.result for p in trf.players for g in p.games)
    assert {"1", "0", "=", "+", "-", "U", "H"} <= set(codes)
    assert parse(trf.text()).text() == trf.text()
    with pytest.raises(TrfError, match="half-point bye"):
        to_arena(trf)  # player 9's round 6
    cut = trf.before_round(6)
    view = to_arena(cut)
    assert view.field.round == 5
    assert [e.seed for e in view.field.entrants if e.withdrawn] == [8]  # its H in round 6
    assert len([h for h in view.history if h.kind == FORFEIT]) == 4  # rounds 1 and 2


def test_every_reference_round_is_the_pairing_its_final_file_records() -> None:
    """The bbpPairings output of each round (``round-NN.txt``) is the pairing of that round
    in ``final.trf``, and the file cut before the round holds what it was paired from."""
    assert len(EVENTS) == 42
    rounds = 0
    for event in EVENTS:
        trf = parse((event / "final.trf").read_text())
        view = to_arena(trf)
        for rnd in range(1, view.field.round + 1):
            out = (event / f"round-{rnd:02d}.txt").read_text().split()
            pairs = {(int(out[k]), int(out[k + 1])) for k in range(1, len(out), 2)}
            assert int(out[0]) == len(pairs)
            ids = view.ids
            recorded = {
                (ids[h.a], ids[h.b] if h.b is not None else 0)
                for h in view.history
                if h.round == rnd and h.kind in (MATCH, BYE)
            }
            forfeits = {
                frozenset((ids[h.a], ids[h.b])) for h in view.history
                if h.round == rnd and h.kind == FORFEIT and h.b is not None
            }  # fmt: skip
            assert {p for p in pairs if frozenset(p) not in forfeits} == recorded
            assert {frozenset(p) for p in pairs} >= forfeits
            before = to_arena(trf.before_round(rnd))
            assert before.history == tuple(h for h in view.history if h.round < rnd)
            absent = {e.seed for e in before.field.entrants if e.withdrawn}
            taking_part = {ids.index(i) for p in pairs for i in p if i}
            assert absent == set(range(view.field.n)) - taking_part
            rounds += 1
    assert rounds == 377


def test_start_numbers_are_the_pairing_order_whatever_the_ratings() -> None:
    """FIDE's programs pair by start number: the field rates every entrant alike, so a
    pairing by rating then seed keeps the file's order; the file's ratings are kept aside."""
    text = "\n".join(
        [
            "XXR 3",
            _line(1, 1.0, "   2 w 1", rating="1400"),
            _line(2, 0.0, "   1 b 0", rating="2200"),
            _line(3, 0.0, "", rating=""),
        ]
    )
    view = to_arena(parse(text))
    assert [e.rating for e in view.field.entrants] == [1500.0, 1500.0, 1500.0]
    assert view.ratings == (1400, 2200, None)
    assert view.first_colour == FIRST_WHITE  # no XXC: inferred from round 1
    field = Field(tuple(Entrant(i, r) for i, r in enumerate((1400.0, 2200.0, 1500.0))), 3, 1)
    trf = from_arena(
        field, [Played(1, 0, 1, 1.0)], "abc", rounds_paired=1, ids=[3, 1, 2], ratings=[1, 2, 3]
    )
    assert [(p.id, p.name, p.rating) for p in trf.players] == [
        (1, "b", 2),
        (2, "c", 3),
        (3, "a", 1),
    ]
    with pytest.raises(TrfError, match="distinct"):
        from_arena(field, [], "abc", rounds_paired=0, ids=[1, 1, 2])


def test_a_rating_outside_four_digits_is_clamped_and_the_file_still_reads() -> None:
    # An Elo over 9999 or under 0 would shift every later column of its 001 record.
    field = Field((Entrant(0, 12345.0), Entrant(1, -1000.0)), 1, 1)
    text = from_arena(field, [Played(1, 0, 1, 1.0)], ["high", "low"], rounds_paired=1).text()
    trf = parse(text)
    assert sorted(p.rating for p in trf.players) == [0, 9999]
    assert to_arena(trf).history == (Played(1, 0, 1, 1.0),)
