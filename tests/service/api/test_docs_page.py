"""The interactive API docs are self-contained: Swagger UI comes from the
drf-spectacular-sidecar static files, not a CDN (finding 18)."""

from __future__ import annotations

import re

import pytest
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.views import serve
from django.test import RequestFactory


@pytest.mark.django_db
def test_the_docs_page_loads_only_local_static_files_and_they_are_served(anon_client, settings):
    settings.DEBUG = True  # staticfiles' serve view (what runserver uses) answers only in DEBUG
    response = anon_client.get("/api/docs/")
    assert response.status_code == 200
    page = response.content.decode()
    urls = re.findall(r"""(?:src|href)\s*=\s*["']([^"']+)["']""", page)
    urls += re.findall(r"""["'](https?://[^"']+)["']""", page)
    assert not [u for u in urls if u.startswith(("http://", "https://", "//"))], urls
    static = sorted({u for u in urls if u.startswith("/static/")})
    # Swagger UI's script, its preset and its stylesheet, and the favicon.
    assert len(static) >= 4, static
    assert all("drf_spectacular_sidecar/swagger-ui-dist/" in u for u in static), static
    for url in static:
        relative = url.removeprefix("/static/")
        assert finders.find(relative) is not None, url
        served = serve(RequestFactory().get(url), relative)
        assert served.status_code == 200, url


@pytest.mark.django_db
def test_with_debug_off_the_docs_and_admin_static_files_are_served_by_the_app(settings):
    # Production (gunicorn, DEBUG off) has no other static file server: WhiteNoise serves them.
    from django.test import Client

    settings.DEBUG = False
    page = Client().get("/api/docs/").content.decode()
    static = sorted(set(re.findall(r"""["'](/static/[^"']+)["']""", page)))
    assert static, page[:500]
    for url in [*static, "/static/admin/css/base.css"]:
        response = Client().get(url)
        assert response.status_code == 200, url
        assert b"".join(response.streaming_content), url
