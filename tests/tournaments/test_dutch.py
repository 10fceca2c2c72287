"""The FIDE Dutch pairing (pure): colour preferences and allocation from the rules' text,
and the pairings bbpPairings made for the recorded reference events
(``tests/tournaments/data/dutch``), round by round."""

from __future__ import annotations

from pathlib import Path

import pytest

from tournaments import dutch
from tournaments.dutch import BLACK, NO_COLOUR, WHITE, Player
from tournaments.dutch_agreement import compare_event

DATA = Path(__file__).resolve().parent / "data" / "dutch"


def _player(colours: str, tpn: int = 1, score2: int = 0, pid: int = 0) -> Player:
    seq = tuple(WHITE if c == "W" else BLACK for c in colours)
    return Player(pid, tpn=tpn, score2=score2, colours=seq)


@pytest.mark.parametrize(
    ("colours", "preference", "kind"),
    [
        ("", NO_COLOUR, ""),
        ("W", BLACK, "strong"),  # difference +1
        ("WB", WHITE, "mild"),  # difference 0: alternate from the last game
        ("WBW", BLACK, "strong"),  # difference +1
        ("WW", BLACK, "absolute"),  # the same colour in the two latest games
        ("BWBB", WHITE, "absolute"),  # difference -2 and two blacks running
        ("WWBWB", BLACK, "strong"),  # difference +1, the last two differ
    ],
)
def test_colour_preferences_follow_the_whole_colour_sequence(
    colours: str, preference: int, kind: str
) -> None:
    p = _player(colours)
    assert p.preference == preference
    assert (
        "absolute" if p.absolute else "strong" if p.strong else "mild" if colours else ""
    ) == kind


def test_two_non_topscorers_who_both_must_have_white_cannot_meet() -> None:
    a, b = _player("BB", pid=0), _player("WBB", tpn=2, pid=1)
    assert not dutch.compatible(a, b)
    assert dutch.compatible(a, Player(1, tpn=2, score2=0, colours=(WHITE, WHITE)))
    # A topscorer in the last round is exempt (C3).
    top = Player(0, tpn=1, score2=0, colours=(BLACK, BLACK), topscorer=True)
    assert dutch.compatible(top, b)


def test_colour_allocation_grants_the_stronger_preference_then_alternates() -> None:
    absolute = _player("BB", tpn=2, pid=1)  # must have White
    strong = _player("BWB", tpn=1, pid=0)  # difference -1: wants White too
    assert dutch.white_of(strong, absolute) is absolute
    # Equal mild preferences: alternate from the last round they had different colours.
    a, b = _player("WBWB", tpn=1, pid=0), _player("BWWB", tpn=2, pid=1)
    assert a.preference == b.preference == WHITE and not a.strong and not b.strong
    assert dutch.white_of(a, b) is a  # round 2: a had Black, b White
    assert dutch.white_of(b, a) is a
    # No preferences at all: the higher-ranked player gets the initial colour if odd-numbered.
    x, y = _player("", tpn=3, pid=0), _player("", tpn=4, pid=1)
    assert dutch.white_of(x, y) is x
    x, y = _player("", tpn=2, pid=0), _player("", tpn=3, pid=1)
    assert dutch.white_of(x, y) is y


def test_no_pairing_is_reported_when_everyone_has_met() -> None:
    players = [
        Player(i, tpn=i + 1, score2=0, opponents=frozenset({j for j in range(4) if j != i}))
        for i in range(4)
    ]
    with pytest.raises(dutch.NoPairing):
        dutch.pair_players(players, 3)


def test_every_round_of_a_reference_event_is_bbppairings_pairing() -> None:
    event = compare_event(DATA / "tune" / "n25-s1")
    assert event.lines > 100
    assert (event.same, event.wider, event.failed) == (event.lines, [], [])


@pytest.mark.slow
@pytest.mark.parametrize("part", ["tune", "heldout"])
def test_at_least_97_percent_of_bbppairings_pairings_are_made_and_no_wider_gap(
    part: str,
) -> None:
    events = [
        compare_event(d) for d in sorted((DATA / part).iterdir()) if (d / "final.trf").exists()
    ]
    assert len(events) >= 18
    lines = sum(e.lines for e in events)
    same = sum(e.same for e in events)
    assert same / lines >= 0.97, f"{same}/{lines}"
    assert [(e.name, e.wider) for e in events if e.wider] == []
    assert [(e.name, e.failed) for e in events if e.failed] == []
