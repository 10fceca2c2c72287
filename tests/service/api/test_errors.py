"""arena.api.errors: every API error is {"error": {"code", "message", "details"}}."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404
from rest_framework import exceptions

from arena.api.errors import ApiError, error_body, exception_handler
from engines.errors import EngineNotYours
from tournaments.errors import TooFewEngines


def handle(exc: Exception):  # type: ignore[no-untyped-def]
    response = exception_handler(exc, {})
    assert response is not None
    return response.status_code, response.data


def test_a_field_validation_error_keeps_its_field_details():
    status, body = handle(exceptions.ValidationError({"name": ["Too long."], "file": ["Missing."]}))
    assert status == 400
    assert body == error_body(
        "invalid",
        "The request is invalid; see details.",
        {"name": ["Too long."], "file": ["Missing."]},
    )


def test_a_validation_error_without_fields_goes_under_non_field_errors():
    assert handle(exceptions.ValidationError("Nope."))[1]["error"]["details"] == {
        "non_field_errors": ["Nope."]
    }


def test_nested_validation_details_stay_nested_as_plain_strings():
    _, body = handle(exceptions.ValidationError({"options": {"depth": ["Must be positive."]}}))
    assert body["error"]["details"] == {"options": {"depth": ["Must be positive."]}}
    assert type(body["error"]["details"]["options"]["depth"][0]) is str


@pytest.mark.parametrize(
    ("exc", "status", "code"),
    [
        (exceptions.NotAuthenticated(), 401, "not_authenticated"),
        (exceptions.AuthenticationFailed(), 401, "authentication_failed"),
        (exceptions.PermissionDenied(), 403, "permission_denied"),
        (exceptions.NotFound(), 404, "not_found"),
        (exceptions.MethodNotAllowed("PUT"), 405, "method_not_allowed"),
        (exceptions.NotAcceptable(), 406, "not_acceptable"),
        (exceptions.UnsupportedMediaType("text/csv"), 415, "unsupported_media_type"),
        (exceptions.ParseError(), 400, "parse_error"),
        (Http404(), 404, "not_found"),
        (DjangoPermissionDenied(), 403, "permission_denied"),
        (EngineNotYours(), 403, "engine_not_yours"),
        (TooFewEngines(), 400, "too_few_engines"),
    ],
)
def test_each_error_class_has_its_stable_code(exc, status, code):
    got_status, body = handle(exc)
    assert (got_status, body["error"]["code"]) == (status, code)
    assert body["error"]["details"] == {}
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]


def test_throttling_says_when_to_retry():
    status, body = handle(exceptions.Throttled(wait=12))
    assert status == 429
    assert body["error"]["code"] == "throttled"
    assert body["error"]["details"] == {"retry_after_seconds": 12}


def test_an_api_error_carries_its_message_and_details():
    class Teapot(ApiError):
        status_code = 418
        default_code = "teapot"

    status, body = handle(Teapot("Short and stout.", details={"spout": 1}))
    assert (status, body) == (
        418,
        error_body("teapot", "Short and stout.", {"spout": 1}),
    )


def test_an_unexpected_exception_is_left_to_django():
    assert exception_handler(KeyError("boom"), {}) is None


@pytest.mark.django_db
def test_a_wrong_method_over_http_is_method_not_allowed(alice_client):
    response = alice_client.delete("/api/auth/me/")
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"
    assert response.json()["error"]["message"] == 'Method "DELETE" not allowed.'


@pytest.mark.django_db
def test_malformed_json_over_http_is_a_parse_error(anon_client):
    response = anon_client.post("/api/auth/token/", data="{oops", content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "parse_error"
