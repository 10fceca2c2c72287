"""Uploads go to the shared package storage (the database by default, S3 when configured);
any host fetches them by content hash into its own cache; existing files are migrated."""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from pathlib import Path

import pytest
from django.db import connection

from engines.models import EngineVersion, PackageBlob
from engines.package_cache import FetchError
from engines.storage import checkout

from .conftest import FIRST_MOVE_ENGINE, MANIFEST, script_upload, zip_upload

pytestmark = pytest.mark.django_db

DIGEST = hashlib.sha256(FIRST_MOVE_ENGINE).hexdigest()


def _upload(client, file=None):  # type: ignore[no-untyped-def]
    response = client.post(
        "/api/engines/", {"name": "alpha", "file": file or script_upload()}, format="multipart"
    )
    assert response.status_code == 201, response.json()
    return EngineVersion.objects.get(engine__name="alpha", number=response.json()["number"])


@pytest.fixture
def other_host(settings):  # type: ignore[no-untyped-def]
    """Switch this process to another host's ``VAR_DIR`` (empty: no engine file in it)."""
    var = Path(tempfile.mkdtemp(prefix="bao-other-host-"))
    var.chmod(0o755)
    settings.VAR_DIR = var
    settings.BAO_ENGINES_DIR = var / "engines"
    yield var
    shutil.rmtree(var, ignore_errors=True)


def test_an_upload_is_stored_in_the_database_and_another_host_runs_it_from_its_cache(
    alice_client, engines_dir, settings
):
    version = _upload(alice_client)
    web_var = engines_dir.parent
    assert PackageBlob.objects.get(name=f"{DIGEST}/engine.py").size_bytes == len(FIRST_MOVE_ENGINE)
    var = Path(tempfile.mkdtemp(prefix="bao-other-host-"))
    try:
        settings.VAR_DIR = var
        with checkout(version) as package:
            assert package.name == "alpha v1"
            assert package.root == (var / "engine-cache" / DIGEST / "engine.py" / "root").resolve()
            assert (package.root / "engine.py").read_bytes() == FIRST_MOVE_ENGINE
    finally:
        shutil.rmtree(var, ignore_errors=True)
    assert not (web_var / "engine-cache").exists()  # the web host never needed it


def test_an_archive_keeps_its_file_names_in_the_cache(alice_client):
    version = _upload(
        alice_client,
        zip_upload({"bao-engine.json": MANIFEST, "main.py": FIRST_MOVE_ENGINE}, name="e.zip"),
    )
    package = version.package()
    assert package.argv == ("python3", "main.py")
    assert sorted(p.name for p in package.root.iterdir()) == ["bao-engine.json", "main.py"]


def test_stored_bytes_that_no_longer_match_the_recorded_hash_are_never_run(
    alice_client, other_host
):
    version = _upload(alice_client)
    PackageBlob.objects.filter(name=version.storage_path).update(
        data=FIRST_MOVE_ENGINE.replace(b"first-move", b"evil-move!")
    )
    with pytest.raises(FetchError, match="content hash"), checkout(version):
        pass
    assert not list((other_host / "engine-cache").glob("*/*/root"))


def test_the_download_endpoint_serves_the_stored_bytes(alice_client):
    version = _upload(alice_client)
    response = alice_client.get(f"/api/engines/alpha/versions/{version.number}/download/")
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == FIRST_MOVE_ENGINE
    assert response["Content-Disposition"] == 'attachment; filename="engine.py"'


def test_with_s3_configured_uploads_go_to_the_bucket(alice_client, settings, other_host):
    moto = pytest.importorskip("moto")
    import boto3

    with moto.mock_aws():
        boto3.client("s3", region_name="us-east-1").create_bucket(Bucket="bao-packages")
        settings.STORAGES = {
            **settings.STORAGES,
            "engine_packages": {
                "BACKEND": "storages.backends.s3.S3Storage",
                "OPTIONS": {
                    "bucket_name": "bao-packages",
                    "region_name": "us-east-1",
                    "location": "engine-packages",
                    "default_acl": None,
                    "file_overwrite": True,
                },
            },
        }
        version = _upload(alice_client)
        assert PackageBlob.objects.count() == 0
        stored = boto3.client("s3", region_name="us-east-1").get_object(
            Bucket="bao-packages", Key=f"engine-packages/{DIGEST}/engine.py"
        )
        assert stored["Body"].read() == FIRST_MOVE_ENGINE
        with checkout(version) as package:
            assert (package.root / "engine.py").read_bytes() == FIRST_MOVE_ENGINE
        response = alice_client.get("/api/engines/alpha/versions/1/download/")
        assert b"".join(response.streaming_content) == FIRST_MOVE_ENGINE


@pytest.mark.django_db(transaction=True)
def test_the_migration_moves_existing_files_into_the_database(engines_dir, alice):
    from django.db.migrations.executor import MigrationExecutor

    before = ("engines", "0004_engine_consent_and_failed_variants")
    after = ("engines", "0005_package_blobs")
    executor = MigrationExecutor(connection)
    executor.migrate([before])
    old = executor.loader.project_state([before]).apps
    Engine = old.get_model("engines", "Engine")
    Version = old.get_model("engines", "EngineVersion")
    engine = Engine.objects.create(owner_id=alice.pk, name="alpha")
    layout = engines_dir / "alpha" / "v1-0123456789ab"
    for part in ("upload", "root"):
        (layout / part).mkdir(parents=True)
        (layout / part / "engine.py").write_bytes(FIRST_MOVE_ENGINE)
    Version.objects.create(
        engine=engine, number=1, original_filename="engine.py", sha256=DIGEST,
        size_bytes=len(FIRST_MOVE_ENGINE), storage_path="alpha/v1-0123456789ab/upload/engine.py",
    )  # fmt: skip
    Version.objects.create(  # its file is gone: left as it was
        engine=engine, number=2, original_filename="gone.py", sha256="1" * 64,
        size_bytes=1, storage_path="alpha/v2-0123456789ab/upload/gone.py",
    )  # fmt: skip

    executor = MigrationExecutor(connection)
    executor.migrate([after])
    # Then forward to the latest migrations, so the current models below match the tables.
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())

    v1, v2 = EngineVersion.objects.order_by("number")
    assert v1.storage_path == f"{DIGEST}/engine.py"
    assert bytes(PackageBlob.objects.get(name=v1.storage_path).data) == FIRST_MOVE_ENGINE
    assert v2.storage_path == "alpha/v2-0123456789ab/upload/gone.py"
    assert not layout.exists()  # removed once the migration committed
    assert (v1.package().root / "engine.py").read_bytes() == FIRST_MOVE_ENGINE
