"""engines.sandbox.files: the private package copy and the content-keyed library directory."""

from __future__ import annotations

import os
import shutil
import stat
import sys
from pathlib import Path

import pytest

from engines import sandbox
from engines.sandbox.files import give_to_uid, library_dir, private_dir

REPO = Path(__file__).resolve().parents[2]
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="chown needs root")


def modes(root: Path) -> dict[str, tuple[int, int, int]]:
    found = {}
    for path in sorted(root.rglob("*")):
        st = os.lstat(path)
        found[str(path.relative_to(root))] = (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode))
    return found


@needs_root
def test_a_copy_is_readable_by_the_uids_group_alone_and_keeps_execute_bits_and_links(
    tmp_path: Path,
) -> None:
    src = tmp_path / "pkg"
    (src / "bin").mkdir(parents=True)
    (src / "main.py").write_text("print('hi')\n")
    (src / "bin" / "run").write_text("#!/bin/sh\n")
    os.chmod(src / "bin" / "run", 0o700)
    os.chmod(src / "main.py", 0o666)
    (src / "link").symlink_to("main.py")
    copy = give_to_uid(src, tmp_path / "copy", 2_099_999)
    got = modes(copy)
    assert got["main.py"] == (0, 2_099_999, 0o640)
    assert got["bin"] == (0, 2_099_999, 0o750)
    assert got["bin/run"] == (0, 2_099_999, 0o750)
    assert os.readlink(copy / "link") == "main.py"
    assert stat.S_IMODE(os.stat(copy).st_mode) == 0o750


def test_an_existing_target_is_refused_and_left_alone(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    target = tmp_path / "taken"
    target.mkdir()
    (target / "keep").write_text("mine")
    with pytest.raises(FileExistsError):
        give_to_uid(tmp_path / "pkg", target, 2_099_999)
    assert (target / "keep").read_text() == "mine"


def test_private_dir_is_0700(tmp_path: Path) -> None:
    path = private_dir(tmp_path / "a" / "b")
    assert stat.S_IMODE(path.stat().st_mode) == 0o700


def test_the_library_is_keyed_by_its_content_so_two_checkouts_never_share_a_stale_one(
    tmp_path: Path,
) -> None:
    # A second checkout with the same sources gets the same directory; one whose sources differ
    # gets its own. Real files, no link back into any checkout.
    clone = tmp_path / "clone"
    for rel, _ in sandbox.LIBRARY_FILES:
        src, dst = REPO / rel, clone / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, dst)
    state = tmp_path / "state"
    state.mkdir()
    python = sys.executable
    ours = library_dir(REPO, sandbox.LIBRARY_FILES, state, python)
    theirs = library_dir(clone, sandbox.LIBRARY_FILES, state, python)
    assert ours == theirs
    other = tmp_path / "other"
    shutil.copytree(clone, other)
    (other / "engines" / "sdk.py").write_text("CHANGED = True\n")
    changed = library_dir(other, sandbox.LIBRARY_FILES, state, python)
    assert changed != ours
    assert (changed / "engines" / "sdk.py").read_text() == "CHANGED = True\n"
    assert (ours / "arena" / "rules" / "__init__.py").is_file()
    assert [p for p in ours.rglob("*") if p.is_symlink()] == []
    assert stat.S_IMODE((ours / "engines" / "sdk.py").stat().st_mode) == 0o644
    assert list((ours / "arena" / "rules").glob("__pycache__/*.pyc"))  # compiled once
