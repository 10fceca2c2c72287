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
        schema = SchemaGenerator(patterns=patterns).get_schema(
            request=None, public=True
        )
    assert dict(GENERATOR_STATS._warn_cache) == {}
    assert dict(GENERATOR_STATS._error_cache) == {}
    assert set(schema["paths"]) == set(OUR_PATHS)
