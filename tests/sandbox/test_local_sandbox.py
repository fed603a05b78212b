"""A local worker that cannot start says why, and leaves nothing behind (no torch needed).

The worker is made to fail fast with a bad ``TUTOR_SANDBOX_WALL_S``: the child ``tutor
sandbox serve`` refuses it before loading torch.
"""

from __future__ import annotations

import gc
import warnings
from pathlib import Path

import pytest

from bot.content.verify import SandboxRunner
from sandbox.client import LocalSandbox
from sandbox.errors import SandboxStartFailed, failure_reason
from tests.conftest import CONTENT

PROBLEM = "tutor sandbox: TUTOR_SANDBOX_WALL_S: Input should be greater than 0 (got '-1')"
BAD_WALL = {"TUTOR_SANDBOX_WALL_S": "-1"}


async def test_a_worker_that_exits_at_start_up_says_why_in_one_line() -> None:
    with pytest.raises(SandboxStartFailed) as failed:
        async with LocalSandbox(content=[CONTENT], env=BAD_WALL):
            pass
    message = str(failed.value)
    assert message == f"the local sandbox exited during start-up (status 2): {PROBLEM}"
    assert failed.value.reason == PROBLEM
    assert failed.value.log_tail[-1] == PROBLEM


async def test_a_failed_start_removes_the_workers_directory() -> None:
    local = LocalSandbox(content=[CONTENT], env=BAD_WALL)
    with pytest.raises(SandboxStartFailed):
        async with local:
            pass
    assert local._dir is not None
    assert not local._dir.exists()


async def test_an_interpreter_that_cannot_run_is_a_start_failure(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-python")
    with pytest.raises(SandboxStartFailed, match=r"could not be started with .*no-python"):
        async with LocalSandbox(content=[CONTENT], python=missing):
            pass


def _enter_failing_runner() -> None:
    try:
        with SandboxRunner(content=[CONTENT]):
            pytest.fail("the worker should not have started")
    except SandboxStartFailed:
        return


def test_a_verify_runner_whose_worker_fails_leaks_no_event_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TUTOR_SANDBOX_WALL_S", "-1")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _enter_failing_runner()
        gc.collect()
    leaks = [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]
    assert leaks == []


def test_a_start_failure_names_the_exception_not_the_generic_last_line() -> None:
    tail = (
        "Traceback (most recent call last):",
        '  File "<frozen runpy>", line 198, in _run_module_as_main',
        "ModuleNotFoundError: No module named 'torch'",
        "sandbox: the sandbox exited during start-up (status 1)",
    )
    assert failure_reason(tail) == "ModuleNotFoundError: No module named 'torch'"


def test_a_start_failure_without_an_exception_gives_the_last_line() -> None:
    assert failure_reason(("starting", "sandbox: out of spares")) == "sandbox: out of spares"
    assert failure_reason(()) == ""
