"""The ``container`` backend relies on the sandbox container's wall (no network, read-only
root): ``auto`` does not pick it without that wall, and forcing it there warns loudly."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sandbox import zygote
from tests.conftest import run_tutor


@pytest.fixture
def bare_container(monkeypatch: pytest.MonkeyPatch) -> None:
    """A container marker, no namespaces, and no wall (a dev machine's container)."""
    monkeypatch.setattr(zygote, "namespaces_unavailable", lambda: "not running as root")
    monkeypatch.setattr(zygote, "in_container", lambda: True)
    monkeypatch.setattr(zygote, "container_wall_missing", lambda: ["the root is writable"])


def test_auto_in_a_container_without_its_wall_runs_curated_snippets_only(
    bare_container: None,
) -> None:
    backend, reason = zygote.choose_backend("auto")
    assert backend == "none"
    assert "without the sandbox's outer wall (the root is writable)" in reason


def test_forcing_the_container_backend_without_its_wall_says_so(bare_container: None) -> None:
    backend, reason = zygote.choose_backend("container")
    assert backend == "container"
    assert reason.startswith(zygote.CONTAINER_WALL_MISSING)


def test_inside_the_walled_container_auto_picks_the_container_backend(
    monkeypatch: pytest.MonkeyPatch, bare_container: None
) -> None:
    monkeypatch.setattr(zygote, "container_wall_missing", list)
    assert zygote.choose_backend("auto")[0] == "container"


@pytest.mark.slow
@pytest.mark.skipif(
    bool(os.statvfs("/").f_flag & os.ST_RDONLY), reason="needs a writable root (no wall)"
)
def test_sandbox_run_with_a_forced_container_backend_warns_on_stderr(tmp_path: Path) -> None:
    snippet = tmp_path / "hi.py"
    snippet.write_text("print('hi')\n")
    done = run_tutor("sandbox", "run", str(snippet), "--backend", "container")
    assert done.stdout == "hi\n"
    assert f"sandbox: {zygote.CONTAINER_WALL_MISSING}" in done.stderr
    assert "the root filesystem is writable" in done.stderr
