"""Backend choice: without isolation only curated snippets run, and the worker says why."""

from __future__ import annotations

import os

import pytest

from sandbox.curated import CuratedSnippets
from sandbox.errors import SandboxRejected
from sandbox.protocol import RunRequest
from sandbox.settings import SandboxSettings
from sandbox.worker import Worker, describe_backend
from tests.conftest import CONTENT

pytestmark = pytest.mark.slow

CURATED = "print('curated', 6 * 7)\n"


async def test_without_isolation_learner_code_is_refused_saying_why() -> None:
    async with Worker(SandboxSettings(backend="none"), curated=CuratedSnippets([CURATED])) as w:
        with pytest.raises(SandboxRejected, match="runs only the question bank's snippets"):
            await w.run(RunRequest(code="print('learner')\n"))
        assert not w.health().learner_code
        assert w.hello is not None
        assert "learner code will be REFUSED" in describe_backend(w.hello)


async def test_without_isolation_curated_snippets_still_run() -> None:
    async with Worker(SandboxSettings(backend="none"), curated=CuratedSnippets([CURATED])) as w:
        result = await w.run(RunRequest(code=CURATED))
    assert (result.stdout, result.backend) == ("curated 42\n", "none")


async def test_a_curated_result_is_served_from_the_cache_the_second_time() -> None:
    async with Worker(SandboxSettings(), curated=CuratedSnippets([CURATED])) as w:
        first = await w.run(RunRequest(code=CURATED))
        second = await w.run(RunRequest(code=CURATED))
        forced = await w.run(RunRequest(code=CURATED, use_cache=False))
    assert (first.cached, second.cached, forced.cached) == (False, True, False)
    assert second.stdout == first.stdout


async def test_the_container_backend_kills_a_daemon_and_removes_the_job_directory() -> None:
    code = (
        "import os, time\nprint(os.getcwd())\n"
        "if os.fork() == 0:\n    os.setsid()\n    time.sleep(1000)\n"
    )
    async with Worker(SandboxSettings(backend="container")) as w:
        result = await w.run(RunRequest(code=code))
        again = await w.run(RunRequest(code="print('next')\n"))
    workdir = result.stdout.strip()
    assert workdir.startswith("/tmp/tutor-job-")
    assert not os.path.exists(workdir)  # noqa: ASYNC240 - local file op, microseconds
    assert again.stdout == "next\n"


async def test_the_container_backend_names_the_file_limit_only_for_a_real_sigxfsz() -> None:
    big = "with open('big', 'wb') as f:\n    f.write(b'x' * (64 * 1024 * 1024))\n"
    async with Worker(SandboxSettings(backend="container")) as w:
        past_limit = await w.run(RunRequest(code=big))
        own_status = await w.run(RunRequest(code="import os\nos._exit(153)\n"))
    assert past_limit.status == "stopped: wrote a file past the file-size limit (16 MiB)"
    assert (own_status.status, own_status.exit_code) == ("exit 153", 153)


async def test_the_bank_snippets_load_while_the_zygote_starts_and_are_cached() -> None:
    bank = CuratedSnippets.load([CONTENT])
    snippet = next(bank.snippets())
    async with Worker(SandboxSettings(content=[CONTENT])) as w:  # no curated= given
        first = await w.run(RunRequest(code=snippet))
        second = await w.run(RunRequest(code=snippet))
        known = w.health().curated_snippets
    assert (first.cached, second.cached) == (False, True)
    assert known == len(bank)


async def test_a_one_job_worker_runs_its_job_without_the_warm_pools_heap_collapse() -> None:
    async with Worker(SandboxSettings(), curated=CuratedSnippets(), one_job=True) as w:
        result = await w.run(RunRequest(code="print('one')\n"))
        heap = w.hello.heap if w.hello else None
    assert result.stdout == "one\n"
    assert heap == ""
