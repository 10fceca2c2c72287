"""The owner's consent (engines.consent): who may pair an engine, and which games are rated
(``rated_decision``: same-owner games and users' pairings of two users' engines are casual).

Through the API where a user can ask (challenges, tournaments, the PATCH that sets consent);
through ``pairing_refusal`` for the kinds later features ask (ladder, version tests).
"""

from __future__ import annotations

from typing import Any

import pytest

from arena.matches.models import Match
from engines.consent import (
    CASUAL_SAME_OWNER,
    CASUAL_USER_PAIRING,
    Chooser,
    PairingKind,
    pair_casual_note,
    pairing_refusal,
    rated_between,
    rated_decision,
)
from engines.models import Engine, EngineVersion
from tournaments.models import Tournament
from tournaments.services import tournament_start

pytestmark = pytest.mark.django_db

VARIANTS = ["bao-la-kete", "bao-la-kiswahili", "bao-kingulu"]


def make_engine(owner: Any, name: str, *, bundled: bool = False) -> Engine:
    engine = Engine.objects.create(owner=owner, name=name, is_bundled=bundled)
    EngineVersion.objects.create(
        engine=engine,
        number=1,
        status="active",
        original_filename=name,
        sha256="0" * 64,
        size_bytes=1,
        storage_path=f"{name}/1",
        variants=VARIANTS,
    )
    return engine


@pytest.fixture
def world(alice: Any, bob: Any) -> dict[str, Engine]:
    """alice owns a1 and a2, bob owns b1."""
    return {
        name: make_engine(owner, name)
        for owner, name in ((alice, "a1"), (alice, "a2"), (bob, "b1"))
    }


def challenge(client: Any, engine: str, opponent: str, rated: bool = True) -> Any:
    return client.post(
        "/api/matches/",
        {
            "engine": engine,
            "opponent": opponent,
            "variant": "kete",
            "time_control": "5+0",
            "rated": rated,
        },
        format="json",
    )


def rated_gauntlet_a1_b1_a2(client: Any) -> Any:
    response = client.post(
        "/api/tournaments/",
        {
            "name": "Cup",
            "variant": "kete",
            "engines": ["a1", "b1", "a2"],
            "time_control": "5+0",
            "format": "gauntlet",
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    return response


def set_consent(client: Any, name: str, **consent: Any) -> Any:
    return client.patch(f"/api/engines/{name}/", {"consent": consent}, format="json")


def test_the_defaults_allow_everything_as_before_but_people(
    world: dict[str, Engine], anon_client
) -> None:
    body = anon_client.get("/api/engines/b1/").json()
    assert body["consent"] == {
        "rated_pairing": "anyone",
        "challenges": "all",
        "ladder": True,
        "version_tests": True,
        "people": False,
    }
    refused = pairing_refusal(
        world["b1"], kind=PairingKind.PEOPLE, rated=False, requester=world["a1"].owner
    )
    assert refused is not None and refused.details["setting"] == "people"
    for kind in set(PairingKind) - {PairingKind.PEOPLE}:
        assert (
            pairing_refusal(world["b1"], kind=kind, rated=True, requester=world["a1"].owner) is None
        )


def test_the_owner_sets_consent_and_only_the_owner(world, alice_client, bob_client) -> None:
    response = set_consent(bob_client, "b1", challenges="unrated", ladder=False)
    assert response.status_code == 200
    assert response.json()["consent"] == {
        "rated_pairing": "anyone",
        "challenges": "unrated",
        "ladder": False,
        "version_tests": True,
        "people": False,
    }
    refused = set_consent(alice_client, "b1", challenges="all")
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "engine_not_yours"
    assert set_consent(alice_client, "nosuch", challenges="all").status_code == 404
    bad = set_consent(bob_client, "b1", challenges="sometimes")
    assert (bad.status_code, list(bad.json()["error"]["details"])) == (400, ["consent"])
    world["b1"].refresh_from_db()
    assert (world["b1"].consent_challenges, world["b1"].consent_ladder) == ("unrated", False)


@pytest.mark.parametrize(
    ("setting", "rated", "allowed"),
    [
        ("all", True, True),
        ("unrated", False, True),
        # Asked rated, but a challenge of another user's engine is played casual: consent is
        # asked for the games as they will be played.
        ("unrated", True, True),
        ("none", False, False),
        ("none", True, False),
    ],
)
def test_challenges_follow_the_opponents_consent(
    world, alice_client, bob_client, setting: str, rated: bool, allowed: bool
) -> None:
    set_consent(bob_client, "b1", challenges=setting)
    response = challenge(alice_client, "a1", "b1", rated)
    if allowed:
        assert response.status_code == 201, response.json()
        body = response.json()
        assert (body["rated"], body["rated_note"]) == (
            False,
            CASUAL_USER_PAIRING if rated else None,
        )
        return
    assert response.status_code == 403
    error = response.json()["error"]
    assert error["code"] == "pairing_refused"
    assert error["details"] == {
        "engine": "b1",
        "kind": "challenge",
        "setting": "challenges",
        "value": setting,
    }
    assert Match.objects.count() == 0


def test_own_events_only_refuses_the_arenas_rated_pairings_but_not_casual_ones(
    world, alice, alice_client, bob_client
) -> None:
    set_consent(bob_client, "b1", rated_pairing="own_events")
    # A user's challenge or event of two users' engines is casual anyway: nothing to refuse.
    assert challenge(alice_client, "a1", "b1").json()["rated"] is False
    body = {"name": "Cup", "variant": "kete", "engines": ["a1", "b1"], "time_control": "5+0"}
    assert alice_client.post("/api/tournaments/", body, format="json").status_code == 201
    # A staff event is the arena's pairing, rated: that is what the setting refuses.
    alice.is_staff = True
    alice.save(update_fields=["is_staff"])
    tournament = alice_client.post("/api/tournaments/", body, format="json")
    assert tournament.status_code == 403
    assert tournament.json()["error"]["code"] == "pairing_refused"
    assert tournament.json()["error"]["details"]["kind"] == "tournament"
    unrated = alice_client.post("/api/tournaments/", body | {"rated": False}, format="json")
    assert unrated.status_code == 201


def test_a_tournament_skips_an_engine_whose_owner_withdrew_consent_before_it_started(
    world, alice, alice_client, bob_client, django_capture_on_commit_callbacks
) -> None:
    alice.is_staff = True  # a rated event between users' engines is staff's to create
    alice.save(update_fields=["is_staff"])
    response = rated_gauntlet_a1_b1_a2(alice_client)
    set_consent(bob_client, "b1", rated_pairing="own_events")
    with django_capture_on_commit_callbacks(execute=False):
        assert tournament_start(response.json()["id"])
    matches = Match.objects.filter(tournament=Tournament.objects.get())
    assert [{m.engine_a.engine.name, m.engine_b.engine.name} for m in matches] == [{"a1", "a2"}]


def test_ladder_and_version_tests_ask_the_same_function(world, alice) -> None:
    b1 = world["b1"]
    b1.consent_ladder = False
    b1.consent_version_tests = False
    refusal = pairing_refusal(b1, kind=PairingKind.LADDER, rated=True, requester=None)
    assert refusal is not None and refusal.details["setting"] == "ladder"
    assert refusal.status_code == 403
    refusal = pairing_refusal(b1, kind=PairingKind.VERSION_TEST, rated=False, requester=alice)
    assert refusal is not None and refusal.details["setting"] == "version_tests"
    assert (
        pairing_refusal(b1, kind=PairingKind.VERSION_TEST, rated=False, requester=b1.owner) is None
    )
    # The ladder is nobody's own event: the owner's say-so there is the ladder setting alone.
    b1.consent_ladder = True
    b1.consent_rated = "own_events"
    refusal = pairing_refusal(b1, kind=PairingKind.LADDER, rated=True, requester=b1.owner)
    assert refusal is not None and refusal.details["setting"] == "rated_pairing"


def test_games_between_two_engines_of_one_owner_are_never_rated(
    world, alice_client, bob_client
) -> None:
    own = challenge(alice_client, "a1", "a2", rated=True)
    assert own.status_code == 201
    assert (own.json()["rated"], own.json()["rated_note"]) == (False, CASUAL_SAME_OWNER)
    response = bob_client.post(
        "/api/tournaments/",
        {
            "name": "Cup",
            "variant": "kete",
            "engines": ["b1", "a1", "a2"],
            "time_control": "5+0",
            "rated": False,
        },
        format="json",
    )
    assert response.status_code == 201


def test_the_same_owner_rule_spares_only_the_bundled_engines(alice) -> None:
    from django.contrib.auth import get_user_model

    system = get_user_model().objects.create_user("arena-system")
    one, two = make_engine(system, "r1", bundled=True), make_engine(system, "r2", bundled=True)
    mine, also_mine = make_engine(alice, "m1"), make_engine(alice, "m2")
    assert rated_between(one, two) is True
    assert rated_between(mine, also_mine) is False
    assert rated_between(mine, one) is True


def test_a_same_owner_pairing_in_a_rated_tournament_is_played_unrated(
    world, alice, alice_client, django_capture_on_commit_callbacks
) -> None:
    alice.is_staff = True
    alice.save(update_fields=["is_staff"])
    response = rated_gauntlet_a1_b1_a2(alice_client)
    with django_capture_on_commit_callbacks(execute=False):
        tournament_start(response.json()["id"])
    rated = {
        frozenset((m.engine_a.engine.name, m.engine_b.engine.name)): m.rated
        for m in Match.objects.all()
    }
    assert rated == {frozenset(("a1", "b1")): True, frozenset(("a1", "a2")): False}


def test_a_challenge_of_a_bundled_engine_is_rated_and_of_a_users_engine_casual(
    world, alice_client
) -> None:
    from django.contrib.auth import get_user_model

    system = get_user_model().objects.create_user("arena-system")
    make_engine(system, "greedy", bundled=True)
    bundled = challenge(alice_client, "a1", "greedy").json()
    assert (bundled["rated"], bundled["rated_note"]) == (True, None)
    foreign = challenge(alice_client, "a1", "b1").json()
    assert (foreign["rated"], foreign["rated_note"]) == (False, CASUAL_USER_PAIRING)
    # The note is kept: the match's page and its API answer say why later too.
    again = alice_client.get(f"/api/matches/{foreign['id']}/").json()
    assert (again["rated"], again["rated_note"]) == (False, CASUAL_USER_PAIRING)
    assert Match.objects.get(pk=foreign["id"]).rated is False


def test_who_chose_the_pairing_decides_whether_two_users_engines_play_rated(alice) -> None:
    from django.contrib.auth import get_user_model

    system = get_user_model().objects.create_user("arena-system")
    bob = get_user_model().objects.create_user("bob2")
    bundled = make_engine(system, "r1", bundled=True)
    mine, theirs = make_engine(alice, "m1"), make_engine(bob, "t1")
    assert pair_casual_note(mine, theirs, Chooser.ARENA) is None
    assert pair_casual_note(mine, theirs, Chooser.USER) == CASUAL_USER_PAIRING
    assert pair_casual_note(mine, bundled, Chooser.USER) is None
    assert rated_decision([(mine, bundled), (mine, theirs)], asked=True, chooser=Chooser.USER) == (
        rated_decision([(mine, theirs)], asked=True, chooser=Chooser.USER)
    )
    decision = rated_decision([(mine, bundled), (mine, theirs)], asked=True, chooser=Chooser.USER)
    assert (decision.rated, decision.note) == (False, CASUAL_USER_PAIRING)
    asked_casual = rated_decision([(mine, theirs)], asked=False, chooser=Chooser.ARENA)
    assert (asked_casual.rated, asked_casual.note) == (False, None)
