"""register_bundled_engines() and its management command."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from engines import services
from engines.models import Engine, EngineVersion

pytestmark = pytest.mark.django_db


def test_it_registers_the_three_bundled_engines_active_under_the_system_user():
    versions = services.register_bundled_engines()
    assert [str(v) for v in versions] == ["random v1", "greedy v1", "search v1"]
    assert [v.status for v in versions] == ["active", "active", "active"]
    arena = get_user_model().objects.get(username="arena")
    assert not arena.has_usable_password()
    assert list(
        Engine.objects.filter(owner=arena, is_bundled=True).values_list("name", flat=True)
    ) == [
        "greedy",
        "random",
        "search",
    ]


def test_registering_twice_changes_nothing():
    first = services.register_bundled_engines()
    second = services.register_bundled_engines()
    assert [v.pk for v in first] == [v.pk for v in second]
    assert EngineVersion.objects.count() == 3
    assert get_user_model().objects.filter(username="arena").count() == 1


def test_bundled_engines_are_stored_in_the_database_and_run_from_the_cache(engines_dir):
    from engines.models import PackageBlob
    from engines.storage import file_sha256

    versions = services.register_bundled_engines(validate=False)
    assert [str(v) for v in versions] == ["random v1", "greedy v1", "search v1"]
    random_v1 = versions[0]
    digest = file_sha256(services.BUNDLED_DIR / "random")
    assert random_v1.storage_path == f"{digest}/random"
    assert PackageBlob.objects.filter(name=random_v1.storage_path).exists()
    package = random_v1.package()
    assert package.argv == ("./random",)
    assert package.root.parent.parent.parent.name == "engine-cache"


def test_a_changed_bundled_file_becomes_a_new_version(monkeypatch):
    source = Path(tempfile.mkdtemp())
    try:
        for name in ("random", "greedy", "search"):
            shutil.copy2(services.BUNDLED_DIR / name, source / name)
        monkeypatch.setattr(services, "BUNDLED_DIR", source)
        services.register_bundled_engines(validate=False)
        with open(source / "greedy", "ab") as handle:
            handle.write(b"\n# tuned\n")
        versions = services.register_bundled_engines(validate=False)
    finally:
        shutil.rmtree(source)
    assert [str(v) for v in versions] == ["random v1", "greedy v2", "search v1"]
    assert [v.status for v in versions] == ["pending", "pending", "pending"]


def test_a_user_engine_holding_a_bundled_name_is_not_taken_over(alice):
    Engine.objects.create(owner=alice, name="random")
    with pytest.raises(services.errors.EngineNotYours):
        services.register_bundled_engines(validate=False)


def test_the_management_command_prints_each_version_and_status(capsys):
    call_command("register_bundled_engines")
    assert capsys.readouterr().out.splitlines() == [
        "random v1: active",
        "greedy v1: active",
        "search v1: active",
    ]
