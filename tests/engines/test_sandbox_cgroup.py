"""The optional kernel memory cap: a child cgroup of a delegated subtree per engine.

The service creates cgroups only under a directory the operator delegated, so the unit tests
use a plain directory laid out like cgroupfs; ``BAO_TEST_CGROUP_PARENT`` (a delegated cgroup v2
directory with the memory controller enabled for its children) runs the real-kernel test too.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from engines.sandbox.cgroup import CgroupError, EngineCgroup


def _fake_parent(tmp_path: Path, controllers: str = "cpu memory") -> Path:
    parent = tmp_path / "delegated"
    parent.mkdir()
    (parent / "cgroup.procs").write_text("")
    (parent / "cgroup.subtree_control").write_text(controllers + "\n")
    return parent


def test_a_child_cgroup_gets_the_memory_cap_and_no_swap(tmp_path: Path) -> None:
    parent = _fake_parent(tmp_path)
    cgroup = EngineCgroup.create(parent, "engine-2100007", 1 << 30)
    assert cgroup.path.parent == parent and cgroup.path.name.startswith("engine-2100007-")
    assert (cgroup.path / "memory.max").read_text() == str(1 << 30)
    assert (cgroup.path / "memory.oom.group").read_text() == "1"


def test_with_the_cpu_controller_a_child_cgroup_gets_a_cpu_quota(tmp_path: Path) -> None:
    cgroup = EngineCgroup.create(_fake_parent(tmp_path), "engine", 1 << 30, cpu_cores=1.25)
    assert (cgroup.path / "cpu.max").read_text() == "125000 100000"


def test_without_the_cpu_controller_or_cores_no_cpu_quota_is_written(tmp_path: Path) -> None:
    memory_only = _fake_parent(tmp_path, "memory")
    assert not (EngineCgroup.create(memory_only, "a", 1 << 30, 1.25).path / "cpu.max").exists()
    (tmp_path / "delegated").rename(tmp_path / "old")
    both = _fake_parent(tmp_path)
    assert not (EngineCgroup.create(both, "b", 1 << 30, None).path / "cpu.max").exists()


def test_a_parent_that_is_not_a_cgroup_or_lacks_the_memory_controller_is_refused(
    tmp_path: Path,
) -> None:
    with pytest.raises(CgroupError, match="not a cgroup v2 directory"):
        EngineCgroup.create(tmp_path, "engine", 1 << 30)
    with pytest.raises(CgroupError, match="memory controller"):
        EngineCgroup.create(_fake_parent(tmp_path, "cpu"), "engine", 1 << 30)
    assert sorted(p.name for p in (tmp_path / "delegated").iterdir()) == [
        "cgroup.procs",
        "cgroup.subtree_control",
    ]


def test_an_oom_kill_is_read_from_memory_events(tmp_path: Path) -> None:
    cgroup = EngineCgroup.create(_fake_parent(tmp_path), "engine", 1 << 30)
    assert not cgroup.oom_killed()
    (cgroup.path / "memory.events").write_text("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n")
    assert cgroup.oom_killed()


@pytest.mark.skipif(not os.environ.get("BAO_TEST_CGROUP_PARENT"), reason="no delegated cgroup")
def test_the_kernel_kills_an_engine_over_its_cgroup_cap() -> None:
    parent = Path(os.environ["BAO_TEST_CGROUP_PARENT"])
    cgroup = EngineCgroup.create(parent, "engine-test", 64 << 20)
    # It waits before allocating: pages are charged to the cgroup they were touched in.
    script = "import time; time.sleep(0.5); b = b'x' * (256 << 20); time.sleep(60)"
    hog = subprocess.Popen([sys.executable, "-c", script])
    try:
        cgroup.adopt(hog.pid)
        assert hog.wait(30) == -9
        assert cgroup.oom_killed()
    finally:
        hog.kill()
        hog.wait()
        cgroup.remove()
    assert not cgroup.path.exists()
