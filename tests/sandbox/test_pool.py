"""Spreading jobs over several workers: the real HTTP service over fake workers (no torch)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from aiohttp.test_utils import TestServer

from bot.services import sandbox_runner
from bot.settings import SandboxEndpoint, TutorSettings
from sandbox.client import SandboxClient
from sandbox.errors import SandboxBusy, SandboxRejected, SandboxTimeout, SandboxUnavailable
from sandbox.graph_pictures import GraphPictures
from sandbox.pool import SandboxPool
from sandbox.protocol import PNG_SIGNATURE, RunRequest, RunResult
from sandbox.service import build_app
from tests.fake_sandbox import small_graph
from tests.sandbox.test_service import FakeWorker


class GatedWorker(FakeWorker):
    """A fake worker whose runs wait for :attr:`gate` (to hold jobs in flight)."""

    def __init__(self, arrivals: asyncio.Queue[int]) -> None:
        super().__init__()
        self.arrivals = arrivals
        self.gate = asyncio.Event()
        self.gate.set()

    async def run(self, request: RunRequest) -> RunResult:
        self.calls += 1
        self.arrivals.put_nowait(id(self))
        await self.gate.wait()
        self.calls -= 1
        return await super().run(request)


@pytest.fixture
def arrivals() -> asyncio.Queue[int]:
    return asyncio.Queue()


@pytest.fixture
def workers(arrivals: asyncio.Queue[int]) -> list[GatedWorker]:
    return [GatedWorker(arrivals), GatedWorker(arrivals)]


@pytest.fixture
async def pool(workers: list[GatedWorker]) -> AsyncIterator[SandboxPool]:
    servers = [TestServer(build_app(w, max_request_bytes=128 * 1024)) for w in workers]
    for server in servers:
        await server.start_server()
    clients = [SandboxClient(url=str(s.make_url("")), retries=0) for s in servers]
    try:
        async with SandboxPool(clients, retries=2, backoff_s=0.01) as made:
            yield made
    finally:
        for server in servers:
            await server.close()


async def test_idle_workers_take_turns(pool: SandboxPool, workers: list[GatedWorker]) -> None:
    for n in range(10):
        assert (await pool.run(f"print({n})")).stdout == f"print({n})"
    assert [w.calls for w in workers] == [5, 5]


async def test_a_job_goes_to_the_worker_with_fewer_jobs_in_flight(
    pool: SandboxPool, workers: list[GatedWorker], arrivals: asyncio.Queue[int]
) -> None:
    for worker in workers:
        worker.gate.clear()
    first = asyncio.create_task(pool.run("a"))
    await asyncio.wait_for(arrivals.get(), 5)
    second = asyncio.create_task(pool.run("b"))
    await asyncio.wait_for(arrivals.get(), 5)
    assert [w.calls for w in workers] == [1, 1]
    for worker in workers:
        worker.gate.set()
    assert [r.stdout for r in await asyncio.gather(first, second)] == ["a", "b"]


async def test_a_busy_worker_passes_the_job_on(
    pool: SandboxPool, workers: list[GatedWorker]
) -> None:
    workers[0].busy = workers[1].busy = 1
    assert (await pool.run("x")).status == "exit 0"


async def test_when_every_worker_stays_busy_the_pool_says_busy(
    pool: SandboxPool, workers: list[GatedWorker]
) -> None:
    workers[0].busy = workers[1].busy = 100
    with pytest.raises(SandboxBusy):
        await pool.run("x")


async def test_a_refusal_is_not_tried_on_another_worker(
    pool: SandboxPool, workers: list[GatedWorker]
) -> None:
    workers[0].refuse = workers[1].refuse = True
    with pytest.raises(SandboxRejected):
        await pool.run("x")


async def test_a_worker_that_is_down_is_skipped(tmp_path: Path) -> None:
    worker = FakeWorker()
    server = TestServer(build_app(worker, max_request_bytes=128 * 1024))
    await server.start_server()
    down = SandboxClient(unix_path=tmp_path / "nobody.sock", retries=0)
    up = SandboxClient(url=str(server.make_url("")), retries=0)
    try:
        async with SandboxPool([down, up], retries=0) as pool:
            for _ in range(3):
                assert (await pool.run("x")).status == "exit 0"
            assert (await pool.health()).ready
    finally:
        await server.close()
    assert worker.calls == 3


async def test_with_every_worker_down_the_pool_is_unavailable(tmp_path: Path) -> None:
    clients = [SandboxClient(unix_path=tmp_path / f"{n}.sock", retries=0) for n in range(2)]
    async with SandboxPool(clients, retries=1, backoff_s=0.01) as pool:
        with pytest.raises(SandboxUnavailable):
            await pool.run("x")
        with pytest.raises(SandboxUnavailable):
            await pool.health()


async def test_a_time_out_is_not_run_again_elsewhere(workers: list[GatedWorker]) -> None:
    servers = [TestServer(build_app(w, max_request_bytes=128 * 1024)) for w in workers]
    for server in servers:
        await server.start_server()
    clients = [SandboxClient(url=str(s.make_url("")), timeout_s=0.2, retries=0) for s in servers]
    for worker in workers:
        worker.gate.clear()
    try:
        async with SandboxPool(clients) as pool:
            with pytest.raises(SandboxTimeout):
                await pool.run("x")
            assert sum(w.calls for w in workers) == 1
    finally:
        for worker in workers:
            worker.gate.set()
        for server in servers:
            await server.close()


def test_several_addresses_are_several_endpoints() -> None:
    settings = TutorSettings(  # type: ignore[call-arg]
        _env_file=None, sandbox_address="unix:/run/a.sock, http://w2:8060"
    )
    assert settings.sandbox_endpoints == [
        SandboxEndpoint(kind="unix", unix_path=Path("/run/a.sock")),
        SandboxEndpoint(kind="http", url="http://w2:8060"),
    ]


async def test_the_services_spread_jobs_when_several_workers_are_listed() -> None:
    settings = TutorSettings(  # type: ignore[call-arg]
        _env_file=None, sandbox_address="unix:/run/a.sock,unix:/run/b.sock"
    )
    async with sandbox_runner(settings) as runner:
        assert isinstance(runner, SandboxPool)
        assert [c.unix_path for c in runner.clients] == [Path("/run/a.sock"), Path("/run/b.sock")]


async def test_a_graph_asked_of_the_pool_comes_back(pool: SandboxPool) -> None:
    assert (await pool.run("y = x * 2", graph=True)).graph is not None


async def test_a_picture_is_drawn_by_a_worker_that_answers_when_another_is_down() -> None:
    pictures = GraphPictures(executor=lambda: ThreadPoolExecutor(max_workers=1))
    server = TestServer(build_app(FakeWorker(), max_request_bytes=256 * 1024, pictures=pictures))
    await server.start_server()
    down = SandboxClient(url="http://127.0.0.1:9", retries=0)
    up = SandboxClient(url=str(server.make_url("")), retries=0)
    try:
        async with SandboxPool([down, up], retries=0) as spread:
            png = await spread.render_graph(small_graph(), title="TF5")
    finally:
        await server.close()
        pictures.close()
    assert png.startswith(PNG_SIGNATURE)
