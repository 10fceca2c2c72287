"""Accounts and writes in the browser: sign up, log in and out, upload, challenge, create a
tournament through the web forms, which call the API's serializers, services and rate limits;
each API error code is shown next to the field it concerns, with the API's status."""

from __future__ import annotations

import datetime as dt
import html as html_text
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

pytestmark = pytest.mark.django_db

SCRIPT = b"#!/usr/bin/env python3\nprint('id name x')\n"


@pytest.fixture
def engines_dir(settings: Any) -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="bao-web-test-engines-"))
    settings.BAO_ENGINES_DIR = root
    yield root
    shutil.rmtree(root, ignore_errors=True)


def field_errors(html: str, name: str) -> list[str]:
    """The messages shown next to the input ``name`` (its ``f-<name>-errors`` list, which
    the input names in ``aria-describedby``)."""
    found = re.search(rf'<ul class="errors" id="f-{name}-errors">(.*?)</ul>', html, re.S)
    if found is None:
        return []
    assert re.search(
        rf'id="f-{name}"[^>]*aria-describedby="[^"]*f-{name}-errors"[^>]*'
        r'aria-invalid="true"',
        html,
    ), f"{name}'s input does not point at them"
    return [html_text.unescape(m) for m in re.findall(r"<li>(.*?)</li>", found.group(1))]


def logged_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


# --- accounts ---------------------------------------------------------------------------------


def test_signing_up_creates_the_account_and_logs_in(db: Any) -> None:
    client = Client()
    response = client.post(
        "/accounts/signup/",
        {"username": "carol", "password": "a long passphrase 9", "email": "", "next": "/engines/"},
    )
    assert response.status_code == 302 and response["Location"] == "/engines/"
    assert 'id="my-engines">carol</a>' in client.get("/").content.decode()


def test_sign_up_errors_sit_next_to_their_fields(alice: Any) -> None:
    response = Client().post("/accounts/signup/", {"username": "ALICE", "password": "x"})
    assert response.status_code == 400
    html = response.content.decode()
    assert field_errors(html, "username") == ["This username is already taken."]
    response = Client().post("/accounts/signup/", {"username": "dave", "password": "password"})
    assert response.status_code == 400
    assert field_errors(response.content.decode(), "password") == ["This password is too common."]
    html = Client().post("/accounts/signup/", {"username": "", "password": ""}).content.decode()
    assert field_errors(html, "username") == ["This field may not be blank."]
    assert 'role="alert"' in html and "Please correct the fields marked below." in html


def test_logging_in_and_out(alice: Any) -> None:
    client = Client()
    wrong = client.post("/accounts/login/", {"username": "alice", "password": "nope"})
    assert wrong.status_code == 400
    assert "Unable to log in with the given username and password." in wrong.content.decode()
    assert 'value="alice"' in wrong.content.decode() and 'value="nope"' not in (
        wrong.content.decode()
    )  # the name is kept, the password never sent back
    response = client.post(
        "/accounts/login/?next=/matches/", {"username": "alice", "password": "correct horse 1"}
    )
    assert response["Location"] == "/matches/"
    assert client.get("/accounts/logout/").status_code == 405  # a link cannot log out
    client.post("/accounts/logout/")
    assert 'id="login-link"' in client.get("/").content.decode()


def test_log_in_never_redirects_off_the_site(alice: Any) -> None:
    response = Client().post(
        "/accounts/login/",
        {"username": "alice", "password": "correct horse 1", "next": "https://evil.example/"},
    )
    assert response["Location"] == "/"


def test_web_and_api_logins_share_one_rate_limit(alice: Any, settings: Any) -> None:
    settings.BAO_THROTTLE_RATES = {**settings.BAO_THROTTLE_RATES, "login": "2/hour"}
    api = Client()
    for _ in range(2):
        api.post("/api/auth/token/", {"username": "alice", "password": "x"})
    response = Client().post(
        "/accounts/login/", {"username": "alice", "password": "correct horse 1"}
    )
    assert response.status_code == 429
    assert re.search(
        r"Too many of these requests for now; try again in \d+ min\.", response.content.decode()
    )


# --- upload -----------------------------------------------------------------------------------


def test_uploading_needs_a_login(db: Any) -> None:
    response = Client().get("/engines/upload/")
    assert response["Location"] == "/accounts/login/?next=/engines/upload/"


def test_an_upload_through_the_form_is_a_new_version(alice: Any, engines_dir: Path) -> None:
    from engines.models import EngineVersion

    client = logged_in(alice)
    response = client.post(
        "/engines/upload/",
        {"name": "gamma", "description": "mine", "file": SimpleUploadedFile("e.py", SCRIPT)},
    )
    assert response["Location"] == "/engines/gamma/#version-1"
    version = EngineVersion.objects.get(engine__name="gamma")
    assert (version.number, version.status, version.engine.owner) == (1, "pending", alice)
    html = client.get("/engines/gamma/").content.decode()
    assert "Uploaded gamma v1" in html and 'id="validation-note"' in html
    assert '<script src="/static/web/engine.js" defer></script>' in html
    again = client.post(
        "/engines/upload/", {"name": "gamma", "file": SimpleUploadedFile("e.py", SCRIPT)}
    )
    assert again.status_code == 409
    assert field_errors(again.content.decode(), "file") == [
        f"The upload is identical to gamma v1 (sha256 {version.sha256})."
    ]


@pytest.mark.parametrize(
    ("post", "status", "field", "message"),
    [
        ({"name": "gamma"}, 400, "file", "No file was submitted."),
        ({"name": "bad name!", "file": SCRIPT}, 400, "name", 'Enter a valid "slug"'),
        ({"name": "gamma", "file": b"just text\n"}, 400, "file", "A single-file engine must be"),
        (
            {"name": "BETA", "file": SCRIPT},
            403,
            "name",
            "An engine with this name belongs to another user.",
        ),
    ],
)
def test_upload_errors_sit_next_to_their_fields(
    alice: Any,
    bob: Any,
    engines_dir: Path,
    post: dict[str, Any],
    status: int,
    field: str,
    message: str,
) -> None:
    from engines.models import Engine

    Engine.objects.create(owner=bob, name="beta")
    if "file" in post:
        post = {**post, "file": SimpleUploadedFile("e.py", post["file"])}
    response = logged_in(alice).post("/engines/upload/", post)
    assert response.status_code == status
    errors = field_errors(response.content.decode(), field)
    assert len(errors) == 1 and errors[0].startswith(message), errors
    assert list(engines_dir.rglob("*.py")) == []  # a refused upload stores nothing


def test_an_upload_over_the_size_limit_is_413_next_to_the_file(
    alice: Any, engines_dir: Path, settings: Any
) -> None:
    settings.BAO_ENGINE_MAX_BYTES = 1024
    response = logged_in(alice).post(
        "/engines/upload/",
        {"name": "gamma", "file": SimpleUploadedFile("e.py", SCRIPT + b"#" * 2000)},
    )
    assert response.status_code == 413
    assert field_errors(response.content.decode(), "file") == [
        "The upload is larger than 1024 bytes."
    ]


def test_an_upload_form_refuses_a_zip_of_too_many_members_and_a_deep_manifest(
    alice: Any, engines_dir: Path
) -> None:
    import io
    import zipfile

    def zipped(members: dict[str, bytes]) -> SimpleUploadedFile:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as zf:
            for name, data in members.items():
                zf.writestr(name, data)
        return SimpleUploadedFile("e.zip", buffer.getvalue(), content_type="application/zip")

    manifest = b'{"name": "gamma", "command": ["python3", "main.py"]}'
    many = zipped({"bao-engine.json": manifest, **{f"d/{i}": b"" for i in range(10_001)}})
    response = logged_in(alice).post("/engines/upload/", {"name": "gamma", "file": many})
    assert response.status_code == 413
    assert field_errors(response.content.decode(), "file") == ["10002 archive members, over 10000"]
    deep = zipped({"bao-engine.json": b"[" * 60_000, "main.py": SCRIPT})
    response = logged_in(alice).post("/engines/upload/", {"name": "gamma", "file": deep})
    assert response.status_code == 400
    assert field_errors(response.content.decode(), "file") == [
        "bao-engine.json nests arrays and objects 60000 deep, over 32"
    ]


def test_web_and_api_uploads_share_one_rate_limit(
    alice: Any, settings: Any, engines_dir: Path
) -> None:
    settings.BAO_THROTTLE_RATES = {**settings.BAO_THROTTLE_RATES, "uploads": "1/hour"}
    client = logged_in(alice)
    client.post("/api/engines/", {"name": "gamma"})  # refused, but counted, as in the API
    response = client.post(
        "/engines/upload/", {"name": "gamma", "file": SimpleUploadedFile("e.py", SCRIPT)}
    )
    assert response.status_code == 429 and "Too many of these requests" in (
        response.content.decode()
    )


# --- challenge, tournament --------------------------------------------------------------------


def test_a_challenge_through_the_form_creates_the_match(world: Any, alice: Any) -> None:
    from arena.matches.models import Match

    world(0)
    client = logged_in(alice)
    form = client.get("/matches/new/?opponent=beta").content.decode()
    assert '<option value="alpha">alpha</option>' in form and 'value="beta"' in form
    response = client.post(
        "/matches/new/",
        {
            "engine": "alpha",
            "opponent": "beta",
            "variant": "bao-kingulu",
            "time_control": "5+0.1",
            "start_suite": "standard",
        },
    )  # the rated box left unticked
    match = Match.objects.get(challenger=alice)
    assert response["Location"] == f"/matches/{match.pk}/"
    assert (match.variant, match.time_control, match.rated) == ("bao-kingulu", "5+0.1", False)


@pytest.mark.parametrize(
    ("change", "status", "field", "message"),
    [
        ({"opponent": "nobody"}, 404, "opponent", "no engine named 'nobody'."),
        ({"engine": "beta", "opponent": "alpha"}, 403, "engine", "'beta' belongs to another user"),
        ({"time_control": "ten"}, 400, "time_control", ""),
        ({"variant": "bao-la-kiswahili"}, 400, "engine", "alpha v2 does not play"),
        ({"start_suite": "nope"}, 400, "start_suite", "unknown start positions 'nope'"),
    ],
)
def test_challenge_errors_sit_next_to_their_fields(
    world: Any, alice: Any, change: dict[str, str], status: int, field: str, message: str
) -> None:
    world(0)
    post = {
        "engine": "alpha",
        "opponent": "beta",
        "variant": "bao-la-kete",
        "time_control": "10+0.1",
        "start_suite": "standard",
        "rated": "on",
        **change,
    }
    response = logged_in(alice).post("/matches/new/", post)
    assert response.status_code == status
    errors = field_errors(response.content.decode(), field)
    assert len(errors) == 1 and errors[0].startswith(message), errors


def test_a_tournament_through_the_form(world: Any, alice: Any) -> None:
    from tournaments.models import Tournament

    world(0)
    start = (dt.datetime.now(dt.UTC) + dt.timedelta(days=10)).replace(second=0, microsecond=0)
    response = logged_in(alice).post(
        "/tournaments/new/",
        {
            "name": "Kete open",
            "variant": "bao-la-kete",
            "format": "gauntlet",
            "engines": "alpha, beta",
            "time_control": "10+0.1",
            "start_suite": "balanced",
            "start_at": start.strftime("%Y-%m-%dT%H:%M"),
            "rated": "on",
        },
    )  # read as UTC
    t = Tournament.objects.get(name="Kete open")
    assert response["Location"] == f"/tournaments/{t.pk}/"
    # Asked rated, but alice chose bob's engine as the opponent: casual, and the page says why.
    assert (t.format, t.rated, t.start_suite, t.start_at) == ("gauntlet", False, "balanced", start)
    page = logged_in(alice).get(response["Location"]).content.decode()
    assert "rated games between two users&#x27; engines come only from pairings" in page
    assert [e.engine_version.engine.name for e in t.entries.order_by("seed_no")] == [
        "alpha",
        "beta",
    ]


@pytest.mark.parametrize(
    ("change", "status", "field", "message"),
    [
        ({"engines": "alpha"}, 400, "engines", "a tournament needs at least 2 engines"),
        ({"engines": "alpha alpha"}, 400, "engines", "listed more than once: alpha"),
        ({"engines": "alpha ghost"}, 404, "engines", "no engine named 'ghost'"),
        ({"start_at": "tomorrow"}, 400, "start_at", "Datetime has wrong format."),
        ({"start_at": "2099-01-01T00:00"}, 400, "start_at", "start_at may be at most 90 days"),
        ({"format": "swiss", "rounds": "5"}, 400, "rounds", "a Swiss of 2 engines has 1 to 1"),
        ({"rounds": "2"}, 400, "rounds", "a round_robin has no choice of rounds"),
        ({"name": ""}, 400, "name", "This field may not be blank."),
    ],
)
def test_tournament_errors_sit_next_to_their_fields(
    world: Any, alice: Any, bob: Any, change: dict[str, str], status: int, field: str, message: str
) -> None:
    from engines.models import Engine, EngineVersion

    world(0)
    gamma = Engine.objects.create(owner=bob, name="gamma")  # a second engine of bob's
    EngineVersion.objects.create(
        engine=gamma,
        number=1,
        status="active",
        sha256="1" * 64,
        original_filename="g",
        size_bytes=1,
        storage_path="g/1",
        variants=["bao-la-kete"],
    )
    post = {
        "name": "Cup",
        "variant": "bao-la-kete",
        "format": "round_robin",
        "engines": "alpha beta",
        "time_control": "10+0.1",
        "start_suite": "standard",
        "start_at": "",
        "rated": "on",
        **change,
    }
    response = logged_in(alice).post("/tournaments/new/", post)
    assert response.status_code == status
    errors = field_errors(response.content.decode(), field)
    assert len(errors) == 1 and errors[0].startswith(message), errors
