"""The worked examples of bao-la-kiswahili.md 9 (KSW-E1..E12) and bao-la-kete.md 4
(KETE-E1..E6): exact legal move lists, exact resulting positions and outcomes."""

from __future__ import annotations

import pytest

from arena.rules import BAO_HAMNA, Outcome, get_variant

KSW = "bao-la-kiswahili"
KETE = "bao-la-kete"

# (example id, variant, position, exact legal moves, {move: exact resulting BPN})
EXAMPLES = [
    (
        "KSW-E1 opening move (namua takata)",
        KSW,
        "0,0,0,0,0,0,0,0/0,2,2,6,0,0,0,0/0,0,0,0,6,2,2,0/0,0,0,0,0,0,0,0 S 22:22 n HH - 0",
        "f2+ f2- g2+ g2-",
        {
            "f2-": "0,0,0,0,0,0,0,0/0,2,2,6,0,0,0,0/0,0,1,1,7,0,2,0/0,0,0,0,0,0,0,0 N 21:22 n HH - 1",
            "f2+": "0,0,0,0,0,0,0,0/0,2,2,6,0,0,0,0/0,0,0,0,6,0,3,1/0,0,0,0,0,0,0,1 N 21:22 n HH - 1",
        },
    ),
    (
        "KSW-E2 namua capture into the nyumba, choosing the kichwa",
        KSW,
        "0,0,0,0,0,0,0,0/0,2,2,6,0,0,0,0/0,0,1,1,7,0,2,0/0,0,0,0,0,0,0,0 N 21:22 n HH - 1",
        "c3+ c3- d3+ d3-",
        {
            "d3+": "0,0,0,0,0,0,0,0/0,2,2,7,0,0,0,1/0,0,1,0,7,0,2,0/0,0,0,0,0,0,0,0 S 21:21 n HH - 2",
            "d3-": "0,0,0,0,0,0,0,0/1,2,2,7,0,0,0,0/0,0,1,0,7,0,2,0/0,0,0,0,0,0,0,0 S 21:21 n HH - 2",
        },
    ),
    (
        "KSW-E3 namua takata ends in the functional nyumba",
        KSW,
        "3,3,3,3,3,3,3,2/3,3,0,3,0,3,3,3/0,0,1,0,6,0,0,0/0,0,0,0,0,0,0,0 S 8:8 n H- - 28",
        "c2+ c2-",
        {"c2+": "3,3,3,3,3,3,3,2/3,3,0,3,0,3,3,3/0,0,0,1,7,0,0,0/0,0,0,0,0,0,0,0 N 7:8 n H- - 29"},
    ),
    (
        "KSW-E4 namua capture reaching the nyumba: stop or safari",
        KSW,
        "5,5,5,5,5,5,5,4/2,0,5,0,0,0,0,0/0,0,1,0,7,0,0,0/0,0,0,0,0,0,0,0 S 5:5 n H- - 34",
        "c2+c c2+s c2-",
        {
            "c2+s": "5,5,5,5,5,5,5,4/2,0,0,0,0,0,0,0/1,1,3,1,8,0,0,0/0,0,0,0,0,0,0,0 N 4:5 n H- - 35",
            "c2+c": "5,5,5,5,5,5,5,4/2,0,0,0,0,0,0,0/1,1,3,1,0,1,1,1/0,0,0,1,1,1,1,1 N 4:5 n -- - 35",
            "c2-": "5,5,5,5,5,5,5,4/2,0,0,0,0,0,0,0/0,0,2,1,8,1,1,1/0,0,0,0,0,0,0,0 N 4:5 n H- - 35",
        },
    ),
    (
        "KSW-E5 tax when the nyumba is the only occupied front pit",
        KSW,
        "5,5,5,5,5,5,2,2/2,0,2,0,0,0,0,0/0,0,0,0,6,0,0,0/0,0,0,0,0,0,0,0 S 10:10 n H- - 24",
        "e2+ e2-",
        {
            "e2+": "5,5,5,5,5,5,2,2/2,0,2,0,0,0,0,0/0,0,0,0,5,1,1,0/0,0,0,0,0,0,0,0 N 9:10 n H- - 25",
            "e2-": "5,5,5,5,5,5,2,2/2,0,2,0,0,0,0,0/0,0,1,1,5,0,0,0/0,0,0,0,0,0,0,0 N 9:10 n H- - 25",
        },
    ),
    (
        "KSW-E6 owned but non-functional nyumba is an ordinary pit (K-2)",
        KSW,
        "4,4,3,3,3,3,3,3/3,3,0,3,0,3,3,3/0,0,1,0,5,0,0,0/0,0,0,0,0,0,0,0 S 7:7 n H- - 30",
        "e2+ e2-",
        {"e2-": "4,4,3,3,3,3,3,3/3,3,0,3,0,3,3,3/1,1,2,1,0,0,0,0/1,1,0,0,0,0,0,0 N 6:7 n -- - 31"},
    ),
    (
        "KSW-E7 mtaji capture chain with a kimbi reversal",
        KSW,
        "3,3,3,3,3,3,3,2/2,0,2,2,7,0,2,2/0,0,2,0,1,0,1,0/4,4,2,2,2,2,2,2 S 0:0 m -- - 80",
        "b1+ c2+ h1-",
        {"c2+": "3,3,3,3,3,3,3,2/2,0,2,0,0,0,0,2/1,1,1,3,4,2,1,2/4,4,2,2,2,2,2,2 N 0:0 m -- - 81"},
    ),
    (
        "KSW-E8a the 16-seed rule: 17 seeds only start a takata",
        KSW,
        "4,4,4,4,4,2,2,2/2,2,2,2,2,2,2,3/1,0,1,0,1,0,1,0/0,0,0,0,0,0,0,17 S 0:0 m -- - 90",
        "h1+ h1-",
        {"h1-": "4,4,4,4,4,2,2,2/2,2,2,2,2,2,2,3/3,0,3,0,3,0,3,1/0,2,0,2,0,2,0,2 N 0:0 m -- - 91"},
    ),
    (
        "KSW-E8b the 16-seed rule: a small capture is compulsory",
        KSW,
        "3,3,3,3,3,3,3,3/2,2,2,2,2,2,2,3/1,0,1,0,1,0,1,0/0,2,0,0,0,0,0,17 S 0:0 m -- - 90",
        "b1+",
        {"b1+": "3,3,3,3,3,3,3,3/0,2,2,2,2,2,2,3/3,1,1,0,1,0,1,0/1,0,0,0,0,0,0,17 N 0:0 m -- - 91"},
    ),
    (
        "KSW-E9 lone kichwa must be sown towards the centre (K-9)",
        KSW,
        "5,5,5,5,5,4,4,4/0,2,0,2,0,2,0,2/3,0,0,0,0,0,0,0/2,2,2,2,2,2,2,2 S 0:0 m -- - 100",
        "a2+",
        {"a2+": "5,5,5,5,5,4,4,4/0,2,0,2,0,2,0,2/0,1,1,1,0,0,0,0/2,2,2,2,2,2,2,2 N 0:0 m -- - 101"},
    ),
    (
        "KSW-E10 takasia creation",
        KSW,
        "0,1,2,1,4,8,2,2/10,0,0,10,2,1,0,1/0,2,0,0,0,0,2,0/0,0,2,2,0,2,6,4 S 0:0 m -- - 100",
        "b2+ b2- g2+ g2-",
        {
            "g2-": "0,1,2,1,4,8,2,2/10,0,0,10,2,1,0,1/0,2,0,0,1,1,0,0/0,0,2,2,0,2,6,4 N 0:0 m -- e3 101"
        },
    ),
    (
        "KSW-E10 the restricted reply ends in the marked pit",
        KSW,
        "0,1,2,1,4,8,2,2/10,0,0,10,2,1,0,1/0,2,0,0,1,1,0,0/0,0,2,2,0,2,6,4 N 0:0 m -- e3 101",
        "a3+ a3- d3+ d3-",
        {"a3-": "0,3,4,3,6,1,4,4/2,0,3,1,5,3,2,3/0,2,0,0,1,1,0,0/0,0,2,2,0,2,6,4 S 0:0 m -- - 102"},
    ),
    (
        "KSW-E11 never-ending moves are illegal",
        KSW,
        "4,4,4,4,4,4,4,3/0,5,0,5,0,5,0,5/1,0,1,0,1,0,1,0/2,0,2,1,0,1,2,1 S 0:0 m -- - 120",
        "a1+ c1- g1+ g1-",
        {"g1-": "4,4,4,4,4,4,4,3/0,5,0,5,0,5,0,5/1,0,1,0,1,0,1,1/2,0,2,1,0,1,0,2 N 0:0 m -- - 121"},
    ),
    (
        "KSW-E12 winning in the middle of a move",
        KSW,
        "6,6,6,6,6,6,6,6/0,0,3,0,0,0,0,0/0,0,1,0,6,2,0,0/0,0,0,0,0,0,0,0 S 2:2 n H- - 40",
        "c2+ c2-",
        {
            "c2+": "6,6,6,6,6,6,6,6/0,0,0,0,0,0,0,0/0,0,2,0,6,2,0,0/0,0,0,0,0,0,0,0 N 1:2 n H- - 41",
            "c2-": "6,6,6,6,6,6,6,6/0,0,0,0,0,0,0,0/0,0,2,0,6,2,0,0/0,0,0,0,0,0,0,0 N 1:2 n H- - 41",
        },
    ),
    (
        "KETE-E1 six-seed kuu is emptied (D1)",
        KETE,
        "5,5,5,5,5,5,2,2/2,0,2,0,0,0,0,0/0,0,0,0,6,0,0,0/0,0,0,0,0,0,0,0 S 10:10 n H- - 24",
        "e2+ e2-",
        {
            "e2+": "5,5,5,5,5,5,2,2/2,0,2,0,0,0,0,0/0,0,0,0,0,1,1,1/0,0,0,0,1,1,1,1 N 9:10 n -- - 25",
            "e2-": "5,5,5,5,5,5,2,2/2,0,2,0,0,0,0,0/1,1,1,1,0,0,0,0/1,1,1,0,0,0,0,0 N 9:10 n -- - 25",
        },
    ),
    (
        "KETE-E2 kuu with more than six is taxed as usual (D1)",
        KETE,
        "5,5,5,5,5,5,2,0/2,0,2,0,0,0,0,0/0,0,0,0,8,0,0,0/0,0,0,0,0,0,0,0 S 10:10 n H- - 24",
        "e2+ e2-",
        {"e2+": "5,5,5,5,5,5,2,0/2,0,2,0,0,0,0,0/0,0,0,0,7,1,1,0/0,0,0,0,0,0,0,0 N 9:10 n H- - 25"},
    ),
    (
        "KETE-E3 first mtaji takata from the kuu (D2)",
        KETE,
        "4,4,4,4,4,4,4,4/2,2,0,2,0,2,2,2/0,0,3,0,7,0,0,0/2,2,2,2,1,1,0,0 S 0:0 m H- - 90",
        "e2+ e2-",
        {
            "e2+": "4,4,4,4,4,4,4,4/2,2,0,2,0,2,2,2/1,0,3,0,0,1,1,1/3,3,0,3,0,2,1,1 N 0:0 m -- - 91",
            "e2-": "4,4,4,4,4,4,4,4/2,2,0,2,0,2,2,2/1,1,4,1,0,0,0,0/3,3,0,3,2,0,1,1 N 0:0 m -- - 91",
        },
    ),
    (
        "KETE-E3 the same position in Bao la Kiswahili",
        KSW,
        "4,4,4,4,4,4,4,4/2,2,0,2,0,2,2,2/0,0,3,0,7,0,0,0/2,2,2,2,1,1,0,0 S 0:0 m H- - 90",
        "c2+ c2- e2+ e2-",
        {},
    ),
    (
        "KETE-E4 hizi zetu priority, marked pit captured first (D3)",
        KETE,
        "5,5,4,4,4,4,4,5/2,0,0,3,2,1,0,1/1,0,0,0,1,1,0,0/0,0,3,2,0,2,6,4 S 0:0 m -- e3 120",
        "h1-",
        {"h1-": "5,5,4,4,4,4,4,5/2,0,0,3,0,1,0,1/1,1,1,1,0,3,0,2/0,0,3,2,0,2,6,0 N 0:0 m -- - 121"},
    ),
    (
        "KETE-E4 the same position in Bao la Kiswahili without the mark",
        KSW,
        "5,5,4,4,4,4,4,5/2,0,0,3,2,1,0,1/1,0,0,0,1,1,0,0/0,0,3,2,0,2,6,4 S 0:0 m -- - 120",
        "c1+ h1-",
        {},
    ),
    (
        "KETE-E5 hizi zetu priority, marked pit captured later in the move (D3)",
        KETE,
        "6,6,5,5,5,5,5,5/5,1,1,0,2,1,2,1/1,0,0,0,1,0,1,0/0,0,3,0,0,0,3,0 S 0:0 m -- e3 130",
        "c1+",
        {"c1+": "6,6,5,5,5,5,5,5/0,0,1,0,0,1,2,1/0,3,2,2,3,1,1,0/1,1,0,0,0,0,3,0 N 0:0 m -- - 131"},
    ),
    (
        "KETE-E5 the same position in Bao la Kiswahili without the mark",
        KSW,
        "6,6,5,5,5,5,5,5/5,1,1,0,2,1,2,1/1,0,0,0,1,0,1,0/0,0,3,0,0,0,3,0 S 0:0 m -- - 130",
        "c1+ g1-",
        {},
    ),
    (
        "KETE-E6 creating a hizi zetu mark",
        KETE,
        "0,1,2,1,4,8,2,2/10,0,0,10,2,1,0,1/0,2,0,0,0,0,2,0/0,0,2,2,0,2,6,4 S 0:0 m -- - 100",
        "b2+ b2- g2+ g2-",
        {
            "g2-": "0,1,2,1,4,8,2,2/10,0,0,10,2,1,0,1/0,2,0,0,1,1,0,0/0,0,2,2,0,2,6,4 N 0:0 m -- e3 101"
        },
    ),
    (
        "KETE-E6 the mark survives North's reply",
        KETE,
        "0,1,2,1,4,8,2,2/10,0,0,10,2,1,0,1/0,2,0,0,1,1,0,0/0,0,2,2,0,2,6,4 N 0:0 m -- e3 101",
        "a3+ a3- d3+ d3-",
        {
            "a3-": "0,3,4,3,6,1,4,4/2,0,3,1,5,3,2,3/0,2,0,0,1,1,0,0/0,0,2,2,0,2,6,4 S 0:0 m -- e3 102"
        },
    ),
    (
        "KETE-E6 the marking player must capture the marked pit",
        KETE,
        "0,3,4,3,6,1,4,4/2,0,3,1,5,3,2,3/0,2,0,0,1,1,0,0/0,0,2,2,0,2,6,4 S 0:0 m -- e3 102",
        "h1-",
        {},
    ),
    (
        "KETE-E6 in Bao la Kiswahili h1- is the only capture anyway",
        KSW,
        "0,3,4,3,6,1,4,4/2,0,3,1,5,3,2,3/0,2,0,0,1,1,0,0/0,0,2,2,0,2,6,4 S 0:0 m -- - 102",
        "h1-",
        {},
    ),
]


@pytest.mark.parametrize(
    ("variant_id", "text", "legal", "results"),
    [pytest.param(*example[1:], id=example[0]) for example in EXAMPLES],
)
def test_worked_example_gives_the_exact_moves_and_positions(
    variant_id: str, text: str, legal: str, results: dict[str, str]
) -> None:
    variant = get_variant(variant_id)
    position = variant.parse_position(text)
    assert position.to_text() == text
    assert variant.legal_moves(position) == legal.split()
    for move, after in results.items():
        assert variant.apply(position, move).to_text() == after


def test_ksw_e10_other_replies_end_where_the_spec_says() -> None:
    # KSW-E10: a3+ ends in g3, d3+ ends in g3, d3- leaves 6 in the marked e3.
    variant = get_variant(KSW)
    position = variant.parse_position(
        "0,1,2,1,4,8,2,2/10,0,0,10,2,1,0,1/0,2,0,0,1,1,0,0/0,0,2,2,0,2,6,4 N 0:0 m -- e3 101"
    )
    after = {m: variant.apply(position, m).to_text().split("/") for m in ("a3+", "d3+", "d3-")}
    assert after["a3+"][1].split(",")[6] == "1"  # g3 was empty: the lap ended there
    assert after["d3+"][1].split(",")[6] == "1"
    assert after["d3-"][1].split(",")[4] == "6"


def test_ksw_e12_reports_bao_hamna_with_three_seeds_in_hand() -> None:
    variant = get_variant(KSW)
    position = variant.parse_position(
        "6,6,6,6,6,6,6,6/0,0,3,0,0,0,0,0/0,0,1,0,6,2,0,0/0,0,0,0,0,0,0,0 S 2:2 n H- - 40"
    )
    after = variant.apply(position, "c2-")
    assert variant.outcome(after) == Outcome("S", BAO_HAMNA, seeds_in_hand=3)
    assert variant.legal_moves(after) == []
    # The final position text parses again, and the outcome is derived from it alone.
    reparsed = variant.parse_position(after.to_text(), strict=True)
    assert variant.outcome(reparsed) == Outcome("S", BAO_HAMNA, seeds_in_hand=3)


def test_ksw_e12_is_played_the_same_in_bao_la_kete() -> None:
    variant = get_variant(KETE)
    position = variant.parse_position(
        "6,6,6,6,6,6,6,6/0,0,3,0,0,0,0,0/0,0,1,0,6,2,0,0/0,0,0,0,0,0,0,0 S 2:2 n H- - 40"
    )
    after = variant.apply(position, "c2+")
    assert variant.outcome(after) == Outcome("S", BAO_HAMNA, seeds_in_hand=3)


KETE_SAME_AS_KSW = [
    e
    for e in EXAMPLES
    if e[1] == KSW
    and e[0].split()[0]
    in {
        "KSW-E1",
        "KSW-E2",
        "KSW-E3",
        "KSW-E4",
        "KSW-E7",
        "KSW-E8a",
        "KSW-E8b",
        "KSW-E9",
        "KSW-E11",
        "KSW-E12",
    }
]


@pytest.mark.parametrize(
    ("text", "legal", "results"),
    [pytest.param(*example[2:], id=example[0]) for example in KETE_SAME_AS_KSW],
)
def test_kiswahili_example_gives_the_same_result_in_bao_la_kete(
    text: str, legal: str, results: dict[str, str]
) -> None:
    # bao-la-kete.md 4: every Kiswahili example except E5, E6 and E10 is also a Kete example.
    variant = get_variant(KETE)
    position = variant.parse_position(text)
    assert variant.legal_moves(position) == legal.split()
    for move, after in results.items():
        assert variant.apply(position, move).to_text() == after
