"""Registration, tokens and /api/auth/me/."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from knox.crypto import hash_token
from knox.models import AuthToken

pytestmark = pytest.mark.django_db


def test_it_registers_a_user_and_returns_a_working_token(anon_client):
    response = anon_client.post(
        "/api/auth/register/",
        {
            "username": "carol",
            "password": "mancala rocks 9",
            "email": "carol@example.org",
        },
        format="json",
    )
    assert response.status_code == 201
    body = response.json()
    assert body["user"]["username"] == "carol"
    assert body["user"]["email"] == "carol@example.org"
    user = get_user_model().objects.get(username="carol")
    # Stored as a digest only: the key itself is nowhere in the table.
    (stored,) = AuthToken.objects.filter(user=user)
    assert stored.digest == hash_token(body["token"]) != body["token"]
    assert len(body["token"]) == 64 and stored.token_key == body["token"][:15]
    assert parse_datetime(body["expires_at"]) == stored.expiry
    assert user.check_password("mancala rocks 9")

    anon_client.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
    me = anon_client.get("/api/auth/me/")
    assert me.status_code == 200
    assert me.json()["username"] == "carol"
    assert me.json()["engines"] == []


def test_it_registers_without_an_email(anon_client):
    response = anon_client.post(
        "/api/auth/register/", {"username": "dan", "password": "mancala rocks 9"}
    )
    assert response.status_code == 201
    assert response.json()["user"]["email"] == ""


def test_it_refuses_a_taken_username_whatever_its_case(anon_client, alice):
    response = anon_client.post(
        "/api/auth/register/", {"username": "Alice", "password": "mancala rocks 9"}
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "username_taken"
    assert get_user_model().objects.count() == 1


def test_it_refuses_a_short_password_with_field_details(anon_client):
    response = anon_client.post("/api/auth/register/", {"username": "erin", "password": "abc"})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert list(error["details"]) == ["password"]
    assert "at least 8 characters" in error["details"]["password"][0]
    assert not get_user_model().objects.filter(username="erin").exists()


def test_it_refuses_a_registration_without_username_or_password(anon_client):
    response = anon_client.post("/api/auth/register/", {}, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert sorted(error["details"]) == ["password", "username"]
    assert error["details"]["username"] == ["This field is required."]


def test_it_refuses_a_username_with_spaces(anon_client):
    response = anon_client.post(
        "/api/auth/register/", {"username": "a b", "password": "mancala rocks 9"}
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid"
    assert list(response.json()["error"]["details"]) == ["username"]


def test_each_login_mints_a_new_working_token_with_a_thirty_day_lifetime(anon_client, alice):
    keys = []
    for _ in range(2):
        before = timezone.now()
        response = anon_client.post(
            "/api/auth/token/", {"username": "alice", "password": "correct horse 1"}
        )
        assert response.status_code == 200
        body = response.json()
        assert sorted(body) == ["expires_at", "token"]
        expires = parse_datetime(body["expires_at"])
        assert before + timedelta(days=30) <= expires <= timezone.now() + timedelta(days=30)
        keys.append(body["token"])
    assert len({alice.api_token, *keys}) == 3
    for key in (alice.api_token, *keys):
        anon_client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        assert anon_client.get("/api/auth/me/").json()["username"] == "alice"


def test_an_expired_token_no_longer_authenticates(anon_client, alice):
    AuthToken.objects.filter(user=alice).update(expiry=timezone.now() - timedelta(seconds=1))
    anon_client.credentials(HTTP_AUTHORIZATION=f"Token {alice.api_token}")
    response = anon_client.get("/api/auth/me/")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "authentication_failed"


def test_it_refuses_a_wrong_password_as_invalid_credentials(anon_client, alice):
    response = anon_client.post("/api/auth/token/", {"username": "alice", "password": "wrong"})
    assert response.status_code == 400
    assert response.json() == {
        "error": {
            "code": "invalid_credentials",
            "message": "Unable to log in with the given username and password.",
            "details": {},
        }
    }


def test_me_needs_authentication(anon_client):
    response = anon_client.get("/api/auth/me/")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"
    assert response["WWW-Authenticate"] == "Token"


def test_a_bad_token_is_an_authentication_failure(anon_client):
    anon_client.credentials(HTTP_AUTHORIZATION="Token 0000000000000000000000000000000000000000")
    response = anon_client.get("/api/auth/me/")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "authentication_failed"


def test_registration_works_even_with_a_stale_token_header(anon_client):
    anon_client.credentials(HTTP_AUTHORIZATION="Token stale")
    response = anon_client.post(
        "/api/auth/register/", {"username": "fay", "password": "mancala rocks 9"}
    )
    assert response.status_code == 201
