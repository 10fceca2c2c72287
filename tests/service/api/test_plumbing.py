"""Every response under /api/ is the JSON error envelope: deep or oversized bodies, unknown
paths, Django's own 400/404/500 handlers (findings 4 and 6)."""

from __future__ import annotations

import json

import pytest
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.test import RequestFactory

from arena.api import handlers

DEEP = "[" * 5000 + "]" * 5000


def error_of(response) -> tuple[int, str, dict]:  # type: ignore[no-untyped-def]
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = json.loads(response.content)
    return response.status_code, body["error"]["code"], body["error"]["details"]


@pytest.mark.django_db
def test_a_deeply_nested_json_body_is_a_parse_error_not_a_crash(anon_client):
    response = anon_client.post("/api/auth/register/", data=DEEP, content_type="application/json")
    status, code, _ = error_of(response)
    assert (status, code) == (400, "parse_error")


def test_a_deeply_nested_challenge_is_a_parse_error_too(alice_client):
    response = alice_client.post("/api/matches/", data=DEEP, content_type="application/json")
    assert error_of(response)[:2] == (400, "parse_error")


def test_a_deeply_nested_engine_patch_is_a_parse_error_too(alice_client, alice1):
    response = alice_client.patch(
        "/api/engines/alice1/", data=DEEP, content_type="application/json"
    )
    assert error_of(response)[:2] == (400, "parse_error")


def test_a_json_body_over_the_upload_limit_is_413_request_too_large(anon_client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    body = json.dumps({"username": "x" * 2000, "password": "correct horse 1"})
    response = anon_client.post("/api/auth/register/", data=body, content_type="application/json")
    assert error_of(response) == (413, "request_too_large", {"max_bytes": 1000})


@pytest.mark.django_db
def test_a_form_body_over_the_upload_limit_is_413_request_too_large(anon_client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = anon_client.post(
        "/api/auth/register/",
        data="username=" + "x" * 2000,
        content_type="application/x-www-form-urlencoded",
    )
    assert error_of(response) == (413, "request_too_large", {"max_bytes": 1000})


@pytest.mark.django_db
def test_a_json_body_within_the_limit_still_parses(anon_client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    body = json.dumps({"username": "carol", "password": "correct horse 1"})
    response = anon_client.post("/api/auth/register/", data=body, content_type="application/json")
    assert response.status_code == 201


@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize(
    "path",
    [
        "/api/nonexistent/",
        "/api/games/",
        "/api/engines/x/versions/-1/",
        "/api/engines/x/versions/1/nothing/",
        "/api/",
    ],
)
@pytest.mark.django_db
def test_an_unknown_api_path_is_a_json_not_found(anon_client, settings, path, debug):
    settings.DEBUG = debug
    response = anon_client.get(path)
    assert error_of(response) == (404, "not_found", {"path": path})


@pytest.mark.django_db
def test_a_post_to_an_unknown_api_path_is_a_json_not_found(anon_client):
    response = anon_client.post("/api/nothing-here/", data={}, format="json")
    assert error_of(response) == (404, "not_found", {"path": "/api/nothing-here/"})


@pytest.mark.django_db
def test_a_missing_trailing_slash_still_redirects_a_read(anon_client):
    response = anon_client.get("/api/matches?status=finished")
    assert response.status_code == 301
    assert response["Location"] == "/api/matches/?status=finished"


@pytest.mark.django_db
def test_a_missing_trailing_slash_on_a_write_says_where_to_go(anon_client):
    response = anon_client.post("/api/matches", data={}, format="json")
    assert error_of(response) == (
        404,
        "not_found",
        {"path": "/api/matches", "did_you_mean": "/api/matches/"},
    )


def test_the_404_handler_answers_json_under_api_and_html_elsewhere():
    factory = RequestFactory()
    api = handlers.handler404(factory.get("/api/zzz/"), Exception("no"))
    assert error_of(api) == (404, "not_found", {"path": "/api/zzz/"})
    page = handlers.handler404(factory.get("/zzz/"), Exception("no"))
    assert page.status_code == 404
    assert page["Content-Type"].startswith("text/html")


def test_the_400_handler_maps_an_oversized_body_to_413(settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 2048
    request = RequestFactory().post("/api/auth/register/")
    response = handlers.handler400(request, RequestDataTooBig("too big"))
    assert error_of(response) == (413, "request_too_large", {"max_bytes": 2048})
    other = handlers.handler400(request, SuspiciousOperation("odd"))
    assert error_of(other) == (400, "bad_request", {})


def test_the_500_handler_answers_json_under_api_and_html_elsewhere():
    factory = RequestFactory()
    assert error_of(handlers.handler500(factory.get("/api/matches/"))) == (
        500,
        "server_error",
        {},
    )
    page = handlers.handler500(factory.get("/"))
    assert page.status_code == 500
    assert page["Content-Type"].startswith("text/html")


def test_the_403_handler_answers_json_under_api():
    request = RequestFactory().get("/api/matches/")
    response = handlers.handler403(request, Exception("no"))
    assert error_of(response) == (403, "permission_denied", {})


def test_the_project_urls_use_the_json_handlers():
    from arena import urls

    assert urls.handler400 is handlers.handler400
    assert urls.handler403 is handlers.handler403
    assert urls.handler404 is handlers.handler404
    assert urls.handler500 is handlers.handler500
