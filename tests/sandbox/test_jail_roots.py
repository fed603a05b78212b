"""Jail root directories on the host: the ones a zygote left are removed, live ones kept."""

from __future__ import annotations

import os
from pathlib import Path

from sandbox.jail import JAIL_ROOT_PREFIX, remove_jail_roots, sweep_stale_jail_roots

DEAD_PID = 2**22 + 12345
"""Above the kernel's pid_max maximum (4,194,304), so no process has it."""


def _root(parent: Path, suffix: str) -> Path:
    path = parent / f"{JAIL_ROOT_PREFIX}{suffix}"
    path.mkdir()
    return path


def test_the_sweep_removes_roots_whose_zygote_is_gone(tmp_path: Path) -> None:
    stale = _root(tmp_path, f"{DEAD_PID}-abcd1234")
    assert sweep_stale_jail_roots(tmp_path) == [stale]
    assert not stale.exists()


def test_the_sweep_keeps_roots_of_a_running_zygote(tmp_path: Path) -> None:
    live = _root(tmp_path, f"{os.getpid()}-abcd1234")
    assert sweep_stale_jail_roots(tmp_path) == []
    assert live.is_dir()


def test_the_sweep_keeps_roots_without_an_owner_pid(tmp_path: Path) -> None:
    # Older zygotes named their roots tutor-sandbox-root-XXXXXXXX: no way to tell if alive.
    old = _root(tmp_path, "12345678")
    assert sweep_stale_jail_roots(tmp_path) == []
    assert old.is_dir()


def test_the_sweep_never_removes_a_root_that_is_not_empty(tmp_path: Path) -> None:
    stale = _root(tmp_path, f"{DEAD_PID}-abcd1234")
    (stale / "usr").mkdir()
    assert sweep_stale_jail_roots(tmp_path) == []
    assert stale.is_dir()


def test_removing_a_zygotes_roots_leaves_other_zygotes_roots(tmp_path: Path) -> None:
    mine = _root(tmp_path, "4242-abcd1234")
    other = _root(tmp_path, "42420-abcd1234")
    assert remove_jail_roots(tmp_path, 4242) == [mine]
    assert other.is_dir()
