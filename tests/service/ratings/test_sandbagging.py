"""No rating from choosing your opponent (issue 30, finding 1): a second account's engine that
throws every game it plays against the first account's engine in challenges lifts nothing,
since a challenge between two users' engines is casual (``engines.consent.rated_decision``).

The trial's attack, replayed through the services: 8 challenges at 1+0.013 from the alt account
(and 8 from the main one) that the main account's engine wins 3-0, recorded as a worker
records them, then a refit. The farmer's rating may move by at most 5 Elo; the same games,
had they been rated, would have lifted it by far more (the control, so the test can fail).
"""

from __future__ import annotations

from typing import Any

import pytest

from arena import terminations as T
from arena.matches.leases import match_claim
from arena.matches.models import Match
from arena.matches.services import match_challenge, match_record_result
from arena.referee import GameRecord, MatchRecord, MoveRecord
from engines.consent import CASUAL_USER_PAIRING
from ratings.models import Rating
from ratings.services import rated_games, rating_refit
from ratings.stats.methods import DEFAULT_METHOD, get_method

pytestmark = pytest.mark.django_db

KETE = "bao-la-kete"


def _rating(version: Any) -> float:
    rating = Rating.objects.get(engine_version=version, variant=KETE).rating
    assert rating is not None
    return float(rating)


def test_an_alt_accounts_thrown_challenges_move_the_farmers_rating_by_at_most_5_elo(
    make_version: Any, make_finished_match: Any, monkeypatch: Any
) -> None:
    from django.contrib.auth import get_user_model

    from arena.matches import tasks
    from engines.models import Engine

    monkeypatch.setattr(tasks.run_match, "apply_async", lambda **kw: None)
    users = get_user_model().objects
    main, alt = users.create_user("main"), users.create_user("alt")
    system = users.create_user("arena-system")
    farmer, thrower = make_version("farmer"), make_version("thrower")
    greedy, randomer = make_version("greedy"), make_version("random")
    Engine.objects.filter(name="farmer").update(owner=main)
    Engine.objects.filter(name="thrower").update(owner=alt)
    Engine.objects.filter(name__in=["greedy", "random"]).update(owner=system, is_bundled=True)
    # Rated games the arena chose (the ladder's), so every engine has a bounded rating.
    for a, b, results in (
        (farmer, greedy, ["1-0", "0-1", "1/2-1/2"]),
        (farmer, randomer, ["1-0", "1/2-1/2", "0-1"]),
        (thrower, greedy, ["0-1", "1-0", "1/2-1/2"]),
        (thrower, randomer, ["1/2-1/2", "1-0", "0-1"]),
        (greedy, randomer, ["1-0", "1-0", "0-1"]),
    ):
        make_finished_match(a, b, results)
    assert rating_refit(KETE)
    before = _rating(farmer)
    games_before = len(rated_games(KETE))

    thrown: list[tuple[int, int, float]] = []
    for user, mine, theirs in [(alt, "thrower", "farmer")] * 8 + [(main, "farmer", "thrower")] * 8:
        match = match_challenge(
            user=user,
            engine=mine,
            opponent=theirs,
            variant=KETE,
            time_control="1+0.013",
            rated=True,
        )
        assert (match.rated, match.rated_note) == (False, CASUAL_USER_PAIRING)
        claim = match_claim(match.pk, lease_seconds=900)
        assert claim is not None
        record = _farmer_wins(match)
        assert match_record_result(match.pk, claim.token, record)
        for game in record.games:
            south = farmer.pk if game.south == str(farmer) else thrower.pk
            north = thrower.pk if south == farmer.pk else farmer.pk
            thrown.append((south, north, 1.0 if game.winner == game.south else 0.0))
    assert Match.objects.filter(status=Match.Status.FINISHED, rated=False).count() == 16
    assert rating_refit(KETE)
    after = _rating(farmer)

    assert len(rated_games(KETE)) == games_before  # none of the 48 thrown games counted
    assert abs(after - before) <= 5
    # The control: had those games been rated, the farmer would have gained far more.
    fit = get_method(DEFAULT_METHOD).fit(
        [(g.south, g.north, g.score) for g in rated_games(KETE)] + thrown
    )
    farmed_rating = fit.get(farmer.pk)
    assert farmed_rating is not None
    farmed = farmed_rating.rating
    assert farmed - before > 50


def _farmer_wins(match: Match) -> MatchRecord:
    """The record of a challenge between farmer and thrower in which farmer wins every game."""
    names = [str(match.engine_a), str(match.engine_b)]
    farmer = names[0] if match.engine_a.engine.name == "farmer" else names[1]
    games = []
    for index in (1, 2, 3):
        south, north = (names[0], names[1]) if index % 2 == 1 else (names[1], names[0])
        games.append(
            GameRecord(
                index=index,
                south=south,
                north=north,
                start_position="s",
                winner=farmer,
                result="1-0" if farmer == south else "0-1",
                termination=T.BAO_HAMNA,
                plies=1,
                moves=[
                    MoveRecord(ply=1, side="S", move="f2-", time_ms=5, clock_ms=900, position="p")
                ],
            )
        )
    return MatchRecord(
        variant=match.variant,
        seed=match.seed,
        time_control=match.time_control,
        engines=names,
        games=games,
    )
