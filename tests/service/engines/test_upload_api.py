"""POST /api/engines/: uploads become versions; refused uploads store nothing."""

from __future__ import annotations

import hashlib
import io
import re
import stat
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from engines.models import Engine, EngineVersion, PackageBlob

from .conftest import (
    FIRST_MOVE_ENGINE,
    MANIFEST,
    script_upload,
    stored_files,
    tar_upload,
    zip_upload,
)

pytestmark = pytest.mark.django_db


def upload(client, name="alpha", file=None, **extra):  # type: ignore[no-untyped-def]
    data = {"name": name, "file": file or script_upload(), **extra}
    return client.post("/api/engines/", data, format="multipart")


def assert_nothing_stored(engines_dir) -> None:  # type: ignore[no-untyped-def]
    assert Engine.objects.count() == 0
    assert EngineVersion.objects.count() == 0
    assert PackageBlob.objects.count() == 0
    assert stored_files(engines_dir) == []


def test_it_stores_a_script_as_version_1_pending_and_executable(
    alice_client, alice, engines_dir, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = upload(alice_client, description="plays the first move")
    assert response.status_code == 201
    body = response.json()
    assert body["engine"] == "alpha"
    assert body["number"] == 1
    assert body["status"] == "pending"
    assert body["original_filename"] == "engine.py"
    assert body["size_bytes"] == len(FIRST_MOVE_ENGINE)
    assert body["sha256"] == hashlib.sha256(FIRST_MOVE_ENGINE).hexdigest()
    assert response["Location"] == "/api/engines/alpha/versions/1/"
    assert len(callbacks) == 1  # validation is enqueued once the transaction commits

    engine = Engine.objects.get(name="alpha")
    assert engine.owner == alice
    assert engine.description == "plays the first move"
    version = engine.versions.get()
    digest = hashlib.sha256(FIRST_MOVE_ENGINE).hexdigest()
    # In the package storage (the database), named by its content hash and file name; nothing
    # is left on the web host's disk.
    assert version.storage_path == f"{digest}/engine.py"
    assert bytes(PackageBlob.objects.get(name=version.storage_path).data) == FIRST_MOVE_ENGINE
    assert stored_files(engines_dir) == []
    package = version.package()  # fetched into this host's cache, with its name
    assert package.name == "alpha v1"
    assert package.argv == ("./engine.py",)
    cache = (engines_dir.parent / "engine-cache").resolve()
    assert package.root == cache / digest / "engine.py" / "root"
    assert (package.root / "engine.py").read_bytes() == FIRST_MOVE_ENGINE
    assert stat.S_IMODE((package.root / "engine.py").stat().st_mode) == 0o755


def test_a_second_upload_by_the_owner_is_version_2(alice_client):
    assert upload(alice_client).status_code == 201
    response = upload(alice_client, file=script_upload(FIRST_MOVE_ENGINE + b"# v2\n"))
    assert response.status_code == 201
    assert response.json()["number"] == 2
    assert list(EngineVersion.objects.values_list("number", flat=True)) == [1, 2]
    assert Engine.objects.get().description == ""


def test_it_rejects_an_upload_under_a_foreign_engine_name(alice_client, bob_client, engines_dir):
    assert upload(bob_client).status_code == 201
    before = stored_files(engines_dir)
    response = upload(alice_client)
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "engine_not_yours"
    assert response.json()["error"]["details"] == {"engine": "alpha"}
    assert EngineVersion.objects.count() == 1
    assert stored_files(engines_dir) == before


def test_anonymous_users_cannot_upload(anon_client, engines_dir):
    response = upload(anon_client)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"
    assert_nothing_stored(engines_dir)


def test_it_accepts_a_zip_with_a_manifest(alice_client, engines_dir):
    response = upload(
        alice_client,
        file=zip_upload(
            {"bao-engine.json": MANIFEST, "main.py": FIRST_MOVE_ENGINE},
            name="my engine.zip",
        ),
    )
    assert response.status_code == 201
    version = EngineVersion.objects.get()
    assert version.original_filename == "my engine.zip"
    assert re.fullmatch(r"[0-9a-f]{64}/my_engine\.zip", version.storage_path)
    package = version.package()
    assert package.argv == ("python3", "main.py")
    assert (package.root / "main.py").read_bytes() == FIRST_MOVE_ENGINE


def test_it_accepts_a_tar_gz_whose_manifest_is_in_a_top_level_directory(alice_client):
    response = upload(
        alice_client,
        file=tar_upload({"zipped/bao-engine.json": MANIFEST, "zipped/main.py": FIRST_MOVE_ENGINE}),
    )
    assert response.status_code == 201
    package = EngineVersion.objects.get().package()
    assert package.root.name == "zipped"
    assert package.argv == ("python3", "main.py")


def test_it_recognises_an_archive_by_its_content_not_its_name(alice_client):
    archive = zip_upload(
        {"bao-engine.json": MANIFEST, "main.py": FIRST_MOVE_ENGINE}, name="engine.bin"
    )
    response = upload(alice_client, file=archive)
    assert response.status_code == 201
    stored = EngineVersion.objects.get().storage_path
    assert re.fullmatch(r"[0-9a-f]{64}/engine\.bin\.zip", stored)


def test_it_rejects_an_archive_with_parent_paths(alice_client, engines_dir):
    archive = zip_upload({"bao-engine.json": MANIFEST, "../escape.py": FIRST_MOVE_ENGINE})
    response = upload(alice_client, file=archive)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "unsafe_archive"
    assert "'..'" in error["message"]
    assert_nothing_stored(engines_dir)
    assert not (engines_dir.parent / "escape.py").exists()


def test_it_rejects_an_archive_with_a_bad_manifest(alice_client, engines_dir):
    response = upload(
        alice_client,
        file=zip_upload({"bao-engine.json": b"{not json", "main.py": FIRST_MOVE_ENGINE}),
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "bad_manifest"
    assert_nothing_stored(engines_dir)


def test_it_rejects_an_archive_without_a_manifest(alice_client, engines_dir):
    response = upload(alice_client, file=zip_upload({"main.py": FIRST_MOVE_ENGINE}))
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "bad_manifest"
    assert_nothing_stored(engines_dir)


def test_it_rejects_a_corrupt_archive_as_a_bad_upload(alice_client, engines_dir):
    response = upload(
        alice_client,
        file=SimpleUploadedFile("engine.zip", b"PK\x03\x04 this is not a zip"),
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "bad_upload"
    assert_nothing_stored(engines_dir)


def test_it_rejects_a_text_file_that_is_not_a_script(alice_client, engines_dir):
    response = upload(alice_client, file=SimpleUploadedFile("notes.txt", b"print('hello')\n"))
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "not_executable"
    assert "#!" in response.json()["error"]["message"]
    assert_nothing_stored(engines_dir)


def test_it_rejects_a_file_over_the_size_limit(alice_client, engines_dir, settings):
    settings.BAO_ENGINE_MAX_BYTES = 2048
    response = upload(alice_client, file=script_upload(b"#!/bin/sh\n" + b"#" * 4000))
    assert response.status_code == 413
    assert response.json()["error"] == {
        "code": "upload_too_large",
        "message": "The upload is larger than 2048 bytes.",
        "details": {"max_bytes": 2048},
    }
    assert_nothing_stored(engines_dir)


def test_it_refuses_a_huge_body_from_its_content_length_before_reading_it(
    anon_client, engines_dir, settings, monkeypatch
):
    settings.BAO_ENGINE_MAX_BYTES = 2048

    def never(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("the body should not have been parsed")

    monkeypatch.setattr("rest_framework.request.Request._parse", never)
    # Refused before authentication too: an anonymous sender learns the size rule, not 401.
    response = upload(anon_client, file=script_upload(b"#!/bin/sh\n" + b"#" * 200_000))
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "upload_too_large"
    assert_nothing_stored(engines_dir)


def test_it_rejects_an_archive_that_unpacks_beyond_the_cap(alice_client, engines_dir, settings):
    settings.BAO_ENGINE_MAX_BYTES = 4096  # unpacked cap: 4 x 4096 bytes; zeros compress well
    # Deflated (zip_upload stores): the archive is under the upload cap, its content is not.
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for member, data in (("bao-engine.json", MANIFEST), ("main.py", FIRST_MOVE_ENGINE),
                             ("pad.bin", b"\0" * 40_000)):  # fmt: skip
            info = zipfile.ZipInfo(member)
            info.external_attr = 0o100755 << 16
            zf.writestr(info, data, compress_type=zipfile.ZIP_DEFLATED)
    assert len(buffer.getvalue()) < 4096
    archive = SimpleUploadedFile("engine.zip", buffer.getvalue(), content_type="application/zip")
    response = upload(alice_client, file=archive)
    assert response.status_code == 413
    error = response.json()["error"]
    assert error["code"] == "upload_too_large"
    # The limit that was broken, as docs/api-errors.md promises: the unpacked cap.
    assert error["details"] == {"max_bytes": 4 * 4096}
    assert error["message"] == f"more than {4 * 4096} bytes once unpacked"
    assert_nothing_stored(engines_dir)


def test_it_rejects_a_missing_file_and_a_bad_name_with_field_details(alice_client, engines_dir):
    response = alice_client.post("/api/engines/", {"name": "not a slug!"}, format="multipart")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert sorted(error["details"]) == ["file", "name"]
    assert error["details"]["file"] == ["No file was submitted."]
    assert_nothing_stored(engines_dir)


def test_it_rejects_an_empty_file(alice_client, engines_dir):
    response = upload(alice_client, file=SimpleUploadedFile("engine.py", b""))
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "bad_upload"  # docs/api-errors.md
    assert response.json()["error"]["message"] == "The uploaded file is empty."
    assert_nothing_stored(engines_dir)


def test_it_refuses_a_json_body_for_an_upload(alice_client):
    response = alice_client.post("/api/engines/", {"name": "alpha"}, format="json")
    assert response.status_code == 415
    assert response.json()["error"]["code"] == "unsupported_media_type"


def test_a_refused_version_2_keeps_version_1_intact(alice_client, engines_dir):
    assert upload(alice_client).status_code == 201
    before = stored_files(engines_dir)
    response = upload(alice_client, file=zip_upload({"../x": b"x"}))
    assert response.json()["error"]["code"] == "unsafe_archive"
    assert list(EngineVersion.objects.values_list("number", flat=True)) == [1]
    assert stored_files(engines_dir) == before


def test_names_differing_only_in_case_are_the_same_engine(alice_client, bob_client):
    assert upload(alice_client, name="alpha").status_code == 201
    refused = upload(bob_client, name="ALPHA")
    assert (refused.status_code, refused.json()["error"]["code"]) == (
        403,
        "engine_not_yours",
    )
    response = upload(alice_client, name="Alpha", file=script_upload(FIRST_MOVE_ENGINE + b"#\n"))
    assert (response.json()["engine"], response.json()["number"]) == ("alpha", 2)
    assert Engine.objects.count() == 1


def test_a_byte_identical_reupload_of_the_latest_version_is_refused(alice_client, engines_dir):
    assert upload(alice_client).status_code == 201
    before = stored_files(engines_dir)
    response = upload(alice_client, file=script_upload(FIRST_MOVE_ENGINE))
    assert response.status_code == 409
    digest = hashlib.sha256(FIRST_MOVE_ENGINE).hexdigest()
    assert response.json()["error"] == {
        "code": "duplicate_version",
        "message": f"The upload is identical to alpha v1 (sha256 {digest}).",
        "details": {"engine": "alpha", "version": 1},
    }
    assert list(EngineVersion.objects.values_list("number", flat=True)) == [1]
    assert stored_files(engines_dir) == before


def test_going_back_to_an_older_build_is_a_new_version(alice_client):
    """Only the latest version counts: re-uploading v1's file after a v2 is a rollback."""
    assert upload(alice_client).status_code == 201
    v2 = script_upload(FIRST_MOVE_ENGINE + b"# v2\n")
    assert upload(alice_client, file=v2).status_code == 201
    response = upload(alice_client, file=script_upload(FIRST_MOVE_ENGINE))
    assert (response.status_code, response.json()["number"]) == (201, 3)


def test_it_rejects_a_deeply_nested_manifest_as_a_bad_manifest(alice_client, engines_dir):
    # 30 000 '[' made json.loads raise RecursionError: a 500 (issue 30).
    deep = b"[" * 30_000 + b"]" * 30_000
    response = upload(
        alice_client, file=zip_upload({"bao-engine.json": deep, "main.py": FIRST_MOVE_ENGINE})
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "bad_manifest"
    assert error["message"] == "bao-engine.json nests arrays and objects 30000 deep, over 32"
    assert_nothing_stored(engines_dir)


def test_it_refuses_a_zip_of_too_many_members_from_its_directory(
    alice_client, engines_dir, monkeypatch
):
    from engines.package import _Writer

    def never(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("nothing should have been unpacked")

    monkeypatch.setattr(_Writer, "member", never)
    members = {"bao-engine.json": MANIFEST, "main.py": FIRST_MOVE_ENGINE}
    members |= {f"d/{i}": b"" for i in range(12_000)}
    response = upload(alice_client, file=zip_upload(members))
    assert response.status_code == 413
    assert response.json()["error"] == {
        "code": "upload_too_large",
        "message": "12002 archive members, over 10000",
        "details": {"max_files": 10_000},
    }
    assert_nothing_stored(engines_dir)
