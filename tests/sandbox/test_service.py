"""The HTTP service and the client, against a fake worker (no torch, milliseconds)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp.test_utils import TestServer

from sandbox.client import SandboxClient
from sandbox.errors import SandboxBusy, SandboxRejected, SandboxUnavailable
from sandbox.protocol import (
    AutogradGraph,
    GraphNode,
    Health,
    JobOutcome,
    Limits,
    RunRequest,
    RunResult,
)
from sandbox.service import build_app
from sandbox.trace import ServerTiming

GRAPH = AutogradGraph(nodes=[GraphNode(id=0, kind="backward", label="MulBackward0")])


class FakeWorker:
    """Answers every run with ``exit 0`` after ``busy`` "busy" answers; counts calls."""

    def __init__(self, busy: int = 0, refuse: bool = False) -> None:
        self.busy = busy
        self.refuse = refuse
        self.calls = 0

    async def run(self, request: RunRequest) -> RunResult:
        self.calls += 1
        if self.refuse:
            raise SandboxRejected("this sandbox runs only the question bank's snippets")
        if self.busy:
            self.busy -= 1
            raise SandboxBusy("the sandbox is busy; retry after 1 s", 0.01)
        outcome = JobOutcome(stdout=request.code, exit_code=0)
        graph = GRAPH if request.graph else None
        return RunResult.from_outcome(outcome, Limits(), "namespaces", "2.13.0", graph=graph)

    def health(self) -> Health:
        return Health(
            ready=True,
            backend="namespaces",
            learner_code=True,
            isolated=["x"],
            not_isolated=[],
            reason="test",
            torch_version="2.13.0",
            running=0,
            queued=0,
            concurrency=2,
            queue_limit=8,
            curated_snippets=0,
            cached_results=0,
            limits=Limits(),
        )


async def _serve(worker: FakeWorker) -> AsyncIterator[SandboxClient]:
    server = TestServer(build_app(worker, max_request_bytes=128 * 1024))
    await server.start_server()
    try:
        async with SandboxClient(url=str(server.make_url("")), retries=2, backoff_s=0.01) as c:
            yield c
    finally:
        await server.close()


@pytest.fixture
async def client() -> AsyncIterator[SandboxClient]:
    async for c in _serve(FakeWorker()):
        yield c


async def test_a_run_returns_the_result(client: SandboxClient) -> None:
    result = await client.run("print(1)")
    assert (result.stdout, result.status) == ("print(1)", "exit 0")


async def test_a_graph_asked_for_comes_back_through_the_service(client: SandboxClient) -> None:
    assert (await client.run("y = x * 2", graph=True)).graph == GRAPH
    assert (await client.run("y = x * 2")).graph is None


async def test_health_reports_the_backend(client: SandboxClient) -> None:
    assert (await client.health()).backend == "namespaces"


async def test_a_body_over_the_request_limit_is_refused_as_too_large(
    client: SandboxClient,
) -> None:
    session = client._client()
    async with session.post(client.base_url + "/run", data=b"x" * (200 * 1024)) as response:
        assert response.status == 413
        assert (await response.json())["error"] == "too_large"


async def test_invalid_json_is_refused_naming_the_problem(client: SandboxClient) -> None:
    session = client._client()
    async with session.post(client.base_url + "/run", data=b'{"code": 1}') as response:
        assert response.status == 422
        assert (await response.json())["message"].startswith("code:")


async def test_an_oversized_snippet_is_refused_before_sending() -> None:
    client = SandboxClient(url="http://127.0.0.1:9")
    with pytest.raises(SandboxRejected, match="bytes; the limit is 65,536"):
        await client.run("a" * (1024 * 1024))


async def test_busy_is_retried_until_a_slot_frees() -> None:
    worker = FakeWorker(busy=2)
    async for client in _serve(worker):
        assert (await client.run("1")).ok
    assert worker.calls == 3


async def test_busy_after_every_retry_raises_busy_with_retry_after() -> None:
    async for client in _serve(FakeWorker(busy=10)):
        with pytest.raises(SandboxBusy) as caught:
            await client.run("1")
        assert caught.value.retry_after_s > 0


async def test_a_refusal_is_not_retried() -> None:
    worker = FakeWorker(refuse=True)
    async for client in _serve(worker):
        with pytest.raises(SandboxRejected, match="only the question bank"):
            await client.run("1")
    assert worker.calls == 1


async def test_a_missing_service_is_unavailable(tmp_path: Path) -> None:
    client = SandboxClient(unix_path=tmp_path / "absent.sock", retries=1, backoff_s=0.01)
    with pytest.raises(SandboxUnavailable, match="cannot be reached"):
        await client.run("1")
    await client.close()


async def test_a_run_answer_carries_its_hops_as_server_timing(client: SandboxClient) -> None:
    session = client._client()
    async with session.post(client.base_url + "/run", data=b'{"code": "1"}') as response:
        timing = ServerTiming.parse(response.headers["Server-Timing"])
    assert [p.name for p in timing.phases] == ["parse", "respond"]


async def test_serve_on_port_0_prints_the_port_the_os_bound(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio
    import re
    import socket
    from concurrent.futures import ThreadPoolExecutor

    import sandbox.service
    from sandbox.graph_pictures import GraphPictures
    from sandbox.service import serve

    monkeypatch.setattr(
        sandbox.service,
        "GraphPictures",
        lambda: GraphPictures(executor=lambda: ThreadPoolExecutor(1)),
    )
    stop = asyncio.Event()
    task = asyncio.create_task(serve(FakeWorker(), 128 * 1024, port=0, stop=stop))
    err = ""
    for _ in range(500):
        err += capsys.readouterr().err
        if "listening" in err:
            break
        await asyncio.sleep(0.01)
    match = re.fullmatch(r"sandbox: listening on http://127\.0\.0\.1:(\d+)\n", err)
    try:
        assert match is not None, err
        port = int(match.group(1))
        assert port != 0
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass  # the printed port is the one served
    finally:
        stop.set()
        await task
