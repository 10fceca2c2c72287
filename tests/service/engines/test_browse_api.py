"""GET/PATCH /api/engines/...: lists, filters, detail, owner-only changes and downloads."""

from __future__ import annotations

import pytest

from engines.models import Engine, EngineVersion

from .conftest import FIRST_MOVE_ENGINE, script_upload

pytestmark = pytest.mark.django_db


def make_engine(owner, name, *, variants=None, status="active", **fields) -> Engine:  # type: ignore[no-untyped-def]
    """An engine row with one version (no files: browsing never touches them)."""
    engine = Engine.objects.create(owner=owner, name=name, **fields)
    EngineVersion.objects.create(
        engine=engine,
        number=1,
        status=status,
        original_filename=f"{name}.py",
        sha256="0" * 64,
        size_bytes=10,
        storage_path=f"{name}/v1/upload/{name}.py",
        variants=variants if variants is not None else ["bao-la-kete"],
    )
    return engine


@pytest.fixture
def world(alice, bob):  # type: ignore[no-untyped-def]
    make_engine(alice, "aardvark", variants=["bao-la-kete", "bao-kingulu"])
    make_engine(alice, "badger", variants=["bao-la-kiswahili"], is_enabled=False)
    make_engine(bob, "cheetah", variants=["bao-kingulu"], status="rejected")
    make_engine(bob, "dingo", variants=["bao-la-kete"], is_bundled=True)


def names(response) -> list[str]:  # type: ignore[no-untyped-def]
    assert response.status_code == 200, response.json()
    return [engine["name"] for engine in response.json()["results"]]


def test_anyone_can_list_engines_by_name(anon_client, world):
    response = anon_client.get("/api/engines/")
    assert names(response) == ["aardvark", "badger", "cheetah", "dingo"]
    first = response.json()["results"][0]
    assert first == {
        "name": "aardvark",
        "owner": "alice",
        "description": "",
        "is_enabled": True,
        "is_bundled": False,
        "created_at": first["created_at"],
        "latest_version": {"number": 1, "status": "active"},
        "active_version": 1,
        "variants": ["bao-la-kete", "bao-kingulu"],
    }
    assert response.json()["count"] == 4


def test_the_list_is_paginated_with_a_page_size_parameter(anon_client, world):
    page1 = anon_client.get("/api/engines/?page_size=3").json()
    assert page1["count"] == 4
    assert [e["name"] for e in page1["results"]] == ["aardvark", "badger", "cheetah"]
    assert page1["next"] == "http://testserver/api/engines/?page=2&page_size=3"
    assert page1["previous"] is None
    page2 = anon_client.get(page1["next"]).json()
    assert [e["name"] for e in page2["results"]] == ["dingo"]
    assert page2["next"] is None


def test_a_page_past_the_end_is_not_found(anon_client, world):
    response = anon_client.get("/api/engines/?page=9")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_it_filters_by_owner_enabled_and_bundled(anon_client, world):
    assert names(anon_client.get("/api/engines/?owner=bob")) == ["cheetah", "dingo"]
    assert names(anon_client.get("/api/engines/?enabled=false")) == ["badger"]
    assert names(anon_client.get("/api/engines/?bundled=true")) == ["dingo"]
    assert names(anon_client.get("/api/engines/?owner=alice&enabled=true")) == ["aardvark"]


def test_it_filters_by_variant_among_active_versions_only(anon_client, world):
    assert names(anon_client.get("/api/engines/?variant=bao-la-kete")) == [
        "aardvark",
        "dingo",
    ]
    # cheetah announces Kingulu but was rejected
    assert names(anon_client.get("/api/engines/?variant=bao-kingulu")) == ["aardvark"]


def test_it_searches_names_and_orders(anon_client, world):
    assert names(anon_client.get("/api/engines/?search=EE")) == ["cheetah"]
    assert names(anon_client.get("/api/engines/?ordering=-name")) == [
        "dingo",
        "cheetah",
        "badger",
        "aardvark",
    ]


def test_an_unknown_variant_filter_is_a_typed_error(anon_client, world):
    response = anon_client.get("/api/engines/?variant=chess")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "unknown_variant"
    assert response.json()["error"]["details"]["known"] == [
        "bao-la-kete",
        "bao-la-kiswahili",
        "bao-kingulu",
    ]


def test_a_junk_boolean_filter_is_invalid(anon_client, world):
    response = anon_client.get("/api/engines/?enabled=perhaps")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid"
    assert list(response.json()["error"]["details"]) == ["enabled"]


def test_the_detail_shows_the_versions(anon_client, world):
    body = anon_client.get("/api/engines/cheetah/").json()
    assert body["owner"] == "bob"
    assert body["active_version"] is None
    assert [(v["number"], v["status"]) for v in body["versions"]] == [(1, "rejected")]


def test_an_unknown_engine_is_not_found(anon_client):
    response = anon_client.get("/api/engines/nobody/")
    assert response.status_code == 404
    assert response.json()["error"] == {
        "code": "not_found",
        "message": "No engine named 'nobody'.",
        "details": {"engine": "nobody"},
    }
    assert anon_client.get("/api/engines/nobody/versions/1/").status_code == 404


def test_an_unknown_version_is_not_found(anon_client, world):
    response = anon_client.get("/api/engines/aardvark/versions/7/")
    assert response.status_code == 404
    assert response.json()["error"]["details"] == {"engine": "aardvark", "version": 7}


def test_the_owner_can_disable_and_describe_an_engine(alice_client, world):
    response = alice_client.patch(
        "/api/engines/aardvark/",
        {"is_enabled": False, "description": "old"},
        format="json",
    )
    assert response.status_code == 200
    assert (response.json()["is_enabled"], response.json()["description"]) == (
        False,
        "old",
    )
    engine = Engine.objects.get(name="aardvark")
    assert (engine.is_enabled, engine.description) == (False, "old")


def test_a_partial_patch_leaves_other_fields_alone(alice_client, world):
    alice_client.patch("/api/engines/badger/", {"description": "sleepy"}, format="json")
    engine = Engine.objects.get(name="badger")
    assert (engine.is_enabled, engine.description) == (False, "sleepy")


def test_another_user_cannot_patch_an_engine(bob_client, world):
    response = bob_client.patch("/api/engines/aardvark/", {"is_enabled": False}, format="json")
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "engine_not_yours"
    assert Engine.objects.get(name="aardvark").is_enabled is True


def test_anonymous_users_cannot_patch(anon_client, world):
    response = anon_client.patch("/api/engines/aardvark/", {"is_enabled": False}, format="json")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"
    assert Engine.objects.get(name="aardvark").is_enabled is True


def test_only_the_owner_downloads_a_version(alice_client, bob_client, anon_client):
    upload = script_upload(name="first move.py")
    assert (
        alice_client.post(
            "/api/engines/", {"name": "alpha", "file": upload}, format="multipart"
        ).status_code
        == 201
    )
    response = alice_client.get("/api/engines/alpha/versions/1/download/")
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == FIRST_MOVE_ENGINE
    assert response["Content-Disposition"] == 'attachment; filename="first move.py"'
    assert response["Content-Type"] == "application/octet-stream"

    refused = bob_client.get("/api/engines/alpha/versions/1/download/")
    assert (refused.status_code, refused.json()["error"]["code"]) == (
        403,
        "engine_not_yours",
    )
    anonymous = anon_client.get("/api/engines/alpha/versions/1/download/")
    assert (anonymous.status_code, anonymous.json()["error"]["code"]) == (
        401,
        "not_authenticated",
    )


def test_a_download_of_a_missing_file_is_not_found(alice_client, world):
    response = alice_client.get("/api/engines/aardvark/versions/1/download/")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_me_lists_my_engines(alice_client, world):
    assert alice_client.get("/api/auth/me/").json()["engines"] == ["aardvark", "badger"]


def test_engine_lists_use_a_fixed_number_of_queries(
    anon_client, world, django_assert_max_num_queries
):
    with django_assert_max_num_queries(4):
        assert len(names(anon_client.get("/api/engines/"))) == 4
