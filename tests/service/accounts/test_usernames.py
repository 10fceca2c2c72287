"""Usernames are stored NFKC-normalised and refused when they look like an existing one
(issue 30, finding 8): ``username_confusable`` with the existing name in the details."""

from __future__ import annotations

import pytest

from arena.accounts.usernames import skeleton

pytestmark = pytest.mark.django_db

CYRILLIC_A = "\u0430"


def register(client, username: str):  # type: ignore[no-untyped-def]
    return client.post(
        "/api/auth/register/",
        {"username": username, "password": "a long enough passphrase"},
        format="json",
    )


@pytest.mark.parametrize("name", [f"{CYRILLIC_A}lice", "a1ice", "aIice", "ALICE"])
def test_a_name_that_looks_like_an_existing_one_is_refused(anon_client, alice, name) -> None:
    response = register(anon_client, name)
    assert response.status_code == 400
    error = response.json()["error"]
    if name == "ALICE":
        assert error["code"] == "username_taken"
        return
    assert error["code"] == "username_confusable"
    assert error["details"] == {"username": name, "similar_to": "alice"}


def test_a_fullwidth_name_is_stored_in_its_nfkc_form(anon_client) -> None:
    response = register(anon_client, "\uff42\uff4f\uff42\uff59")  # fullwidth "boby"
    assert response.status_code == 201, response.json()
    assert response.json()["user"]["username"] == "boby"


def test_distinct_names_pass_and_skeletons_fold_only_look_alikes(anon_client, alice) -> None:
    assert register(anon_client, "alicia").status_code == 201
    assert skeleton(f"d{CYRILLIC_A}ve") == skeleton("dave") == "dave"
    assert skeleton("b0b") == "bob" and skeleton("carol") == "carol"
    assert skeleton("x" * 150) == "x" * 150  # linear: no enumeration of readings
