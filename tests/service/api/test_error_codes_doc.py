"""docs/api-errors.md lists every error code the API can answer with (finding 14)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from arena.api import errors

DOC = Path(__file__).resolve().parents[3] / "docs" / "api-errors.md"
ERROR_MODULES = (
    "arena.api.errors",
    "arena.accounts.errors",
    "engines.errors",
    "arena.matches.errors",
    "tournaments.errors",
    "versiontests.errors",
    "people.errors",
)


def _subclasses(cls: type) -> set[type]:
    found = set()
    for sub in cls.__subclasses__():
        found |= {sub} | _subclasses(sub)
    return found


def documented_codes() -> dict[str, int]:
    """``code -> HTTP status`` from the rows of the table (``| `code` | 404 | ...``)."""
    rows = re.findall(r"^\|\s*`([a-z_]+)`\s*\|\s*(\d{3})\s*\|", DOC.read_text(), re.MULTILINE)
    return {code: int(status) for code, status in rows}


def test_every_api_error_class_is_in_the_table_with_its_status():
    for name in ERROR_MODULES:
        importlib.import_module(name)
    classes = _subclasses(errors.ApiError)
    assert len(classes) >= 20
    table = documented_codes()
    missing = {c.default_code for c in classes} - set(table)
    assert not missing, f"codes missing from {DOC.name}: {sorted(missing)}"
    wrong = {
        c.default_code: (c.status_code, table[c.default_code])
        for c in classes
        if table[c.default_code] != c.status_code
    }
    assert not wrong, wrong


def test_the_mapped_framework_codes_are_in_the_table():
    table = documented_codes()
    mapped = {code for _, code in errors._DRF_CODES}
    assert mapped <= set(table), sorted(mapped - set(table))
    for code in ("request_too_large", "bad_request", "server_error"):
        assert code in table


def test_the_readme_links_the_error_table():
    readme = DOC.parents[1] / "README.md"
    assert "docs/api-errors.md" in readme.read_text()


def test_the_sandbox_doc_maps_loader_codes_to_the_codes_the_api_returns():
    from engines.services import _PACKAGE_ERRORS

    text = (DOC.parent / "sandbox.md").read_text()
    rows = re.findall(r"^\| `([a-z_]+)` \((\d{3})\) \| `?([a-z_]*)`?\s*\|", text, re.MULTILINE)
    assert [row[0] for row in rows] == [
        "not_executable",
        "bad_manifest",
        "unsafe_archive",
        "upload_too_large",
        "bad_upload",
    ]
    table = documented_codes()
    for api_code, status, loader_code in rows:
        assert table[api_code] == int(status), api_code
        assert _PACKAGE_ERRORS[loader_code or api_code].default_code == api_code
    # The limits the service applies: the upload cap's default and four times that unpacked.
    assert "`BAO_ENGINE_MAX_BYTES` bytes (default\n16 MiB)" in text
    assert "four times that once unpacked (default 64 MiB)" in text


def test_the_engine_api_doc_gives_the_upload_limit_the_settings_give():
    from django.conf import settings

    text = (DOC.parent / "api-engines.md").read_text()
    assert settings.BAO_ENGINE_MAX_BYTES == 16 * 2**20
    assert "`BAO_ENGINE_MAX_BYTES` bytes (default 16 MiB" in text


def test_the_per_variant_time_control_limits_in_the_doc_are_the_enforced_ones(settings):
    from arena.matches.limits import longest_clock_ms
    from arena.referee import TimeControl
    from arena.rules import VARIANTS

    settings.CELERY_BROKER_VISIBILITY_TIMEOUT = 3600  # the default the table states
    rows = re.findall(r"^\| `([a-z-]+)` \| (.+?) \| (.+?) \| (.+?) \| (\d+) ms \|$",
                      DOC.read_text(), re.MULTILINE)  # fmt: skip
    assert [row[0] for row in rows] == list(VARIANTS)

    def base(text: str, increment: str) -> str:
        ms = longest_clock_ms(text, TimeControl.parse(f"10+{increment}"))
        return "none fits" if ms < 1000 else f"{ms / 1000:g} s"

    for variant, inc0, inc01, inc1, movetime in rows:
        assert [inc0, inc01, inc1] == [base(variant, "0"), base(variant, "0.1"), base(variant, "1")]
        assert int(movetime) == longest_clock_ms(variant, TimeControl.parse("movetime=100"))
