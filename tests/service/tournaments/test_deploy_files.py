"""docker-compose.yml and Dockerfile (Docker is not available in CI: their structure is checked)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert isinstance(data, dict)
    return data


def test_compose_has_every_role(compose: dict[str, Any]) -> None:
    assert set(compose["services"]) == {
        "db", "redis", "migrate", "web", "worker", "beat", "live", "proxy"
    }  # fmt: skip
    assert compose["services"]["db"]["image"].startswith("postgres:")
    assert compose["services"]["redis"]["image"].startswith("redis:")


def test_processes_run_the_project_entry_points(compose: dict[str, Any]) -> None:
    s = compose["services"]
    assert s["web"]["command"][:2] == ["gunicorn", "arena.wsgi"]
    assert s["worker"]["command"][:4] == ["celery", "-A", "arena.worker", "worker"]
    assert s["beat"]["command"][:6] == ["celery", "-A", "arena.celery", "beat", "-S", "django"]
    assert "setup_periodic_tasks" in s["migrate"]["command"][-1]
    assert s["worker"]["deploy"]["replicas"] >= 2


def test_settings_come_from_the_environment(compose: dict[str, Any]) -> None:
    for name in ("web", "worker", "beat", "migrate"):
        env = compose["services"][name]["environment"]
        assert env["DATABASE_URL"].startswith("postgres://") and "@db:5432/" in env["DATABASE_URL"]
        assert env["CELERY_BROKER_URL"] == "redis://redis:6379/0"
        assert env["DJANGO_DEBUG"] == "0"


def test_only_workers_get_the_rights_bubblewrap_needs(compose: dict[str, Any]) -> None:
    s = compose["services"]
    assert s["worker"]["cap_add"] == ["SYS_ADMIN"]
    assert set(s["worker"]["security_opt"]) == {"seccomp=unconfined", "apparmor=unconfined"}
    assert s["worker"]["environment"]["BAO_SANDBOX_REQUIRE_FULL"] == "1"
    for name in ("web", "beat", "migrate", "db", "redis"):
        assert "cap_add" not in s[name] and "security_opt" not in s[name]
        assert not s[name].get("privileged")


def test_the_dockerfile_installs_bubblewrap_and_serves_with_gunicorn() -> None:
    text = (ROOT / "Dockerfile").read_text()
    # Debian's own Python (/usr/bin/python3), the interpreter the sandbox gives Python
    # engines (docs/runtimes.md); the service's packages live in a venv on top of it.
    assert text.startswith("#") and "FROM debian:bookworm-slim" in text
    assert "python3 -m venv /opt/venv" in text
    assert "bubblewrap" in text and "pip install --no-cache-dir -r requirements.txt" in text
    assert 'CMD ["gunicorn", "arena.wsgi"' in text


def test_no_volume_is_shared_between_the_arena_services(compose: dict[str, Any]) -> None:
    # Engines live in the package storage (the database by default): a worker on any host
    # needs only PostgreSQL and Redis, so no service of ours mounts a volume.
    for name in ("web", "worker", "beat", "migrate"):
        assert "volumes" not in compose["services"][name], name
    assert set(compose["volumes"]) == {"pg-data", "redis-data"}
    assert compose["services"]["worker"]["environment"]["BAO_ENGINE_STORAGE"] in (
        "database",
        "${BAO_ENGINE_STORAGE:-database}",
    )


def test_compose_passes_the_https_metrics_and_login_settings(compose: dict[str, Any]) -> None:
    env = compose["services"]["web"]["environment"]
    for name in (
        "BAO_SECURE_COOKIES",
        "BAO_HSTS_SECONDS",
        "BAO_CSRF_TRUSTED_ORIGINS",
        "BAO_METRICS_TOKEN",
        "BAO_LOGIN_FAILURES_PER_USER_IP",
        "BAO_LOGIN_FAILURES_PER_USERNAME",
    ):
        assert env[name].startswith(f"${{{name}:-"), name
    # The placeholder stays, and arena.settings refuses it with DJANGO_DEBUG=0.
    assert env["DJANGO_SECRET_KEY"] == "${DJANGO_SECRET_KEY:-change-me-in-production}"
