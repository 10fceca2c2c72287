"""Rate limits of the API's writes: over the rate a write is 429 ``throttled`` with
``details.retry_after_seconds`` and a ``Retry-After`` header; reads are never throttled; each
scope counts on its own, per user (per client IP for registration and login); staff are exempt;
the rates come from ``BAO_THROTTLE_*`` and junk values fail at start-up."""

from __future__ import annotations

import math
from typing import Any

import pytest

from arena.env import SettingError, env_rate

pytestmark = pytest.mark.django_db


@pytest.fixture
def rates(settings: Any) -> dict[str, str | None]:
    """Small rates, so a test reaches them in a few requests."""
    settings.BAO_THROTTLE_RATES = {
        "challenges": "2/hour",
        "uploads": "2/hour",
        "tournaments": "2/hour",
        "register": "2/hour",
        "login": "3/minute",
    }
    return settings.BAO_THROTTLE_RATES


def _assert_throttled(response: Any, period_s: int) -> None:
    assert response.status_code == 429, response.json()
    error = response.json()["error"]
    assert (error["code"], error["message"]) == (
        "throttled",
        f"Request was throttled. Expected available in {period_s} seconds.",
    )
    assert error["details"] == {"retry_after_seconds": period_s}
    assert response["Retry-After"] == str(period_s)


@pytest.fixture
def frozen_clock(monkeypatch: Any) -> None:
    """The throttle's clock stands still, so the wait it states is exactly the period."""
    from arena.api.throttling import WriteRateThrottle

    monkeypatch.setattr(WriteRateThrottle, "timer", lambda self: 1_000_000.0)


def test_the_third_challenge_in_an_hour_is_throttled(
    rates: Any, frozen_clock: None, alice_client: Any
) -> None:
    body = {"engine": "nobody", "opponent": "nobody-else", "variant": "bao-la-kete"}
    # Refused challenges count too: the limit is on requests, not on matches made.
    assert [
        alice_client.post("/api/matches/", body, format="json").status_code for _ in range(2)
    ] == [404, 404]
    _assert_throttled(alice_client.post("/api/matches/", body, format="json"), 3600)
    assert alice_client.get("/api/matches/").status_code == 200  # reads are not throttled


def test_each_user_and_each_scope_counts_on_its_own(
    rates: Any, frozen_clock: None, alice_client: Any, bob_client: Any
) -> None:
    body = {"name": "x", "variant": "bao-la-kete", "engines": ["a", "b"]}
    for _ in range(2):
        assert alice_client.post("/api/tournaments/", body, format="json").status_code == 404
    _assert_throttled(alice_client.post("/api/tournaments/", body, format="json"), 3600)
    assert bob_client.post("/api/tournaments/", body, format="json").status_code == 404
    challenge = {"engine": "nobody", "opponent": "nobody-else", "variant": "bao-la-kete"}
    assert alice_client.post("/api/matches/", challenge, format="json").status_code == 404


def test_uploads_are_throttled(rates: Any, frozen_clock: None, alice_client: Any) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    def upload() -> Any:
        bad = SimpleUploadedFile("engine.txt", b"not a script\n")
        return alice_client.post(
            "/api/engines/", {"name": "alpha", "file": bad}, format="multipart"
        )

    assert [upload().status_code for _ in range(2)] == [400, 400]
    _assert_throttled(upload(), 3600)


def test_registration_is_throttled_per_client_ip(
    rates: Any, frozen_clock: None, anon_client: Any
) -> None:
    def register(name: str, ip: str) -> Any:
        return anon_client.post(
            "/api/auth/register/",
            {"username": name, "password": "mancala rocks 9"},
            format="json",
            REMOTE_ADDR=ip,
        )

    assert register("carol", "10.0.0.1").status_code == 201
    assert register("dave", "10.0.0.1").status_code == 201
    _assert_throttled(register("erin", "10.0.0.1"), 3600)
    assert register("erin", "10.0.0.2").status_code == 201


def test_a_forged_forwarded_for_header_does_not_escape_the_per_ip_limit(
    rates: Any, frozen_clock: None, anon_client: Any
) -> None:
    def register(name: str, forged: str) -> Any:
        return anon_client.post(
            "/api/auth/register/",
            {"username": name, "password": "mancala rocks 9"},
            format="json",
            REMOTE_ADDR="10.0.0.7",
            HTTP_X_FORWARDED_FOR=forged,
        )

    assert register("carol", "9.9.9.1").status_code == 201
    assert register("dave", "9.9.9.2").status_code == 201
    _assert_throttled(register("erin", "9.9.9.3"), 3600)


def test_behind_a_declared_proxy_the_forwarded_client_address_counts(
    rates: Any, frozen_clock: None, anon_client: Any, settings: Any
) -> None:
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}

    def register(name: str, client: str) -> Any:
        return anon_client.post(
            "/api/auth/register/",
            {"username": name, "password": "mancala rocks 9"},
            format="json",
            REMOTE_ADDR="10.0.0.1",
            HTTP_X_FORWARDED_FOR=client,
        )

    assert register("carol", "203.0.113.5").status_code == 201
    assert register("dave", "203.0.113.5").status_code == 201
    _assert_throttled(register("erin", "203.0.113.5"), 3600)
    assert register("erin", "203.0.113.6").status_code == 201


def test_failed_login_attempts_are_throttled_per_minute(
    rates: Any, anon_client: Any, alice: Any
) -> None:
    right = {"username": "alice", "password": "correct horse 1"}
    for _ in range(4):  # successful logins never spend the client IP's budget
        assert anon_client.post("/api/auth/token/", right, format="json").status_code == 200
    wrong = {"username": "alice", "password": "guess"}
    codes = [
        anon_client.post("/api/auth/token/", wrong, format="json").json()["error"]["code"]
        for _ in range(3)
    ]
    assert codes == ["invalid_credentials"] * 3
    # The budget (arena.accounts.login_limits) is spent: even the right password waits.
    response = anon_client.post("/api/auth/token/", right, format="json")
    assert response.status_code == 429
    error = response.json()["error"]
    assert error["code"] == "throttled"
    assert error["message"].startswith("Too many failed logins")
    assert 45 <= error["details"]["retry_after_seconds"] <= 61  # 60 s from the first failure
    assert response["Retry-After"] == str(error["details"]["retry_after_seconds"])


def test_staff_are_not_throttled(rates: Any, alice: Any, alice_client: Any) -> None:
    alice.is_staff = True
    alice.save(update_fields=["is_staff"])
    body = {"engine": "nobody", "opponent": "nobody-else", "variant": "bao-la-kete"}
    assert {
        alice_client.post("/api/matches/", body, format="json").status_code for _ in range(5)
    } == {404}


def test_a_rate_of_none_means_no_limit(settings: Any, alice_client: Any) -> None:
    settings.BAO_THROTTLE_RATES = {**settings.BAO_THROTTLE_RATES, "challenges": None}
    body = {"engine": "nobody", "opponent": "nobody-else", "variant": "bao-la-kete"}
    assert {
        alice_client.post("/api/matches/", body, format="json").status_code for _ in range(70)
    } == {404}


def test_the_default_rates_are_the_documented_ones() -> None:
    from django.conf import settings

    assert settings.BAO_THROTTLE_RATES == {
        "challenges": "60/hour",
        "uploads": "30/hour",
        "tournaments": "20/hour",
        "tests": "20/hour",
        "register": "20/hour",
        "login": "60/hour",
        "export": "120/hour",
    }


def test_the_wait_is_rounded_up_to_whole_seconds() -> None:
    from rest_framework import exceptions

    from arena.api.errors import exception_handler

    response = exception_handler(exceptions.Throttled(wait=0.4), {})
    assert response is not None
    assert (
        response.data["error"]["details"]
        == {"retry_after_seconds": math.ceil(0.4)}
        == {"retry_after_seconds": 1}
    )


@pytest.mark.parametrize(
    ("raw", "rate"),
    [
        ("60/hour", "60/hour"),
        (" 5/Minute ", "5/minute"),
        ("1/s", "1/s"),
        ("off", None),
        ("none", None),
    ],
)
def test_a_rate_setting_is_read_and_normalised(monkeypatch: Any, raw: str, rate: Any) -> None:
    monkeypatch.setenv("BAO_THROTTLE_X", raw)
    assert env_rate("BAO_THROTTLE_X", "1/day") == rate


@pytest.mark.parametrize(
    "raw", ["60", "0/hour", "-1/hour", "60/fortnight", "lots", "6 0/hour", "\uff16/hour"]
)
def test_a_junk_rate_setting_fails_loudly(monkeypatch: Any, raw: str) -> None:
    monkeypatch.setenv("BAO_THROTTLE_X", raw)
    with pytest.raises(SettingError) as caught:
        env_rate("BAO_THROTTLE_X", "1/day")
    assert str(caught.value) == (
        f"BAO_THROTTLE_X={raw!r} is not a rate: use '<count>/<second|minute|hour|day>' "
        "(e.g. '60/hour') or 'off'"
    )
