"""Engine names are case-insensitive wherever a name is looked up, not only on upload
(finding 9); a missing path object is ``not_found``, a missing name in a body
``engine_not_found`` (finding 14)."""

from __future__ import annotations

import json

import pytest

from engines import selectors


def error_of(response) -> tuple[int, str, dict]:  # type: ignore[no-untyped-def]
    body = json.loads(response.content)
    return response.status_code, body["error"]["code"], body["error"]["details"]


def test_the_selector_finds_an_engine_whatever_the_case(alice1):
    assert selectors.engine_by_name("ALICE1") == alice1.engine
    assert selectors.engine_by_name("Alice1") == alice1.engine
    assert selectors.engine_by_name("alice2") is None
    assert selectors.engine_get(" alice1 ".strip().upper()).name == "alice1"


def test_an_engine_page_answers_to_any_case(anon_client, alice1):
    response = anon_client.get("/api/engines/ALICE1/")
    assert response.status_code == 200
    assert response.json()["name"] == "alice1"
    version = anon_client.get("/api/engines/Alice1/versions/1/")
    assert (version.status_code, version.json()["engine"]) == (200, "alice1")


def test_the_owner_can_patch_an_engine_by_any_case(alice_client, alice1):
    response = alice_client.patch("/api/engines/ALICE1/", {"description": "loud"}, format="json")
    assert (response.status_code, response.json()["description"]) == (200, "loud")


def test_the_rating_history_answers_to_any_case(anon_client, alice1):
    response = anon_client.get("/api/engines/ALICE1/ratings/")
    assert (response.status_code, response.json()["results"]) == (200, [])


@pytest.mark.django_db
def test_a_missing_engine_in_a_path_is_not_found_on_every_engine_url(anon_client):
    for path in (
        "/api/engines/nosuch/",
        "/api/engines/nosuch/ratings/",
        "/api/engines/nosuch/versions/1/",
    ):
        assert error_of(anon_client.get(path)) == (404, "not_found", {"engine": "nosuch"}), path


def test_a_challenge_names_engines_in_any_case(alice_client, alice1, bob1):
    response = alice_client.post(
        "/api/matches/",
        {"engine": "ALICE1", "opponent": "Bob1", "variant": "kete", "time_control": "10+0.1"},
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["engine_a"]["id"], body["engine_b"]["id"]) == (alice1.pk, bob1.pk)


def test_a_challenge_of_an_engine_against_itself_in_another_case_is_same_engine(
    alice_client, alice1
):
    response = alice_client.post(
        "/api/matches/",
        {"engine": "alice1", "opponent": "ALICE1", "variant": "kete"},
        format="json",
    )
    assert error_of(response)[:2] == (400, "same_engine")


def test_a_challenge_of_an_unknown_name_is_engine_not_found(alice_client, alice1):
    response = alice_client.post(
        "/api/matches/",
        {"engine": "alice1", "opponent": "carol9", "variant": "kete"},
        format="json",
    )
    assert error_of(response) == (404, "engine_not_found", {"engine": "carol9"})


def test_a_tournament_listing_one_engine_in_two_cases_is_duplicate_engine(
    alice_client, alice1, bob1
):
    response = alice_client.post(
        "/api/tournaments/",
        {"name": "Cup", "variant": "kete", "engines": ["alice1", "ALICE1", "bob1"]},
        format="json",
    )
    assert error_of(response) == (400, "duplicate_engine", {"engines": ["alice1"]})


def test_a_tournament_names_engines_in_any_case(alice_client, alice1, bob1):
    response = alice_client.post(
        "/api/tournaments/",
        {"name": "Cup", "variant": "kete", "engines": ["ALICE1", "Bob1"]},
        format="json",
    )
    assert response.status_code == 201, response.content
    from tournaments.models import TournamentEntry

    entries = TournamentEntry.objects.order_by("seed_no")
    assert [e.engine_version_id for e in entries] == [alice1.pk, bob1.pk]


def test_the_match_engine_filter_takes_any_case(anon_client, two_matches):
    response = anon_client.get("/api/matches/?engine=BOB1")
    assert [row["id"] for row in response.json()["results"]] == [
        two_matches[1].pk,
        two_matches[0].pk,
    ]


def test_a_bundled_name_taken_by_a_user_in_another_case_is_refused(alice, tmp_path):
    from django.contrib.auth import get_user_model

    from engines.errors import EngineNotYours
    from engines.models import Engine
    from engines.services import _bundled_version

    system = get_user_model().objects.create_user("arena")
    Engine.objects.create(owner=alice, name="Random")
    script = tmp_path / "random.py"
    script.write_text("#!/usr/bin/env python3\nprint('x')\n")
    with pytest.raises(EngineNotYours) as refused:
        _bundled_version(system, "random", "", script)
    assert refused.value.details == {"engine": "Random"}
    assert list(Engine.objects.values_list("name", flat=True)) == ["Random"]
