"""The admin pages of engines and versions render, and 'validate again' resets a version."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from engines.models import EngineVersion

from .conftest import script_upload

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client):  # type: ignore[no-untyped-def]
    root = get_user_model().objects.create_superuser("root", "root@example.org", "admin password 1")
    # Through the admin's own login form: every login goes through the login limits, which
    # need the request (Client.login calls authenticate() without one).
    response = client.post(
        "/admin/login/?next=/admin/", {"username": "root", "password": "admin password 1"}
    )
    assert response.status_code == 302 and root.pk
    return client


def test_the_engine_and_version_admin_pages_render(admin_client, alice_client):
    alice_client.post(
        "/api/engines/", {"name": "alpha", "file": script_upload()}, format="multipart"
    )
    version = EngineVersion.objects.get()
    for url in (
        "/admin/engines/engine/",
        f"/admin/engines/engine/{version.engine_id}/change/",
        "/admin/engines/engineversion/",
        f"/admin/engines/engineversion/{version.pk}/change/",
        "/admin/knox/authtoken/",
        "/admin/auth/user/",
    ):
        response = admin_client.get(url)
        assert response.status_code == 200, url
    assert b"alpha v1" in admin_client.get("/admin/engines/engineversion/").content


def test_validate_again_puts_a_rejected_version_back_to_pending(
    admin_client, alice_client, django_capture_on_commit_callbacks
):
    alice_client.post(
        "/api/engines/", {"name": "alpha", "file": script_upload()}, format="multipart"
    )
    version = EngineVersion.objects.get()
    EngineVersion.objects.filter(pk=version.pk).update(
        status="rejected", rejection_code="crash", rejection_reason="x"
    )
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = admin_client.post(
            "/admin/engines/engineversion/",
            {"action": "revalidate", "_selected_action": [version.pk]},
        )
    assert response.status_code == 302
    version.refresh_from_db()
    assert (version.status, version.rejection_code, version.rejection_reason) == (
        "pending",
        "",
        "",
    )
    assert len(callbacks) == 1
