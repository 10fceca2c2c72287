"""Fixtures of the version-test tests: engine versions made in the database (no files), and a
way to record a game pair through the real recording path (``match_record_result`` under the
match's lease), as a worker would, without playing it. ``fresh_var_dir`` comes from the
rated-play fixtures (``tests.service.rated_play``), as when these tests sat under the
tournaments tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.service.api.conftest import active_version
from tests.service.rated_play import fresh_var_dir

__all__ = ["fresh_var_dir"]


@pytest.fixture
def alice_v1(alice: Any) -> Any:
    return active_version(alice, "alice1")


@pytest.fixture
def alice_v2(alice: Any, alice_v1: Any) -> Any:
    return active_version(alice, "alice1", number=2)


@pytest.fixture
def bob_v1(bob: Any) -> Any:
    return active_version(bob, "bob1")


@pytest.fixture
def bob_v2(bob: Any, bob_v1: Any) -> Any:
    return active_version(bob, "bob1", number=2)


@pytest.fixture
def pairs_in_flight(settings: Any) -> int:
    """Three pairs of a test queued at a time (not the host's cores)."""
    settings.BAO_VERSION_TEST_PAIRS = 3
    return 3


#: A game's result from the new version's side: win, draw, loss.
_RESULTS = {"W": 1.0, "D": 0.5, "L": 0.0}


@pytest.fixture
def record_pair() -> Callable[..., bool]:
    """``record_pair(match, "WD")`` records the pair as a worker would: claims its lease, then
    ``match_record_result`` with games whose results are ``W``/``D``/``L`` for the new version
    (engine A: South in game 1, North in game 2), or ``A`` for an aborted game (the record is
    then ``aborted``). Returns what ``match_record_result`` returned."""
    from arena.matches.models import Match
    from arena.matches.services import match_record_result
    from arena.referee import GameRecord, MatchRecord
    from arena.terminations import ABORTED, BAO_HAMNA

    def record(match: Any, games: str, *, token: str = "lease-1") -> bool:
        Match.objects.filter(pk=match.pk, status=Match.Status.PENDING).update(
            status=Match.Status.RUNNING, lease_token=token
        )
        names = ["new", "base"]
        played = []
        score = [0.0, 0.0]
        for index, letter in enumerate(games, start=1):
            south, north = (names[0], names[1]) if index == 1 else (names[1], names[0])
            if letter == "A":
                played.append(
                    GameRecord(
                        index=index,
                        south=south,
                        north=north,
                        start_position="",
                        result="*",
                        winner=None,
                        termination=ABORTED,
                        detail="sandbox failed",
                    )
                )
                break
            new_points = _RESULTS[letter]
            score[0] += new_points
            score[1] += 1 - new_points
            winner = None if letter == "D" else ("new" if letter == "W" else "base")
            south_points = new_points if south == "new" else 1 - new_points
            result = {1.0: "1-0", 0.5: "1/2-1/2", 0.0: "0-1"}[south_points]
            played.append(
                GameRecord(
                    index=index,
                    south=south,
                    north=north,
                    start_position="",
                    result=result,
                    winner=winner,
                    termination=BAO_HAMNA,
                    plies=30,
                )
            )
        aborted = "A" in games
        winner = None if aborted or score[0] == score[1] else names[score[1] > score[0]]
        record = MatchRecord(
            variant=match.variant,
            seed=match.seed,
            time_control=match.time_control,
            engines=names,
            games=played,
            aborted=aborted,
        )
        # The score and winner follow from the games, as the referee's do.
        assert (record.score, record.winner) == (score, winner)
        return match_record_result(match.pk, token, record)

    return record
