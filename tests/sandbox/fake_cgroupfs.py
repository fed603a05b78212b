"""A simulated cgroup v2 filesystem under a temporary directory, for JobCgroup's v2 logic.

These machines are cgroup v1, so the v2 branch of :class:`sandbox.jail.JobCgroup` is tested
here against plain directories. :class:`FakeCgroupV2` replaces the three calls through which
``JobCgroup`` changes a cgroup filesystem (``cgroup_write``, ``cgroup_mkdir``,
``cgroup_rmdir``) and emulates what the kernel does on them, only as far as the tests need
(Documentation/admin-guide/cgroup-v2.rst):

* a new group gets the core files, ``cgroup.controllers`` equal to its parent's
  ``cgroup.subtree_control``, and the interface files of each of those controllers;
* ``+x`` in ``cgroup.subtree_control`` needs ``x`` in ``cgroup.controllers`` (else ENOENT)
  and, in any group but the real root, no process in the group (else EBUSY); the group's
  children then get ``x``'s files;
* a process moves into a group only if the group enables no controller for children
  (else EBUSY), and leaves every other group;
* ``cgroup.kill`` (Linux 5.14+) empties the group; ``memory.peak`` only exists from 5.19;
* ``rmdir`` fails with EBUSY while the group has processes or children.

Reads go to the real files, which hold the simulated state.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from sandbox import jail

CONTROLLER_FILES = {
    "memory": ("memory.max", "memory.swap.max", "memory.events", "memory.peak"),
    "pids": ("pids.max", "pids.events"),
}


class FakeCgroupV2:
    """A cgroup v2 hierarchy rooted at ``root``; installs itself into ``sandbox.jail``.

    Args:
        root: directory to build the hierarchy in (it becomes ``JobCgroup.ROOT``).
        monkeypatch: used to point ``JobCgroup.ROOT`` and the write calls here.
        controllers: what ``root``'s own ``cgroup.controllers`` lists (what its parent,
            outside the view, delegated).
        real_root: True for a host's real root (exempt from the no-internal-process rule),
            False for a container's cgroup namespace root or a delegated subtree.
        processes: pids already in ``root`` (the worker itself, in a container).
        kernel: (major, minor) of the simulated kernel, for ``cgroup.kill`` and
            ``memory.peak``.
    """

    def __init__(
        self,
        root: Path,
        monkeypatch: pytest.MonkeyPatch,
        *,
        controllers: tuple[str, ...] = ("cpu", "memory", "pids"),
        real_root: bool = True,
        processes: tuple[int, ...] = (),
        kernel: tuple[int, int] = (6, 8),
    ) -> None:
        self.root = root
        self.real_root = real_root
        self.kernel = kernel
        self.killed: list[Path] = []
        root.mkdir()
        self._write_file(root / "cgroup.controllers", " ".join(controllers))
        self._write_file(root / "cgroup.subtree_control", "")
        self._write_file(root / "cgroup.procs", "\n".join(map(str, processes)))
        monkeypatch.setattr(jail.JobCgroup, "ROOT", root)
        monkeypatch.setattr(jail, "cgroup_write", self.write)
        monkeypatch.setattr(jail, "cgroup_mkdir", self.mkdir)
        monkeypatch.setattr(jail, "cgroup_rmdir", self.rmdir)

    # -- what the kernel does

    def mkdir(self, path: Path) -> None:
        """``mkdir(2)`` in the cgroup filesystem: a child with its parent's controllers."""
        if path.exists():
            return
        if not path.parent.is_dir():
            raise FileNotFoundError(errno.ENOENT, "no parent cgroup", str(path))
        path.mkdir()
        enabled = self.words(path.parent / "cgroup.subtree_control")
        self._write_file(path / "cgroup.controllers", " ".join(sorted(enabled)))
        self._write_file(path / "cgroup.subtree_control", "")
        self._write_file(path / "cgroup.procs", "")
        self._write_file(path / "cgroup.events", "populated 0\nfrozen 0\n")
        if self.kernel >= (5, 14):
            self._write_file(path / "cgroup.kill", "")
        for controller in enabled:
            self._add_controller_files(path, controller)

    def rmdir(self, path: Path) -> None:
        """``rmdir(2)``: EBUSY while the group has processes or child groups."""
        if not path.is_dir():
            raise FileNotFoundError(errno.ENOENT, "no such cgroup", str(path))
        if self.procs(path) or any(p.is_dir() for p in path.iterdir()):
            raise OSError(errno.EBUSY, os.strerror(errno.EBUSY), str(path))
        for file in path.iterdir():
            file.unlink()
        path.rmdir()

    def write(self, path: Path, value: str) -> None:
        """``write(2)`` to an interface file, with the kernel's rules for the ones we use."""
        if not path.is_file():
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(path))
        group = path.parent
        if path.name == "cgroup.subtree_control":
            self._subtree_control(group, value)
        elif path.name == "cgroup.procs":
            self._move(group, int(value))
        elif path.name == "cgroup.kill":
            self.killed.append(group)
            self._write_file(path.parent / "cgroup.procs", "")
        elif path.name.endswith((".max",)):
            if value != "max" and not value.isdigit():
                raise OSError(errno.EINVAL, os.strerror(errno.EINVAL), str(path))
            self._write_file(path, value)
        else:
            raise OSError(errno.EINVAL, f"the fake does not emulate writes to {path.name}")

    def _subtree_control(self, group: Path, value: str) -> None:
        available = self.words(group / "cgroup.controllers")
        enabled = self.words(group / "cgroup.subtree_control")
        adds = {w[1:] for w in value.split() if w.startswith("+")}
        removes = {w[1:] for w in value.split() if w.startswith("-")}
        if not (adds | removes) <= available:
            raise OSError(errno.ENOENT, os.strerror(errno.ENOENT), str(group))
        if adds - enabled and self.procs(group) and not (group == self.root and self.real_root):
            raise OSError(errno.EBUSY, os.strerror(errno.EBUSY), str(group))
        enabled = (enabled | adds) - removes
        self._write_file(group / "cgroup.subtree_control", " ".join(sorted(enabled)))
        for child in (p for p in group.iterdir() if p.is_dir()):
            self._write_file(child / "cgroup.controllers", " ".join(sorted(enabled)))
            for controller in adds:
                self._add_controller_files(child, controller)

    def _move(self, group: Path, pid: int) -> None:
        is_real_root = group == self.root and self.real_root
        if self.words(group / "cgroup.subtree_control") and not is_real_root:
            raise OSError(errno.EBUSY, os.strerror(errno.EBUSY), str(group))
        for procs in self.root.rglob("cgroup.procs"):
            pids = self.procs(procs.parent)
            if pid in pids:
                pids.remove(pid)
                self._write_file(procs, "\n".join(map(str, pids)))
        self._write_file(group / "cgroup.procs", "\n".join(map(str, [*self.procs(group), pid])))

    def _add_controller_files(self, group: Path, controller: str) -> None:
        for name in CONTROLLER_FILES[controller]:
            if name == "memory.peak" and self.kernel < (5, 19):
                continue
            if not (group / name).exists():
                initial = "max" if name.endswith(".max") else "0"
                if name.endswith(".events"):
                    initial = "oom 0\noom_kill 0\n" if controller == "memory" else "max 0\n"
                self._write_file(group / name, initial)

    @staticmethod
    def _write_file(path: Path, text: str) -> None:
        path.write_text(text)

    # -- what a test reads

    @staticmethod
    def words(path: Path) -> set[str]:
        """The words of a file (a controller list)."""
        return set(path.read_text().split())

    @staticmethod
    def procs(group: Path) -> list[int]:
        """The pids in a group."""
        return [int(p) for p in (group / "cgroup.procs").read_text().split()]
