"""JobCgroup on a pure cgroup v2 host, against a simulated cgroupfs (tests/sandbox/fake_cgroupfs).

These machines are cgroup v1 (the real v1 path runs in the slow sandbox tests); what is
checked here is what JobCgroup writes where, and what it makes of the kernel's answers.
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from sandbox import jail, zygote
from sandbox.jail import JobCgroup

from .fake_cgroupfs import FakeCgroupV2

MiB = 1024 * 1024


def ready_leaf(fake: FakeCgroupV2, name: str = "123-1") -> JobCgroup:
    """A job's leaf made the way the zygote makes it: available(), then create()."""
    assert JobCgroup.available() is None
    cgroup = JobCgroup(name)
    cgroup.create(256 * MiB, 64)
    return cgroup


def test_a_unified_root_is_recognised_as_v2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    FakeCgroupV2(tmp_path / "cg", monkeypatch)
    assert JobCgroup.unified()
    assert JobCgroup("123-1").dirs == [tmp_path / "cg" / "tutor-sandbox" / "123-1"]


def test_controllers_are_enabled_from_the_visible_root_down(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    fake = FakeCgroupV2(tmp_path / "cg", monkeypatch)
    assert JobCgroup.available() is None
    parent = fake.root / "tutor-sandbox"
    assert {"memory", "pids"} <= fake.words(fake.root / "cgroup.subtree_control")
    assert {"memory", "pids"} <= fake.words(parent / "cgroup.controllers")
    assert {"memory", "pids"} <= fake.words(parent / "cgroup.subtree_control")


def test_a_leaf_gets_its_memory_swap_and_pids_limits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    fake = FakeCgroupV2(tmp_path / "cg", monkeypatch)
    leaf = ready_leaf(fake).dirs[0]
    assert (leaf / "memory.max").read_text() == str(256 * MiB)
    assert (leaf / "memory.swap.max").read_text() == "0"
    assert (leaf / "pids.max").read_text() == "64"


def test_the_probe_leaf_is_removed_after_the_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    fake = FakeCgroupV2(tmp_path / "cg", monkeypatch)
    assert JobCgroup.available() is None
    assert [p for p in (fake.root / "tutor-sandbox").iterdir() if p.is_dir()] == []


def test_processes_in_a_container_root_move_to_init_before_controllers_are_enabled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    fake = FakeCgroupV2(tmp_path / "cg", monkeypatch, real_root=False, processes=(1, 7))
    assert JobCgroup.available() is None
    assert fake.procs(fake.root) == []
    assert fake.procs(fake.root / "init") == [1, 7]
    assert {"memory", "pids"} <= fake.words(fake.root / "cgroup.subtree_control")


def test_the_real_root_keeps_its_processes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    fake = FakeCgroupV2(tmp_path / "cg", monkeypatch, real_root=True, processes=(1, 7))
    assert JobCgroup.available() is None
    assert fake.procs(fake.root) == [1, 7]
    assert not (fake.root / "init").exists()


def test_a_parent_left_without_controllers_is_repaired(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    fake = FakeCgroupV2(tmp_path / "cg", monkeypatch)
    fake.mkdir(fake.root / "tutor-sandbox")  # left by an older version, nothing enabled
    leaf = ready_leaf(fake).dirs[0]
    assert (leaf / "memory.max").read_text() == str(256 * MiB)


def test_missing_controllers_make_the_backend_unavailable_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    FakeCgroupV2(tmp_path / "cg", monkeypatch, controllers=("cpu", "memory"))
    why = JobCgroup.available()
    assert why is not None
    assert "pids" in why


def test_a_busy_parent_makes_the_backend_unavailable_instead_of_failing_jobs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    fake = FakeCgroupV2(tmp_path / "cg", monkeypatch)
    parent = fake.root / "tutor-sandbox"
    fake.mkdir(parent)
    fake.write(parent / "cgroup.procs", "4242")  # someone put a process in it
    why = JobCgroup.available()
    assert why is not None
    assert str(parent) in why
    assert "no-internal-process" in why


def test_namespaces_backend_reports_the_cgroup_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    if os.geteuid() != 0:
        pytest.skip("namespaces_unavailable checks for root first")
    FakeCgroupV2(tmp_path / "cg", monkeypatch, controllers=("memory",))
    why = zygote.namespaces_unavailable()
    assert why is not None
    assert "lacks the pids controller" in why


def test_a_leaf_without_controller_files_is_refused_and_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    fake = FakeCgroupV2(tmp_path / "cg", monkeypatch)
    assert JobCgroup.available() is None
    fake.write(fake.root / "tutor-sandbox" / "cgroup.subtree_control", "-memory -pids")
    cgroup = JobCgroup("123-1")
    with pytest.raises(OSError, match="does not enable the memory and pids") as info:
        cgroup.create(256 * MiB, 64)
    assert info.value.errno == errno.ENOENT
    assert not cgroup.dirs[0].exists()


def test_join_moves_the_caller_into_the_leaf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    fake = FakeCgroupV2(tmp_path / "cg", monkeypatch)
    cgroup = ready_leaf(fake)
    cgroup.join()
    assert cgroup.pids() == [os.getpid()]


def test_stats_read_oom_kills_peak_and_pids_limit_hits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    fake = FakeCgroupV2(tmp_path / "cg", monkeypatch)
    leaf = ready_leaf(fake).dirs[0]
    (leaf / "memory.events").write_text("low 0\nhigh 0\nmax 9\noom 1\noom_kill 1\n")
    (leaf / "memory.peak").write_text(str(300 * MiB))
    (leaf / "pids.events").write_text("max 3\n")
    stats = JobCgroup("123-1").stats()
    assert stats == jail.CgroupStats(oom_kills=1, peak_bytes=300 * MiB, pids_max_hits=3)


def test_a_host_oom_kill_is_not_reported_as_the_jobs_memory_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    fake = FakeCgroupV2(tmp_path / "cg", monkeypatch)
    leaf = ready_leaf(fake).dirs[0]
    (leaf / "memory.events").write_text("low 0\nhigh 0\nmax 0\noom 0\noom_kill 1\n")
    assert JobCgroup("123-1").stats().oom_kills == 0


def test_peak_is_unknown_before_linux_5_19(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    fake = FakeCgroupV2(tmp_path / "cg", monkeypatch, kernel=(5, 15))
    cgroup = ready_leaf(fake)
    assert not (cgroup.dirs[0] / "memory.peak").exists()
    assert cgroup.stats().peak_bytes is None


def test_kill_all_writes_cgroup_kill_when_the_kernel_has_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    fake = FakeCgroupV2(tmp_path / "cg", monkeypatch, kernel=(5, 14))
    cgroup = ready_leaf(fake)
    fake.write(cgroup.dirs[0] / "cgroup.procs", "999999")
    signalled: list[int] = []
    monkeypatch.setattr(jail.os, "kill", lambda pid, sig: signalled.append(pid))
    assert cgroup.kill_all(timeout_s=1.0)
    assert fake.killed == [cgroup.dirs[0]]
    assert signalled == []


def test_kill_all_signals_each_process_before_linux_5_14(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    fake = FakeCgroupV2(tmp_path / "cg", monkeypatch, kernel=(5, 10))
    cgroup = ready_leaf(fake)
    leaf = cgroup.dirs[0]
    fake.write(leaf / "cgroup.procs", "999999")
    signalled: list[tuple[int, int]] = []

    def kill(pid: int, sig: int) -> None:  # the process dies and leaves its group
        signalled.append((pid, sig))
        (leaf / "cgroup.procs").write_text("")

    monkeypatch.setattr(jail.os, "kill", kill)
    assert cgroup.kill_all(timeout_s=1.0)
    assert signalled == [(999999, signal.SIGKILL)]


def test_remove_deletes_the_leaf_once_empty(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    fake = FakeCgroupV2(tmp_path / "cg", monkeypatch)
    cgroup = ready_leaf(fake)
    cgroup.remove()
    assert not cgroup.dirs[0].exists()


def test_sweep_removes_leaves_of_dead_zygotes_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    fake = FakeCgroupV2(tmp_path / "cg", monkeypatch)
    assert JobCgroup.available() is None
    dead = 2**22 + 1  # above pid_max's default ceiling: no process has it
    fake.mkdir(fake.root / "tutor-sandbox" / f"{dead}-1")
    fake.mkdir(fake.root / "tutor-sandbox" / f"{os.getpid()}-1")
    JobCgroup.sweep_stale()
    names = sorted(p.name for p in (fake.root / "tutor-sandbox").iterdir() if p.is_dir())
    assert names == [f"{os.getpid()}-1"]


def cgroup2_mount() -> Path | None:
    """Where a cgroup2 hierarchy is mounted (hybrid hosts: /sys/fs/cgroup/unified), if any."""
    for line in Path("/proc/self/mounts").read_text().splitlines():
        _, target, fstype, options, *_ = line.split()
        if fstype == "cgroup2" and "rw" in options.split(","):
            return Path(target)
    return None


@pytest.mark.slow
def test_kill_all_empties_a_real_v2_group_through_cgroup_kill(monkeypatch: pytest.MonkeyPatch):
    """The one v2 behaviour these v1 hosts can run for real: their cgroup2 mount has no
    memory or pids controller, but every group there has cgroup.procs and cgroup.kill."""
    mount = cgroup2_mount()
    if mount is None or os.geteuid() != 0:
        pytest.skip("needs root and a writable cgroup2 mount")
    monkeypatch.setattr(JobCgroup, "ROOT", mount)
    parent = mount / JobCgroup.PARENT
    made_parent = not parent.exists()
    jail.cgroup_mkdir(parent)
    cgroup = JobCgroup(f"{os.getpid()}-real-kill")
    leaf = cgroup.dirs[0]
    jail.cgroup_mkdir(leaf)
    try:
        if not (leaf / "cgroup.kill").exists():
            pytest.skip("kernel older than 5.14: no cgroup.kill")
        job = subprocess.Popen(
            ["sh", "-c", "sleep 60 & exec sleep 60"],
            preexec_fn=lambda: jail.cgroup_write(leaf / "cgroup.procs", str(os.getpid())),
        )
        deadline = time.monotonic() + 5
        while len(cgroup.pids()) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(cgroup.pids()) == 2
        signalled: list[int] = []
        monkeypatch.setattr(jail.os, "kill", lambda pid, sig: signalled.append(pid))
        assert cgroup.kill_all(timeout_s=5.0)
        assert job.wait(5) == -signal.SIGKILL
        assert signalled == []
    finally:
        monkeypatch.undo()
        cgroup.kill_all()
        cgroup.remove()
        if made_parent:
            parent.rmdir()
    assert not leaf.exists()
