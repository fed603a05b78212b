"""The namespaces backend works from any path, and leaves no jail root behind.

CI clones to an unknown path; a checkout (and its ``.venv``) under ``/tmp`` used to fail:
the jail bound the venv under the jail root's ``tmp`` and each job's private ``/tmp`` tmpfs
would have hidden it. Here a venv-like tree under ``/tmp`` runs the zygote, and a job
imports a module from it that the zygote never loaded. Real torch, real jail: root only.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import site
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox.curated import CuratedSnippets
from sandbox.errors import SandboxUnavailable
from sandbox.jail import JAIL_ROOT_PREFIX
from sandbox.protocol import RunRequest, RunResult
from sandbox.settings import SandboxSettings
from sandbox.worker import Worker

pytestmark = pytest.mark.slow

PROBE = "tutor_lazy_probe"
"""A module only the venv under /tmp has; the zygote never imports it."""


@pytest.fixture(autouse=True)
def _needs_root() -> None:
    if os.geteuid() != 0:
        pytest.skip("the namespaces backend needs root (CI runs as root)")


def make_venv(where: Path) -> Path:
    """A venv-like tree at ``where`` whose python sees this environment's packages.

    ``pyvenv.cfg`` makes ``where`` the interpreter's ``sys.prefix``; a ``.pth`` file adds the
    site-packages that hold torch; the probe module lies in the tree's own site-packages.

    Returns:
        The tree's ``bin/python``.
    """
    base = Path(getattr(sys, "_base_executable", sys.executable)).resolve()
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    packages = where / "lib" / version / "site-packages"
    packages.mkdir(parents=True)
    (where / "bin").mkdir()
    (where / "bin" / "python").symlink_to(base)
    (where / "pyvenv.cfg").write_text(
        f"home = {base.parent}\ninclude-system-site-packages = false\n"
    )
    (packages / "outer.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    (packages / f"{PROBE}.py").write_text("WHERE = __file__\n")
    return where / "bin" / "python"


@pytest.fixture(scope="module")
def tmp_venv() -> Iterator[Path]:
    """A venv-like tree directly under /tmp (pytest's tmp_path may be elsewhere)."""
    where = Path(tempfile.mkdtemp(prefix="tutor-test-venv-", dir="/tmp"))
    try:
        yield make_venv(where / "venv")
    finally:
        shutil.rmtree(where)


class RunningWorker:
    """A worker on its own event loop, for synchronous tests sharing one zygote."""

    def __init__(self, settings: SandboxSettings) -> None:
        self.loop = asyncio.new_event_loop()
        self.worker = Worker(settings, curated=CuratedSnippets([]))
        self.loop.run_until_complete(self.worker.start())

    def run(self, code: str) -> RunResult:
        return self.loop.run_until_complete(self.worker.run(RunRequest(code=code)))

    def close(self) -> None:
        self.loop.run_until_complete(self.worker.close())
        self.loop.close()


@pytest.fixture(scope="module")
def venv_worker(tmp_venv: Path) -> Iterator[RunningWorker]:
    running = RunningWorker(
        SandboxSettings(python=str(tmp_venv), backend="namespaces", concurrency=1)
    )
    yield running
    running.close()


def test_a_python_under_tmp_runs_jobs_that_import_from_it(
    venv_worker: RunningWorker, tmp_venv: Path
) -> None:
    result = venv_worker.run(f"import {PROBE}\nprint({PROBE}.WHERE)\n")
    assert result.ok, result.stderr
    assert result.stdout.strip().startswith(str(tmp_venv.parent.parent))
    assert result.backend == "namespaces"


def test_a_python_under_tmp_is_read_only_to_jobs(venv_worker: RunningWorker) -> None:
    code = (
        f"import os, {PROBE}\n"
        f"where = os.path.dirname({PROBE}.__file__)\n"
        "try:\n"
        "    open(os.path.join(where, 'planted.py'), 'w')\n"
        "except OSError as exc:\n"
        "    print('refused', exc.errno)\n"
    )
    result = venv_worker.run(code)
    assert result.stdout.startswith("refused"), result.stdout + result.stderr


def test_jobs_still_get_a_private_tmp_next_to_a_python_under_tmp(
    venv_worker: RunningWorker,
) -> None:
    first = venv_worker.run("open('/tmp/mine', 'w').write('x')\nprint('wrote')\n")
    second = venv_worker.run("import os\nprint(os.path.exists('/tmp/mine'))\n")
    assert (first.stdout, second.stdout) == ("wrote\n", "False\n")


def jail_root_of(zygote_pid: int) -> Path:
    """The jail root's directory, from the zygote's own view of its mounts."""
    for line in Path(f"/proc/{zygote_pid}/mountinfo").read_text().splitlines():
        mount_point = Path(line.split()[4])
        if mount_point.name.startswith(JAIL_ROOT_PREFIX):
            return mount_point
    raise AssertionError(f"zygote {zygote_pid} has no jail root mounted")


async def test_the_jail_root_is_removed_when_the_worker_stops() -> None:
    async with Worker(SandboxSettings(backend="namespaces"), curated=CuratedSnippets([])) as w:
        assert w.zygote_pid is not None
        root = jail_root_of(w.zygote_pid)
        assert root.is_dir()
    assert not root.exists()


async def test_the_jail_root_is_removed_after_the_zygote_was_killed() -> None:
    worker = Worker(SandboxSettings(backend="namespaces"), curated=CuratedSnippets([]))
    await worker.start()
    assert worker.zygote_pid is not None
    root = jail_root_of(worker.zygote_pid)
    os.kill(worker.zygote_pid, signal.SIGKILL)
    await worker.close()
    assert not root.exists()


async def test_a_zygote_that_cannot_build_its_jail_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "gone"
    monkeypatch.setattr(tempfile, "tempdir", str(missing))
    worker = Worker(SandboxSettings(backend="namespaces"), curated=CuratedSnippets([]))
    with pytest.raises(SandboxUnavailable) as failed:
        await worker.start()
    assert str(failed.value).startswith(
        f"the sandbox could not start: the jail root could not be built in {missing}: "
    )
    assert "No such file or directory" in str(failed.value)
