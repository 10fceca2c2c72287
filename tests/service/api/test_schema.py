"""The OpenAPI schema generates and documents the accounts and engines endpoints."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

OUR_PATHS = {
    "/api/auth/register/": {"post"},
    "/api/auth/token/": {"post"},
    "/api/auth/tokens/": {"get"},
    "/api/auth/tokens/{prefix}/": {"delete"},
    "/api/auth/password/": {"post"},
    "/api/auth/me/": {"get"},
    "/api/engines/": {"get", "post"},
    "/api/engines/{name}/": {"get", "patch"},
    "/api/engines/{name}/versions/{number}/": {"get"},
    "/api/engines/{name}/versions/{number}/download/": {"get"},
    "/api/runtimes/": {"get"},
}


def test_the_schema_documents_every_accounts_and_engines_operation(anon_client):
    response = anon_client.get("/api/schema/?format=json")
    assert response.status_code == 200
    schema = response.json()
    for path, methods in OUR_PATHS.items():
        assert set(schema["paths"][path]) >= methods, path
    upload = schema["paths"]["/api/engines/"]["post"]
    assert list(upload["requestBody"]["content"]) == ["multipart/form-data"]
    assert set(upload["responses"]) >= {"201", "400", "401", "403", "413"}
    listing = schema["paths"]["/api/engines/"]["get"]
    assert {p["name"] for p in listing["parameters"]} >= {
        "owner",
        "variant",
        "enabled",
        "bundled",
        "search",
        "ordering",
        "page",
        "page_size",
    }


def test_the_swagger_ui_page_is_served(anon_client):
    response = anon_client.get("/api/docs/")
    assert response.status_code == 200
    assert b"swagger" in response.content.lower()


def test_the_accounts_and_engines_views_generate_without_warnings_or_errors():
    from django.urls import include, path
    from drf_spectacular.drainage import GENERATOR_STATS
    from drf_spectacular.generators import SchemaGenerator

    patterns = [
        path("api/", include("arena.accounts.urls")),
        path("api/", include("engines.urls")),
    ]
    GENERATOR_STATS.reset()
    with GENERATOR_STATS.silence():
        schema = SchemaGenerator(patterns=patterns).get_schema(request=None, public=True)
    assert dict(GENERATOR_STATS._warn_cache) == {}
    assert dict(GENERATOR_STATS._error_cache) == {}
    assert set(schema["paths"]) == set(OUR_PATHS)


def _schema(client) -> dict:  # type: ignore[no-untyped-def]
    response = client.get("/api/schema/?format=json")
    assert response.status_code == 200
    return response.json()


def _resolve(schema: dict, node: dict) -> dict:
    while "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return node


def _ok_body(schema: dict, path: str, method: str = "get") -> dict:
    responses = schema["paths"][path][method]["responses"]
    code = "201" if "201" in responses else "200"
    return _resolve(schema, responses[code]["content"]["application/json"]["schema"])


@pytest.mark.parametrize(
    "path",
    [
        "/api/leaderboard/",
        "/api/tournaments/",
        "/api/engines/{name}/ratings/",
        "/api/matches/",
        "/api/engines/",
        "/api/live/",
    ],
)
def test_every_list_is_documented_as_a_page(anon_client, path):
    schema = _schema(anon_client)
    body = _ok_body(schema, path)
    assert {"count", "next", "previous", "results"} <= set(body["properties"])
    names = {p["name"] for p in schema["paths"][path]["get"]["parameters"]}
    assert {"page", "page_size"} <= names


def test_the_schema_documents_what_the_answers_hold(anon_client):
    schema = _schema(anon_client)
    match = _resolve(schema, _ok_body(schema, "/api/matches/")["properties"]["results"]["items"])
    assert match["properties"]["tournament"].get("nullable") is True  # null for a challenge
    user = _resolve(schema, _ok_body(schema, "/api/auth/me/"))
    assert "format" not in user["properties"]["email"]  # "" when none was given
    for path, method in (
        ("/api/tournaments/{tournament_id}/", "get"),
        ("/api/tournaments/", "post"),
    ):
        tournament = _ok_body(schema, path, method)
        assert {"standings", "crosstable", "progress", "entries"} <= set(tournament["properties"])
        standing = _resolve(schema, tournament["properties"]["standings"]["items"])
        assert standing["properties"]["points"]["type"] == "number"


def test_the_upload_file_is_a_binary_string_so_clients_can_upload(anon_client):
    schema = _schema(anon_client)
    content = schema["paths"]["/api/engines/"]["post"]["requestBody"]["content"]
    body = _resolve(schema, content["multipart/form-data"]["schema"])
    file = body["properties"]["file"]
    assert (file["type"], file["format"]) == ("string", "binary")


@pytest.mark.parametrize(
    ("path", "method", "statuses"),
    [
        ("/api/matches/", "post", {"400", "401", "403", "404", "409", "413", "415", "429"}),
        ("/api/engines/", "post", {"400", "401", "403", "404", "409", "413", "415", "429"}),
        ("/api/tournaments/", "post", {"400", "401", "403", "404", "409", "413", "415", "429"}),
        ("/api/engines/{name}/", "patch", {"400", "401", "403", "404", "409", "413", "415"}),
        ("/api/matches/", "get", {"400", "401", "404"}),
        ("/api/games/{id}/", "get", {"400", "401", "404"}),
    ],
)
def test_error_answers_are_documented_with_the_error_envelope(anon_client, path, method, statuses):
    schema = _schema(anon_client)
    responses = schema["paths"][path][method]["responses"]
    assert statuses <= set(responses)
    for status in statuses:
        ref = responses[status]["content"]["application/json"]["schema"]["$ref"]
        assert ref.endswith("/Error")
