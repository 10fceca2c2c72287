"""A body field the endpoint does not take is 400 ``unknown_field``, never dropped
(``arena.api.serializers.BodySerializer``), and the schema says so (closed request bodies)."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

pytestmark = pytest.mark.django_db

WRITES = ("post", "put", "patch")


def _refusal(response):  # type: ignore[no-untyped-def]
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "unknown_field"
    return error


def test_a_misspelt_json_field_of_a_challenge_is_refused_and_no_match_is_made(
    alice_client, alice1, bob1
):
    from arena.matches.models import Match

    response = alice_client.post(
        "/api/matches/",
        {
            "engine": "alice1",
            "opponent": "bob1",
            "variant": "bao-la-kete",
            "time_controll": "10+0.1",
        },
        format="json",
    )
    error = _refusal(response)
    assert error["details"]["fields"] == ["time_controll"]
    assert "time_control" in error["details"]["known"]
    assert "'time_controll'" in error["message"]
    assert not Match.objects.exists()


def test_a_misspelt_key_inside_a_nested_object_is_named_with_its_path(alice_client, alice1):
    from engines.models import Engine

    response = alice_client.patch(
        "/api/engines/alice1/", {"consent": {"laddr": False}, "descripton": "x"}, format="json"
    )
    error = _refusal(response)
    assert error["details"]["fields"] == ["consent.laddr", "descripton"]
    assert "consent.ladder" in error["details"]["known"]
    assert Engine.objects.get(name="alice1").consent_ladder is True


def test_a_misspelt_form_field_of_a_multipart_upload_is_refused_before_anything_is_stored(
    alice_client, settings, tmp_path
):
    from engines.models import Engine

    settings.BAO_ENGINES_DIR = tmp_path
    upload = SimpleUploadedFile("engine.py", b"#!/usr/bin/env python3\n", "text/x-python")
    response = alice_client.post(
        "/api/engines/",
        {"name": "gamma", "file": upload, "descripton": "typo"},
        format="multipart",
    )
    error = _refusal(response)
    assert error["details"]["fields"] == ["descripton"]
    assert error["details"]["known"] == ["description", "file", "name"]
    assert not Engine.objects.filter(name="gamma").exists()
    assert not any(tmp_path.iterdir())


def test_an_endpoint_without_fields_refuses_any_field(alice_client):
    response = alice_client.post("/api/tests/1/stop/", {"reason": "done"}, format="json")
    error = _refusal(response)
    assert error["details"] == {"fields": ["reason"], "known": []}


def test_a_browser_forms_csrf_token_is_not_an_unknown_field(anon_client, alice):
    response = anon_client.post(
        "/api/auth/token/",
        {"username": "alice", "password": "correct horse 1", "csrfmiddlewaretoken": "x"},
    )
    assert response.status_code == 200, response.content
    assert response.json()["token"]


def test_every_write_operation_documents_a_closed_request_body(anon_client):
    schema = anon_client.get("/api/schema/?format=json").json()
    components = schema["components"]["schemas"]
    writes = [
        (path, method, operation)
        for path, item in schema["paths"].items()
        for method, operation in item.items()
        if method in WRITES
    ]
    assert len(writes) >= 12
    for path, method, operation in writes:
        contents = operation.get("requestBody", {}).get("content", {})
        assert contents, f"{method} {path} documents no request body"
        for media_type, body in contents.items():
            ref = body["schema"]["$ref"].rsplit("/", 1)[-1]
            assert components[ref].get("additionalProperties") is False, (path, media_type)
