"""The engine page shows which ladders each version is on, and its owner keeps an older
version on the ladder or takes it off (``POST /engines/<name>/ladder/``: the serializer and
service of ``POST /api/ladder/keep/``)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def logged_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def ladder_cell(html: str, number: int) -> str:
    """The text of the ladder column of version ``number``'s row, tags dropped."""
    row = re.search(rf'<tr id="version-{number}">(.*?)</tr>', html, re.DOTALL)
    assert row, f"no row for v{number}"
    cell = re.search(r'<td class="l ladder">(.*?)</td>', row.group(1), re.DOTALL)
    assert cell, f"no ladder cell for v{number}"
    return " ".join(re.sub(r"<[^>]+>", " ", cell.group(1)).split())


@pytest.fixture
def alpha(world: Any) -> dict[str, Any]:
    """The web world with a third version of alice's ``alpha``: v3 active (both variants),
    so v2 is an older active version and v1 a rejected one."""
    from engines.models import EngineVersion

    w = world(1)
    w["a3"] = EngineVersion.objects.create(
        engine=w["alpha"],
        number=3,
        status="active",
        original_filename="engine.py",
        sha256="3" * 64,
        size_bytes=1,
        storage_path="alpha/3",
        variants=["bao-la-kete", "bao-kingulu"],
    )
    return w


def test_each_version_shows_the_ladders_it_is_on_and_only_older_ones_get_a_keep_button(
    alpha: Any, alice: Any
) -> None:
    html = logged_in(alice).get("/engines/alpha/").content.decode()
    assert ladder_cell(html, 3) == "on the ladder: bao-la-kete, bao-kingulu"
    assert ladder_cell(html, 2) == "not on the ladder Keep v2 on the ladder"
    assert ladder_cell(html, 1) == "not on the ladder"
    assert 'id="ladder-keep-2"' in html
    assert 'id="ladder-keep-3"' not in html and 'id="ladder-keep-1"' not in html


def test_the_owner_keeps_an_older_version_on_the_ladder_and_takes_it_off(
    alpha: Any, alice: Any
) -> None:
    from ladder.models import LadderKeep
    from ladder.services import ladder_members

    client = logged_in(alice)
    response = client.post("/engines/alpha/ladder/", {"version": "2", "keep": "true"})
    assert response.status_code == 302
    assert response["Location"] == "/engines/alpha/#version-2"
    assert LadderKeep.objects.filter(engine_version=alpha["a2"]).exists()
    # The page says what the matchmaker reads.
    assert {v.number for v in ladder_members("bao-la-kete") if v.engine == alpha["alpha"]} == {2, 3}
    html = client.get("/engines/alpha/").content.decode()
    assert "v2 of alpha is kept on the ladder." in html
    assert ladder_cell(html, 2) == (
        "on the ladder: bao-la-kete, bao-kingulu kept on by its owner Take v2 off the ladder"
    )

    response = client.post("/engines/alpha/ladder/", {"version": "2", "keep": "false"}, follow=True)
    assert "v2 of alpha is no longer kept on the ladder." in response.content.decode()
    assert not LadderKeep.objects.exists()
    assert ladder_cell(response.content.decode(), 2) == "not on the ladder Keep v2 on the ladder"


def test_only_the_owner_may_keep_a_version_on_the_ladder(alpha: Any, bob: Any) -> None:
    from ladder.models import LadderKeep

    bobs = logged_in(bob)
    assert bobs.post("/engines/alpha/ladder/", {"version": "2", "keep": "true"}).status_code == 403
    html = bobs.get("/engines/alpha/").content.decode()
    assert 'class="ladder-keep"' not in html
    assert ladder_cell(html, 3) == "on the ladder: bao-la-kete, bao-kingulu"
    anonymous = Client().post("/engines/alpha/ladder/", {"version": "2", "keep": "true"})
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/accounts/login/")
    assert not LadderKeep.objects.exists()


def test_a_bad_keep_form_is_answered_with_the_api_code_and_message(alpha: Any, alice: Any) -> None:
    from ladder.models import LadderKeep

    client = logged_in(alice)
    missing = client.post("/engines/alpha/ladder/", {"version": "9", "keep": "true"})
    assert missing.status_code == 404
    assert "alpha has no version 9." in missing.content.decode()
    bad = client.post("/engines/alpha/ladder/", {"version": "2", "keep": "maybe"})
    assert bad.status_code == 400
    assert "keep: Must be a valid boolean." in bad.content.decode()
    assert not LadderKeep.objects.exists()


def test_an_engine_kept_off_the_ladder_by_its_consent_says_so(alpha: Any, alice: Any) -> None:
    client = logged_in(alice)
    client.post(
        "/engines/alpha/settings/",
        {"form": "consent", "rated_pairing": "anyone", "challenges": "all"},
    )  # ladder unticked
    html = client.get("/engines/alpha/").content.decode()
    assert (
        "No version of alpha is on a ladder: its owner keeps it out of automatic rated play."
    ) in html
    assert ladder_cell(html, 3).startswith("not on the ladder")
