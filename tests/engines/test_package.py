"""Engine packages: executables, manifest directories, zip and tar.gz archives, and every refusal
with its exact ``EnginePackageError.code``."""

from __future__ import annotations

import io
import json
import os
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from engines import package
from engines.package import (
    MANIFEST_NAME,
    MAX_MEMBERS,
    EnginePackage,
    EnginePackageError,
    load_engine,
)

MANIFEST = {"name": "myengine", "command": ["python3", "main.py"], "author": "Amina"}


def make_zip(
    path: Path,
    members: dict[str, bytes],
    links: dict[str, str] | None = None,
    modes: dict[str, int] | None = None,
) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFREG | (modes or {}).get(name, 0o644)) << 16
            zf.writestr(info, data, compress_type=zipfile.ZIP_DEFLATED)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, target)
    return path


def make_tgz(
    path: Path,
    members: dict[str, bytes],
    links: dict[str, str] | None = None,
    extra: list[tarfile.TarInfo] | None = None,
) -> Path:
    with tarfile.open(path, "w:gz") as tf:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o755 if name.endswith(".sh") else 0o644
            tf.addfile(info, io.BytesIO(data))
        for name, target in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type = tarfile.SYMTYPE
            info.linkname = target
            tf.addfile(info)
        for info in extra or []:
            tf.addfile(info)
    return path


def engine_files() -> dict[str, bytes]:
    return {MANIFEST_NAME: json.dumps(MANIFEST).encode(), "main.py": b"print('hi')\n"}


def code_of(path: Path, **kwargs: object) -> str:
    with pytest.raises(EnginePackageError) as info:
        load_engine(path, **kwargs)  # type: ignore[arg-type]
    assert str(info.value).startswith(info.value.code + ": ")
    return info.value.code


# --------------------------------------------------------------------------- accepted


def test_an_executable_script_is_copied_alone_into_a_fresh_root(tmp_path: Path) -> None:
    script = tmp_path / "random-mover"
    script.write_text("#!/usr/bin/env python3\nprint('hi')\n")
    script.chmod(0o700)
    (tmp_path / "secret.txt").write_text("not for engines")
    dest = tmp_path / "unpacked"
    pkg = load_engine(script, unpack_dir=dest)
    assert pkg == EnginePackage(name="random-mover", root=dest.resolve(), argv=("./random-mover",))
    assert sorted(os.listdir(dest)) == ["random-mover"]
    assert stat.S_IMODE((dest / "random-mover").stat().st_mode) == 0o755
    assert stat.S_IMODE(dest.stat().st_mode) == 0o755


def test_an_elf_binary_is_accepted(tmp_path: Path) -> None:
    pkg = load_engine("/usr/bin/true", unpack_dir=tmp_path / "u")
    assert (pkg.name, pkg.argv) == ("true", ("./true",))


def test_a_directory_with_a_manifest_is_used_in_place(tmp_path: Path) -> None:
    for name, data in engine_files().items():
        (tmp_path / name).write_bytes(data)
    assert load_engine(tmp_path) == EnginePackage(
        name="myengine",
        root=tmp_path.resolve(),
        argv=("python3", "main.py"),
        author="Amina",
    )


def test_a_bare_command_naming_a_package_file_runs_from_the_root(
    tmp_path: Path,
) -> None:
    (tmp_path / MANIFEST_NAME).write_text(
        json.dumps({"name": "b", "command": ["engine", "--fast"]})
    )
    (tmp_path / "engine").write_text("#!/bin/sh\n")
    (tmp_path / "engine").chmod(0o755)
    assert load_engine(tmp_path).argv == ("./engine", "--fast")


def test_a_zip_archive_is_unpacked_with_modes_for_the_engine_uid(
    tmp_path: Path,
) -> None:
    files = {**engine_files(), "run.sh": b"#!/bin/sh\n", "lib/util.py": b"X = 1\n"}
    archive = make_zip(tmp_path / "upload.bin", files, modes={"run.sh": 0o700})
    pkg = load_engine(archive, unpack_dir=tmp_path / "u")
    assert pkg == EnginePackage(
        "myengine", (tmp_path / "u").resolve(), ("python3", "main.py"), "Amina"
    )
    assert (pkg.root / "lib" / "util.py").read_bytes() == b"X = 1\n"
    assert stat.S_IMODE((pkg.root / "run.sh").stat().st_mode) == 0o755
    assert stat.S_IMODE((pkg.root / "main.py").stat().st_mode) == 0o644
    assert stat.S_IMODE((pkg.root / "lib").stat().st_mode) == 0o755


def test_a_zip_written_without_file_types_is_unpacked_as_plain_files(tmp_path: Path) -> None:
    # ZipFile.writestr with a bare name, and Windows zip tools, store no Unix file type.
    archive = tmp_path / "plain.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for name, data in engine_files().items():
            zf.writestr(name, data)
        bare = zipfile.ZipInfo("notes.txt")
        bare.external_attr = 0
        zf.writestr(bare, b"hello\n")
    pkg = load_engine(archive, unpack_dir=tmp_path / "u")
    assert pkg.argv == ("python3", "main.py")
    assert (pkg.root / "notes.txt").read_bytes() == b"hello\n"
    assert stat.S_IMODE((pkg.root / "notes.txt").stat().st_mode) == 0o644


def test_a_tar_gz_whose_single_folder_holds_the_manifest_roots_there(
    tmp_path: Path,
) -> None:
    files = {f"myengine-1.0/{k}": v for k, v in engine_files().items()}
    archive = make_tgz(tmp_path / "e.tgz", files, links={"myengine-1.0/latest.py": "main.py"})
    pkg = load_engine(archive, unpack_dir=tmp_path / "u")
    assert pkg.root == (tmp_path / "u" / "myengine-1.0").resolve()
    assert pkg.argv == ("python3", "main.py")
    assert (pkg.root / "latest.py").read_bytes() == b"print('hi')\n"


def test_without_unpack_dir_a_world_readable_temporary_directory_is_made(
    tmp_path: Path,
) -> None:
    pkg = load_engine(make_zip(tmp_path / "e.zip", engine_files()))
    try:
        assert pkg.root.name.startswith("bao-engine-")
        assert stat.S_IMODE(pkg.root.stat().st_mode) == 0o755
    finally:
        import shutil

        shutil.rmtree(pkg.root)


# --------------------------------------------------------------------------- refused


def test_a_missing_path_is_not_found(tmp_path: Path) -> None:
    assert code_of(tmp_path / "nope") == "not_found"


def test_a_file_without_execute_permission_is_not_executable(tmp_path: Path) -> None:
    script = tmp_path / "engine.py"
    script.write_text("#!/usr/bin/env python3\n")
    script.chmod(0o644)
    assert code_of(script) == "not_executable"


def test_an_executable_without_shebang_or_elf_header_is_not_executable(
    tmp_path: Path,
) -> None:
    script = tmp_path / "engine.py"
    script.write_text("print('no shebang')\n")
    script.chmod(0o755)
    assert code_of(script) == "not_executable"


def test_a_manifest_command_file_without_execute_permission_is_not_executable(
    tmp_path: Path,
) -> None:
    (tmp_path / MANIFEST_NAME).write_text(json.dumps({"name": "b", "command": ["./engine"]}))
    (tmp_path / "engine").write_text("#!/bin/sh\n")
    assert code_of(tmp_path) == "not_executable"


@pytest.mark.parametrize(
    ("command", "link"),
    [
        (["sub"], None),
        (["sub/"], None),
        (["./sub"], None),
        (["."], None),
        (["./"], None),
        (["entry", "--fast"], "sub"),  # a link to a directory of the package
    ],
)
def test_a_manifest_command_naming_a_directory_is_not_executable(
    tmp_path: Path, command: list[str], link: str | None
) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "engine").write_text("#!/bin/sh\n")
    (tmp_path / "sub" / "engine").chmod(0o755)
    if link is not None:
        (tmp_path / "entry").symlink_to(link)
    (tmp_path / MANIFEST_NAME).write_text(json.dumps({"name": "d", "command": command}))
    with pytest.raises(EnginePackageError) as info:
        load_engine(tmp_path)
    assert info.value.code == "not_executable"
    assert str(info.value) == (
        f'not_executable: "command"[0] {command[0]!r} is a directory: '
        "name the program file inside it"
    )


def test_a_manifest_command_naming_the_file_inside_the_directory_is_accepted(
    tmp_path: Path,
) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "engine").write_text("#!/bin/sh\n")
    (tmp_path / "sub" / "engine").chmod(0o755)
    (tmp_path / MANIFEST_NAME).write_text(json.dumps({"name": "d", "command": ["sub/engine"]}))
    assert load_engine(tmp_path).argv == ("sub/engine",)


@pytest.mark.parametrize(
    "manifest",
    [
        b"{not json",
        b"\xff\xfe",
        b"[1, 2]",
        json.dumps({"command": ["python3"]}).encode(),
        json.dumps({"name": "", "command": ["python3"]}).encode(),
        json.dumps({"name": "x" * 65, "command": ["python3"]}).encode(),
        json.dumps({"name": "bad\nname", "command": ["python3"]}).encode(),
        json.dumps({"name": "e"}).encode(),
        json.dumps({"name": "e", "command": []}).encode(),
        json.dumps({"name": "e", "command": "python3 main.py"}).encode(),
        json.dumps({"name": "e", "command": ["python3", 7]}).encode(),
        json.dumps({"name": "e", "command": ["/usr/bin/python3", "main.py"]}).encode(),
        json.dumps({"name": "e", "command": ["../escape"]}).encode(),
        json.dumps({"name": "e", "command": ["./absent"]}).encode(),
        json.dumps({"name": "e", "command": ["python3"], "author": 5}).encode(),
    ],
)
def test_a_bad_manifest_is_refused(tmp_path: Path, manifest: bytes) -> None:
    (tmp_path / MANIFEST_NAME).write_bytes(manifest)
    assert code_of(tmp_path) == "bad_manifest"


def test_a_directory_without_manifest_is_a_bad_manifest(tmp_path: Path) -> None:
    (tmp_path / "main.py").write_text("")
    assert code_of(tmp_path) == "bad_manifest"


def test_an_archive_without_manifest_is_a_bad_manifest(tmp_path: Path) -> None:
    archive = make_zip(tmp_path / "e.zip", {"main.py": b""})
    (tmp_path / "given").mkdir()
    assert code_of(archive, unpack_dir=tmp_path / "given") == "bad_manifest"
    assert list((tmp_path / "given").iterdir()) == []  # emptied, and left for its owner
    assert code_of(archive, unpack_dir=tmp_path / "made") == "bad_manifest"
    assert not (tmp_path / "made").exists()  # we made it, we removed it


@pytest.mark.parametrize("maker", [make_zip, make_tgz])
@pytest.mark.parametrize(
    "bad_name",
    ["../evil.py", "sub/../../evil.py", "/etc/evil.py", "C:/evil.py", "a\\..\\b"],
)
def test_members_escaping_the_root_are_unsafe(tmp_path: Path, maker, bad_name: str) -> None:  # type: ignore[no-untyped-def]
    archive = maker(tmp_path / "e.bin", {**engine_files(), bad_name: b"x"})
    assert code_of(archive, unpack_dir=tmp_path / "u") == "unsafe_archive"
    assert not (tmp_path / "evil.py").exists() and not Path("/etc/evil.py").exists()


@pytest.mark.parametrize("maker", [make_zip, make_tgz])
@pytest.mark.parametrize(
    "links",
    [
        {"evil": "/etc/passwd"},
        {"evil": "../../outside"},
        {"dot": ".", "evil": "dot/.."},  # each looks inside; together they climb out
    ],
)
def test_symlinks_escaping_the_root_are_unsafe(
    tmp_path: Path, maker, links: dict[str, str]
) -> None:  # type: ignore[no-untyped-def]
    archive = maker(tmp_path / "e.bin", engine_files(), links=links)
    assert code_of(archive, unpack_dir=tmp_path / "u") == "unsafe_archive"


def test_a_directory_package_with_an_escaping_symlink_is_unsafe(tmp_path: Path) -> None:
    for name, data in engine_files().items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "passwd").symlink_to("/etc/passwd")
    assert code_of(tmp_path) == "unsafe_archive"


def test_tar_hard_links_devices_and_duplicates_are_unsafe(tmp_path: Path) -> None:
    hard = tarfile.TarInfo("hard")
    hard.type, hard.linkname = tarfile.LNKTYPE, "main.py"
    dev = tarfile.TarInfo("null")
    dev.type, dev.devmajor, dev.devminor = tarfile.CHRTYPE, 1, 3
    for i, extra in enumerate([hard, dev]):
        archive = make_tgz(tmp_path / f"e{i}.tgz", engine_files(), extra=[extra])
        assert code_of(archive, unpack_dir=tmp_path / f"u{i}") == "unsafe_archive"
    dup = tarfile.TarInfo("main.py")
    archive = make_tgz(tmp_path / "dup.tgz", engine_files(), extra=[dup])
    assert code_of(archive, unpack_dir=tmp_path / "udup") == "unsafe_archive"


def test_an_upload_over_max_bytes_is_too_large(tmp_path: Path) -> None:
    script = tmp_path / "big"
    script.write_bytes(b"#!/bin/sh\n" + b"#" * 2000)
    script.chmod(0o755)
    assert code_of(script, max_bytes=1000) == "too_large"


def test_a_compression_bomb_stops_at_max_bytes(tmp_path: Path) -> None:
    archive = make_zip(tmp_path / "bomb.zip", {**engine_files(), "zeros": bytes(5_000_000)})
    assert archive.stat().st_size < 100_000
    assert code_of(archive, unpack_dir=tmp_path / "u", max_bytes=1_000_000) == "too_large"
    assert not (tmp_path / "u").exists()


def test_too_many_members_is_too_large(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert MAX_MEMBERS == 10_000
    monkeypatch.setattr(package, "MAX_MEMBERS", 40)  # the same check, without 10 000 files
    files = {**engine_files(), **{f"f{i}": b"" for i in range(39)}}
    archive = make_tgz(tmp_path / "many.tgz", files)
    assert code_of(archive, unpack_dir=tmp_path / "u") == "too_large"
    files.pop("f0")
    assert (
        load_engine(make_tgz(tmp_path / "ok.tgz", files), unpack_dir=tmp_path / "v").name
        == "myengine"
    )


def test_a_directory_over_max_bytes_is_too_large(tmp_path: Path) -> None:
    for name, data in engine_files().items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "weights.bin").write_bytes(bytes(3000))
    assert code_of(tmp_path, max_bytes=2000) == "too_large"


def test_corrupt_archives_are_bad_archives(tmp_path: Path) -> None:
    good_zip = make_zip(tmp_path / "g.zip", engine_files()).read_bytes()
    (tmp_path / "cut.zip").write_bytes(good_zip[: len(good_zip) // 2])
    good_tgz = make_tgz(tmp_path / "g.tgz", engine_files()).read_bytes()
    (tmp_path / "cut.tgz").write_bytes(good_tgz[: len(good_tgz) // 2])
    (tmp_path / "junk.tgz").write_bytes(b"\x1f\x8b" + b"junk" * 50)
    for name in ("cut.zip", "cut.tgz", "junk.tgz"):
        assert code_of(tmp_path / name, unpack_dir=tmp_path / f"u-{name}") == "bad_archive", name


def test_a_non_empty_unpack_dir_is_a_caller_error(tmp_path: Path) -> None:
    (tmp_path / "u").mkdir()
    (tmp_path / "u" / "old").write_text("")
    archive = make_zip(tmp_path / "e.zip", engine_files())
    with pytest.raises(ValueError, match="not empty") as info:
        load_engine(archive, unpack_dir=tmp_path / "u")
    assert not isinstance(info.value, EnginePackageError)


def message_of(path: Path, **kwargs: object) -> tuple[str, str, dict[str, int]]:
    with pytest.raises(EnginePackageError) as info:
        load_engine(path, **kwargs)  # type: ignore[arg-type]
    return info.value.code, str(info.value.args[0]), info.value.details


def test_a_command_word_over_the_length_limit_is_refused_naming_the_limit(
    tmp_path: Path,
) -> None:
    manifest = {**MANIFEST, "command": ["python3", "x" * 60_000]}
    for name, data in {**engine_files(), MANIFEST_NAME: json.dumps(manifest).encode()}.items():
        (tmp_path / name).write_bytes(data)
    assert message_of(tmp_path) == (
        "bad_manifest",
        '"command"[1] has 60000 characters: a word may have at most 4096',
        {},
    )


def test_a_command_word_with_nul_is_refused_naming_nul(tmp_path: Path) -> None:
    manifest = {**MANIFEST, "command": ["python3", "main\u0000.py"]}
    for name, data in {**engine_files(), MANIFEST_NAME: json.dumps(manifest).encode()}.items():
        (tmp_path / name).write_bytes(data)
    assert message_of(tmp_path)[:2] == ("bad_manifest", '"command"[1] holds a NUL character')


@pytest.mark.parametrize("maker", [make_zip, make_tgz])
def test_a_symlink_loop_is_refused_as_a_loop(tmp_path: Path, maker) -> None:  # type: ignore[no-untyped-def]
    archive = maker(tmp_path / "e.bin", engine_files(), links={"a": "b", "b": "a"})
    code, message, _ = message_of(archive, unpack_dir=tmp_path / "u")
    assert code == "unsafe_archive"
    assert message.endswith("is part of a symbolic link loop"), message


def test_a_directory_package_with_a_symlink_loop_is_refused_as_a_loop(tmp_path: Path) -> None:
    for name, data in engine_files().items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    code, message, _ = message_of(tmp_path)
    assert (code, message.split(" ", 2)[2]) == ("unsafe_archive", "is part of a symbolic link loop")


@pytest.mark.parametrize("maker", [make_zip, make_tgz])
@pytest.mark.parametrize("prefix", ["", "engine/"])
def test_a_symlinked_manifest_is_refused_as_a_link(tmp_path: Path, maker, prefix: str) -> None:  # type: ignore[no-untyped-def]
    files = {f"{prefix}real.json": json.dumps(MANIFEST).encode(), f"{prefix}main.py": b""}
    archive = maker(tmp_path / "e.bin", files, links={f"{prefix}{MANIFEST_NAME}": "real.json"})
    assert message_of(archive, unpack_dir=tmp_path / "u")[:2] == (
        "bad_manifest",
        "bao-engine.json is a symbolic link: the manifest must be a regular file",
    )


def test_too_large_names_the_limit_it_broke(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bomb = make_zip(tmp_path / "bomb.zip", {**engine_files(), "zeros": bytes(2_000_000)})
    assert message_of(bomb, unpack_dir=tmp_path / "u", max_bytes=1_000_000)[2] == {
        "max_bytes": 1_000_000
    }
    monkeypatch.setattr(package, "MAX_MEMBERS", 5)
    many = make_tgz(tmp_path / "many.tgz", {**engine_files(), **{f"f{i}": b"" for i in range(9)}})
    assert message_of(many, unpack_dir=tmp_path / "v")[2] == {"max_files": 5}


# --------------------------------------------------------------------------- refused early


def test_a_deeply_nested_manifest_is_a_bad_manifest_not_a_recursion_error(
    tmp_path: Path,
) -> None:
    deep = {**MANIFEST, "extra": json.loads("[" * 32 + "]" * 32)}  # 33 deep with the object
    (tmp_path / "main.py").write_bytes(b"print('hi')\n")
    (tmp_path / MANIFEST_NAME).write_text(json.dumps(deep))
    with pytest.raises(EnginePackageError, match="nests arrays and objects 33 deep, over 32"):
        load_engine(tmp_path)
    (tmp_path / MANIFEST_NAME).write_text("[" * 60_000 + "]" * 5_000)  # json.loads recursed
    assert code_of(tmp_path) == "bad_manifest"
    # Brackets inside strings do not nest; 32 deep is accepted.
    ok = {**MANIFEST, "note": "[[[[[[" * 10 + '\\"{', "extra": json.loads("[" * 31 + "]" * 31)}
    (tmp_path / MANIFEST_NAME).write_text(json.dumps(ok))
    assert load_engine(tmp_path).name == "myengine"


def _many_member_zip(path: Path, members: int) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in engine_files().items():
            zf.writestr(name, data)
        for i in range(members - 2):
            zf.writestr(f"d/{i}", b"")
    return path


def test_a_zip_over_the_member_cap_is_refused_from_its_directory_before_unpacking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive = _many_member_zip(tmp_path / "many.zip", 12_000)
    unpacked: list[str] = []
    real_member = package._Writer.member
    monkeypatch.setattr(
        package._Writer,
        "member",
        lambda self, name: unpacked.append(name) or real_member(self, name),
    )
    read_directories: list[object] = []
    monkeypatch.setattr(zipfile, "ZipFile", lambda *a, **k: read_directories.append(a))
    with pytest.raises(EnginePackageError) as info:
        load_engine(archive, unpack_dir=tmp_path / "u")
    assert (info.value.code, info.value.details) == ("too_large", {"max_files": MAX_MEMBERS})
    assert str(info.value) == "too_large: 12000 archive members, over 10000"
    assert unpacked == [] and read_directories == []  # from the end record alone
    assert not (tmp_path / "u").exists()


def test_the_member_count_is_read_from_a_zip64_end_record(tmp_path: Path) -> None:
    archive = _many_member_zip(tmp_path / "many.zip", 70_000)  # over 0xFFFF: zip64 records
    assert package._zip_member_count(archive) == 70_000
    assert package._zip_member_count(_many_member_zip(tmp_path / "few.zip", 3)) == 3
    (tmp_path / "junk.zip").write_bytes(b"PK\x03\x04" + bytes(100))
    assert package._zip_member_count(tmp_path / "junk.zip") is None


def test_a_zip_whose_members_state_more_than_the_cap_is_refused_before_unpacking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def never(*args: object) -> None:
        raise AssertionError("nothing should have been unpacked")

    monkeypatch.setattr(package._Writer, "member", never)
    archive = make_zip(tmp_path / "big.zip", {**engine_files(), "zeros": bytes(3000)})
    with pytest.raises(EnginePackageError) as info:
        load_engine(archive, unpack_dir=tmp_path / "u", max_bytes=2000)
    assert (info.value.code, info.value.details) == ("too_large", {"max_bytes": 2000})
    assert str(info.value) == "too_large: more than 2000 bytes once unpacked"
    assert not (tmp_path / "u").exists()


def test_a_tgz_over_the_member_cap_is_refused_from_its_headers_before_unpacking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def never(*args: object) -> None:
        raise AssertionError("nothing should have been unpacked")

    monkeypatch.setattr(package._Writer, "member", never)
    files = {**engine_files(), **{f"d/{i}": b"" for i in range(MAX_MEMBERS - 1)}}
    with pytest.raises(EnginePackageError) as info:
        load_engine(make_tgz(tmp_path / "many.tgz", files), unpack_dir=tmp_path / "u")
    assert (info.value.code, info.value.details) == ("too_large", {"max_files": MAX_MEMBERS})
    big = make_tgz(tmp_path / "big.tgz", {**engine_files(), "zeros": bytes(3000)})
    with pytest.raises(EnginePackageError) as info:
        load_engine(big, unpack_dir=tmp_path / "v", max_bytes=2000)
    assert (info.value.code, info.value.details) == ("too_large", {"max_bytes": 2000})
    assert not (tmp_path / "u").exists() and not (tmp_path / "v").exists()
