"""Failed logins are limited on every login path (issue 30, finding 2): per (username, IP) by
django-axes, per username from any address, per client IP; a successful login never counts.
Over a limit: 429 ``throttled`` in the API's envelope, a 429 page on the web and the admin."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

A, B = "203.0.113.7", "198.51.100.9"


def token(username: str, password: str, ip: str) -> Any:
    return APIClient(REMOTE_ADDR=ip).post(
        "/api/auth/token/", {"username": username, "password": password}, format="json"
    )


def test_ten_failures_from_one_place_lock_that_pair_but_not_the_owner_elsewhere(alice, bob) -> None:
    for _ in range(9):
        assert token("alice", "wrong", A).status_code == 400
    assert token("alice", "wrong", A).status_code == 429  # the 10th failure locks the pair
    locked = token("alice", "correct horse 1", A)  # the right password, from the same place
    assert locked.status_code == 429
    error = locked.json()["error"]
    assert error["code"] == "throttled"
    assert error["message"].startswith("Too many failed logins for this account")
    assert error["details"]["retry_after_seconds"] == 15 * 60
    assert locked["Retry-After"] == str(15 * 60)
    assert token("alice", "correct horse 1", B).status_code == 200  # the owner, elsewhere
    assert token("bob", "battery staple 2", A).status_code == 200  # another user, same NAT


def test_guessing_one_account_from_many_addresses_is_bounded(alice, settings) -> None:
    settings.BAO_LOGIN_FAILURES_PER_USERNAME = "5/hour"
    for i in range(5):
        assert token("alice", "wrong", f"192.0.2.{i + 1}").status_code == 400
    refused = token("alice", "wrong", "192.0.2.99")
    assert (refused.status_code, refused.json()["error"]["code"]) == (429, "throttled")
    assert 3500 < refused.json()["error"]["details"]["retry_after_seconds"] <= 3601


def test_the_per_ip_budget_counts_failures_only(alice, bob, settings) -> None:
    settings.BAO_THROTTLE_RATES = {**settings.BAO_THROTTLE_RATES, "login": "3/hour"}
    for _ in range(6):  # more successes than the budget: none counted
        assert token("alice", "correct horse 1", A).status_code == 200
    for name in ("alice", "bob", "carol"):
        assert token(name, "wrong", A).status_code == 400
    assert token("bob", "battery staple 2", A).status_code == 429  # the IP's budget is spent
    assert token("bob", "battery staple 2", B).status_code == 200


def test_the_web_login_shows_the_limit_on_its_form(alice, client) -> None:
    from django.test import Client

    web = Client(REMOTE_ADDR=A)
    for expected in [400] * 9 + [429]:
        page = web.post("/accounts/login/", {"username": "alice", "password": "wrong"})
        assert page.status_code == expected
    page = web.post("/accounts/login/", {"username": "alice", "password": "correct horse 1"})
    assert page.status_code == 429
    assert "Too many of these requests for now; try again in 15 min." in page.content.decode()
    assert "<form" in page.content.decode()  # the form again, with the message on it
    elsewhere = Client(REMOTE_ADDR=B)
    ok = elsewhere.post("/accounts/login/", {"username": "alice", "password": "correct horse 1"})
    assert ok.status_code == 302


def test_the_admin_login_is_limited_too(db) -> None:
    from django.contrib.auth import get_user_model
    from django.test import Client

    get_user_model().objects.create_superuser("root", "root@example.org", "admin password 1")
    admin = Client(REMOTE_ADDR=A)
    for expected in [200] * 9 + [429]:  # the admin's form with its own error, then locked
        page = admin.post("/admin/login/", {"username": "root", "password": "wrong"})
        assert page.status_code == expected
    page = admin.post("/admin/login/", {"username": "root", "password": "admin password 1"})
    assert page.status_code == 429
    assert "Too many failed logins" in page.content.decode()
    assert page["Retry-After"] == str(15 * 60)
    other = Client(REMOTE_ADDR=B)
    page = other.post(
        "/admin/login/?next=/admin/", {"username": "root", "password": "admin password 1"}
    )
    assert page.status_code == 302


def test_admin_failures_count_against_the_api_too(alice, settings) -> None:
    from django.test import Client

    settings.BAO_LOGIN_FAILURES_PER_USERNAME = "3/hour"
    for i in range(3):
        Client(REMOTE_ADDR=f"192.0.2.{i + 1}").post(
            "/admin/login/", {"username": "alice", "password": "wrong"}
        )
    assert token("alice", "correct horse 1", B).status_code == 429


def test_an_account_guessed_from_many_addresses_still_lets_its_owner_in_where_known(
    alice, settings
) -> None:
    # Finding of an attacker trial: 100 failures from ten addresses locked the owner out from
    # everywhere. A client that logged in as alice before holds the signed cookie a login sets
    # and is exempt from the per-username budget; everyone else is still bounded by it.
    settings.BAO_LOGIN_FAILURES_PER_USERNAME = "5/hour"
    owner = APIClient(REMOTE_ADDR=A)
    first = owner.post(
        "/api/auth/token/", {"username": "alice", "password": "correct horse 1"}, format="json"
    )
    assert first.status_code == 200 and "bao_known_login" in first.cookies
    for i in range(5):
        assert token("alice", "wrong", f"192.0.2.{i + 1}").status_code == 400
    assert token("alice", "correct horse 1", "192.0.2.99").status_code == 429  # a stranger
    owner.defaults["REMOTE_ADDR"] = B  # the owner, from a new address, with the cookie
    again = owner.post(
        "/api/auth/token/", {"username": "alice", "password": "correct horse 1"}, format="json"
    )
    assert again.status_code == 200
    # The cookie is alice's alone: a forged or other user's value gives no exemption.
    thief = APIClient(REMOTE_ADDR="192.0.2.100")
    thief.cookies["bao_known_login"] = "alice"
    assert (
        thief.post(
            "/api/auth/token/", {"username": "alice", "password": "wrong"}, format="json"
        ).status_code
        == 429
    )


def test_a_login_typed_in_fullwidth_finds_the_account(alice) -> None:
    assert token("\uff41\uff4c\uff49\uff43\uff45", "correct horse 1", A).status_code == 200


def test_spellings_of_one_name_share_its_failure_budgets(alice, settings) -> None:
    settings.BAO_LOGIN_FAILURES_PER_USERNAME = "4/hour"
    spellings = ["alice", "\uff41lice", "ALICE", "a1ice"]  # fullwidth a, case, a look-alike
    for i, name in enumerate(spellings):
        assert token(name, "wrong", f"192.0.2.{i + 1}").status_code == 400
    refused = token("alice", "wrong", "192.0.2.99")
    assert (refused.status_code, refused.json()["error"]["code"]) == (429, "throttled")


def test_spellings_of_one_name_share_its_lock_from_one_address(alice) -> None:
    for i in range(9):
        assert token("alice" if i % 2 else "\uff41lice", "wrong", A).status_code == 400
    assert token("Alice", "wrong", A).status_code == 429  # the 10th failure, a third spelling
    assert token("alice", "correct horse 1", A).status_code == 429
