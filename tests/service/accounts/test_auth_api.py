"""Registration, tokens and /api/auth/me/."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token

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
    assert body["token"] == Token.objects.get(user=user).key
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
    response = anon_client.post(
        "/api/auth/register/", {"username": "erin", "password": "abc"}
    )
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


def test_it_hands_out_the_token_for_good_credentials(anon_client, alice):
    response = anon_client.post(
        "/api/auth/token/", {"username": "alice", "password": "correct horse 1"}
    )
    assert response.status_code == 200
    assert response.json() == {"token": alice.auth_token.key}


def test_it_creates_a_token_on_first_login_when_none_exists(anon_client, alice):
    Token.objects.filter(user=alice).delete()
    response = anon_client.post(
        "/api/auth/token/", {"username": "alice", "password": "correct horse 1"}
    )
    assert response.status_code == 200
    assert response.json()["token"] == Token.objects.get(user=alice).key


def test_it_refuses_a_wrong_password_as_invalid_credentials(anon_client, alice):
    response = anon_client.post(
        "/api/auth/token/", {"username": "alice", "password": "wrong"}
    )
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
    anon_client.credentials(
        HTTP_AUTHORIZATION="Token 0000000000000000000000000000000000000000"
    )
    response = anon_client.get("/api/auth/me/")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "authentication_failed"


def test_registration_works_even_with_a_stale_token_header(anon_client):
    anon_client.credentials(HTTP_AUTHORIZATION="Token stale")
    response = anon_client.post(
        "/api/auth/register/", {"username": "fay", "password": "mancala rocks 9"}
    )
    assert response.status_code == 201
