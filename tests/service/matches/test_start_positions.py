"""Matches from a suite of start positions (issue 15): the start is drawn by the match seed at
creation and stored, the referee plays it in every game with colours swapped, the replay and
the text record carry it; a challenge names the suite, an unknown one is refused."""

from __future__ import annotations

import pytest

from arena.matches import runner, services
from arena.matches.gamerecord import game_record_text
from arena.matches.models import Match
from arena.openings import match_start
from arena.rules import get_variant

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_broker(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from arena.matches import tasks

    monkeypatch.setattr(tasks.run_match, "apply_async", lambda **kw: None)


def test_a_match_stores_the_suite_position_its_seed_draws(greedy, randomer) -> None:  # type: ignore[no-untyped-def]
    for seed in (1, 2, 3):
        match = services.match_create(
            engine_a=greedy,
            engine_b=randomer,
            variant="kingulu",
            time_control="2+0.1",
            seed=seed,
            start_suite="balanced",
        )
        assert match.start_suite == "balanced"
        assert match.start_position == match_start("bao-kingulu", "balanced", seed).to_text()
    standard = services.match_create(
        engine_a=greedy, engine_b=randomer, variant="kingulu", time_control="2+0.1", seed=1
    )
    assert (standard.start_suite, standard.start_position) == ("standard", "")


def test_a_match_from_a_suite_plays_the_same_start_with_colours_swapped(
    greedy,
    searcher,
    fast_referee,  # type: ignore[no-untyped-def]
) -> None:
    # Real bundled engines through the real referee (sandbox off for speed; the referee's
    # own tests play suites in the sandbox).
    match = services.match_create(
        engine_a=searcher,
        engine_b=greedy,
        variant="bao-la-kete",
        time_control="movetime=20",
        seed=5,
        start_suite="balanced",
    )
    start = match.start_position
    assert start and start != get_variant("bao-la-kete").initial_position().to_text()
    assert runner.execute_match(match.pk, config=fast_referee) == runner.RECORDED
    games = list(Match.objects.get(pk=match.pk).games.order_by("index"))
    assert len(games) >= 2
    assert {g.start_position for g in games} == {start}
    assert [(g.south_id, g.north_id) for g in games[:2]] == [
        (searcher.pk, greedy.pk),
        (greedy.pk, searcher.pk),
    ]
    variant = get_variant("bao-la-kete")
    for game in games:
        position = variant.parse_position(game.start_position)
        assert game.moves[0]["side"] == position.side  # whoever is to move there moves first
        for move in game.moves:
            position = variant.apply(position, move["move"])
            assert position.to_text() == move["position"]
        assert position.to_text() == game.final_position
        assert f'[StartPosition "{start}"]' in game_record_text(game)


def test_a_challenge_names_its_start_positions(
    alice_client,
    alices_engine,
    bobs_engine,  # type: ignore[no-untyped-def]
) -> None:
    r = alice_client.post(
        "/api/matches/",
        {
            "engine": "alice-greedy",
            "opponent": "bob-random",
            "variant": "kete",
            "start_suite": "balanced",
        },
        format="json",
    )
    assert r.status_code == 201, r.json()
    body = r.json()
    assert body["start_suite"] == "balanced"
    assert body["start_position"] == match_start("bao-la-kete", "balanced", body["seed"]).to_text()
    default = alice_client.post(
        "/api/matches/",
        {"engine": "alice-greedy", "opponent": "bob-random", "variant": "kete"},
        format="json",
    ).json()
    assert (default["start_suite"], default["start_position"]) == ("standard", "")


@pytest.mark.parametrize("suite", ["openings", "../balanced", "", "x" * 64])
def test_an_unknown_suite_is_refused_with_the_choices(
    alice_client,
    alices_engine,
    bobs_engine,
    suite: str,  # type: ignore[no-untyped-def]
) -> None:
    r = alice_client.post(
        "/api/matches/",
        {
            "engine": "alice-greedy",
            "opponent": "bob-random",
            "variant": "kete",
            "start_suite": suite,
        },
        format="json",
    )
    assert r.status_code == 400
    error = r.json()["error"]
    if suite == "":  # a blank field is the serializer's
        assert error["code"] == "invalid"
    else:
        assert error["code"] == "unknown_start_suite"
        assert error["details"]["known"] == ["standard", "balanced"]
    assert Match.objects.count() == 0
