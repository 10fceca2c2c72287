"""Listing and revoking one's API tokens, changing one's password, and old tokens migrated."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import connection
from django.utils import timezone
from knox.crypto import hash_token
from knox.models import AuthToken

from arena.accounts.services import MAX_TOKENS_PER_USER, token_mint

pytestmark = pytest.mark.django_db


def login(client, username="alice", password="correct horse 1"):  # type: ignore[no-untyped-def]
    response = client.post("/api/auth/token/", {"username": username, "password": password})
    assert response.status_code == 200, response.json()
    return response.json()["token"]


def test_the_owner_lists_live_tokens_by_prefix_never_by_key(alice_client, alice, anon_client):
    second = login(anon_client)
    response = alice_client.get("/api/auth/tokens/")
    assert response.status_code == 200
    rows = response.json()
    assert [row["prefix"] for row in rows] == [second[:15], alice.api_token[:15]]
    assert [row["current"] for row in rows] == [False, True]
    assert all(sorted(row) == ["created_at", "current", "expires_at", "prefix"] for row in rows)
    assert second not in response.content.decode()


def test_revoking_a_token_stops_it_at_once_and_leaves_the_others(alice_client, alice, anon_client):
    second = login(anon_client)
    response = alice_client.delete(f"/api/auth/tokens/{second[:15]}/")
    assert response.status_code == 204
    anon_client.credentials(HTTP_AUTHORIZATION=f"Token {second}")
    assert anon_client.get("/api/auth/me/").status_code == 401
    assert alice_client.get("/api/auth/me/").status_code == 200


def test_revoking_another_users_token_is_not_found_and_revokes_nothing(
    alice_client, bob, bob_client
):
    response = alice_client.delete(f"/api/auth/tokens/{bob.api_token[:15]}/")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert bob_client.get("/api/auth/me/").status_code == 200
    assert alice_client.delete("/api/auth/tokens/nosuchprefix000/").status_code == 404


def test_tokens_need_authentication(anon_client, alice):
    assert anon_client.get("/api/auth/tokens/").status_code == 401
    response = anon_client.delete(f"/api/auth/tokens/{alice.api_token[:15]}/")
    assert response.status_code == 401
    assert AuthToken.objects.filter(user=alice).count() == 1


def test_a_user_keeps_at_most_the_newest_tokens(alice):
    keys = [token_mint(user=alice)[0] for _ in range(MAX_TOKENS_PER_USER)]
    live = set(AuthToken.objects.filter(user=alice).values_list("digest", flat=True))
    assert live == {hash_token(k) for k in keys}  # the fixture's first token went


def test_a_password_change_revokes_every_token_and_returns_a_new_one(
    alice_client, alice, anon_client
):
    other = login(anon_client)
    response = alice_client.post(
        "/api/auth/password/",
        {"old_password": "correct horse 1", "new_password": "brand new secret 3"},
    )
    assert response.status_code == 200
    new = response.json()["token"]
    for old in (alice.api_token, other):
        anon_client.credentials(HTTP_AUTHORIZATION=f"Token {old}")
        assert anon_client.get("/api/auth/me/").status_code == 401
    anon_client.credentials(HTTP_AUTHORIZATION=f"Token {new}")
    assert anon_client.get("/api/auth/me/").status_code == 200
    anon_client.credentials()
    assert login(anon_client, password="brand new secret 3")
    bad = anon_client.post("/api/auth/token/", {"username": "alice", "password": "correct horse 1"})
    assert bad.json()["error"]["code"] == "invalid_credentials"


def test_a_password_change_refuses_a_wrong_old_password_and_a_weak_new_one(alice_client, alice):
    wrong = alice_client.post(
        "/api/auth/password/", {"old_password": "nope", "new_password": "brand new secret 3"}
    )
    assert wrong.status_code == 400
    assert wrong.json()["error"]["code"] == "invalid_credentials"
    weak = alice_client.post(
        "/api/auth/password/", {"old_password": "correct horse 1", "new_password": "abc"}
    )
    assert weak.status_code == 400
    assert weak.json()["error"]["code"] == "invalid"
    assert list(weak.json()["error"]["details"]) == ["new_password"]
    alice.refresh_from_db()
    assert alice.check_password("correct horse 1")
    assert alice_client.get("/api/auth/me/").status_code == 200


@pytest.mark.django_db(transaction=True)
def test_the_migration_turns_clear_keys_into_digests_that_still_authenticate(alice, anon_client):
    # The table rest_framework.authtoken left behind, as an upgraded database holds it.
    old_key = "0123456789abcdef0123456789abcdef01234567"
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TABLE authtoken_token (key varchar(40) PRIMARY KEY, "
            "created timestamp with time zone NOT NULL, user_id integer NOT NULL)"
            if connection.vendor == "postgresql"
            else "CREATE TABLE authtoken_token (key varchar(40) PRIMARY KEY, "
            "created datetime NOT NULL, user_id integer NOT NULL)"
        )
        cursor.execute(
            "INSERT INTO authtoken_token (key, created, user_id) VALUES (%s, %s, %s)",
            [old_key, timezone.now(), alice.pk],
        )
    call_command("migrate", "accounts", "zero", verbosity=0)
    call_command("migrate", "accounts", verbosity=0)
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM authtoken_token")
        assert cursor.fetchone() == (0,)
        cursor.execute("DROP TABLE authtoken_token")
    migrated = AuthToken.objects.get(digest=hash_token(old_key))
    assert migrated.expiry is not None and migrated.expiry > timezone.now()
    anon_client.credentials(HTTP_AUTHORIZATION=f"Token {old_key}")
    assert anon_client.get("/api/auth/me/").json()["username"] == "alice"
