"""``POST /graph.png`` and :class:`GraphPictures`: pictures drawn beside the worker service.

Most tests draw in a thread (same drawing function, no process start-up); the slow ones use
the default ``spawn`` render process, as ``tutor sandbox serve`` does.
"""

from __future__ import annotations

import asyncio
import os
import struct
import threading
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Executor, ThreadPoolExecutor

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from sandbox import graph_pictures
from sandbox.client import SandboxClient
from sandbox.errors import SandboxBusy, SandboxRejected, SandboxUnavailable
from sandbox.graph_pictures import GraphPictures, draw_png
from sandbox.protocol import (
    MAX_GRAPH_REQUEST_BYTES,
    PNG_SIGNATURE,
    GraphPictureRequest,
)
from sandbox.service import build_app
from tests.fake_sandbox import small_graph
from tests.sandbox.test_service import FakeWorker


def png_size(png: bytes) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR chunk."""
    assert png.startswith(PNG_SIGNATURE)
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def in_a_thread() -> Executor:
    return ThreadPoolExecutor(max_workers=1)


def request(title: str = "TF5") -> GraphPictureRequest:
    return GraphPictureRequest(graph=small_graph(), title=title)


async def _serve(pictures: GraphPictures) -> AsyncIterator[SandboxClient]:
    server = TestServer(build_app(FakeWorker(), max_request_bytes=256 * 1024, pictures=pictures))
    await server.start_server()
    try:
        async with SandboxClient(url=str(server.make_url("")), retries=1, backoff_s=0.01) as c:
            yield c
    finally:
        await server.close()
        pictures.close()


@pytest.fixture
async def client() -> AsyncIterator[SandboxClient]:
    async for c in _serve(GraphPictures(executor=in_a_thread)):
        yield c


# --- the HTTP route and the client ---------------------------------------------------------


async def test_the_service_draws_a_graph_as_a_png_sized_for_discord(
    client: SandboxClient,
) -> None:
    png = await client.render_graph(small_graph(), title="TF5")
    width, height = png_size(png)
    assert 800 <= width <= 1200
    assert 300 <= height <= 1600


async def test_a_graph_that_fails_validation_is_refused_naming_the_problem(
    client: SandboxClient,
) -> None:
    body = small_graph().model_dump()
    body["edges"].append({"source": 0, "target": 42, "kind": "next"})
    session = client._client()
    async with session.post(client.base_url + "/graph.png", json={"graph": body}) as response:
        assert response.status == 422
        assert (await response.json())["message"] == "graph: edges.3: no node has the id 42"


async def test_a_body_over_the_graph_limit_is_refused_as_too_large(client: SandboxClient) -> None:
    session = client._client()
    body = b" " * (MAX_GRAPH_REQUEST_BYTES + 1)
    async with session.post(client.base_url + "/graph.png", data=body) as response:
        assert response.status == 413
        assert (await response.json())["error"] == "too_large"


async def test_a_title_with_control_characters_is_refused_before_sending() -> None:
    client = SandboxClient(url="http://127.0.0.1:9")
    with pytest.raises(SandboxRejected) as refused:
        await client.render_graph(small_graph(), title="TF5\x1b[31m")
    assert refused.value.code == "invalid"
    assert str(refused.value).startswith("title: contains the control character U+001B")


async def test_a_worker_without_the_renderer_answers_unsupported(
    client: SandboxClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(graph_pictures, "renderer_installed", lambda: False)
    with pytest.raises(SandboxRejected) as refused:
        await client.render_graph(small_graph())
    assert refused.value.code == "unsupported"


async def test_a_worker_from_before_graph_pictures_reads_as_unsupported() -> None:
    server = TestServer(web.Application())  # no /graph.png: aiohttp answers 404
    await server.start_server()
    try:
        async with SandboxClient(url=str(server.make_url("")), retries=0) as client:
            with pytest.raises(SandboxRejected) as refused:
                await client.render_graph(small_graph())
    finally:
        await server.close()
    assert refused.value.code == "unsupported"


async def test_a_missing_run_route_is_not_mistaken_for_missing_pictures() -> None:
    server = TestServer(web.Application())
    await server.start_server()
    try:
        async with SandboxClient(url=str(server.make_url("")), retries=0) as client:
            with pytest.raises(SandboxRejected) as refused:
                await client.run("print(1)")
    finally:
        await server.close()
    assert refused.value.code == "invalid"


def _raise(request_json: str) -> bytes:
    raise ValueError("a renderer bug")


async def test_a_renderer_failure_is_answered_failed_without_its_details() -> None:
    async for client in _serve(GraphPictures(executor=in_a_thread, draw=_raise)):
        with pytest.raises(SandboxRejected) as refused:
            await client.render_graph(small_graph())
    assert refused.value.code == "failed"
    assert "renderer bug" not in str(refused.value)


# --- GraphPictures: sharing, keeping, bounds -----------------------------------------------


class Gate:
    """A drawing function (for a thread executor) that counts calls and can be held."""

    def __init__(self) -> None:
        self.calls = 0
        self.open = threading.Event()
        self.open.set()

    def __call__(self, request_json: str) -> bytes:
        self.calls += 1
        self.open.wait(10)
        return PNG_SIGNATURE + request_json.encode()


def pictures_with(gate: Gate, **options: object) -> GraphPictures:
    draw: Callable[[str], bytes] = gate
    return GraphPictures(executor=in_a_thread, draw=draw, **options)  # type: ignore[arg-type]


async def test_identical_requests_at_once_share_one_drawing() -> None:
    gate = Gate()
    gate.open.clear()
    pictures = pictures_with(gate)
    waiting = [asyncio.create_task(pictures.draw(request())) for _ in range(5)]
    await asyncio.sleep(0.05)
    gate.open.set()
    pngs = await asyncio.gather(*waiting)
    pictures.close()
    assert gate.calls == 1
    assert len(set(pngs)) == 1


async def test_a_picture_drawn_before_is_answered_without_drawing_again() -> None:
    gate = Gate()
    pictures = pictures_with(gate)
    first = await pictures.draw(request())
    again = await pictures.draw(request())
    other = await pictures.draw(request(title="TF6"))
    pictures.close()
    assert (gate.calls, first == again, other == first) == (2, True, False)


async def test_only_the_latest_pictures_are_kept() -> None:
    gate = Gate()
    pictures = pictures_with(gate, keep=2)
    for title in ("A", "B", "C", "A"):
        await pictures.draw(request(title=title))
    pictures.close()
    assert gate.calls == 4  # A was dropped when C came


async def test_past_the_queue_a_new_picture_is_refused_as_busy() -> None:
    gate = Gate()
    gate.open.clear()
    pictures = pictures_with(gate, queue=1)
    held = [asyncio.create_task(pictures.draw(request(title=t))) for t in ("A", "B")]
    await asyncio.sleep(0.05)
    with pytest.raises(SandboxBusy) as busy:
        await pictures.draw(request(title="C"))
    gate.open.set()
    await asyncio.gather(*held)
    pictures.close()
    assert busy.value.retry_after_s >= 1


async def test_a_slow_picture_times_out_then_is_answered_once_drawn() -> None:
    gate = Gate()
    gate.open.clear()
    pictures = pictures_with(gate, timeout_s=0.05)
    with pytest.raises(SandboxUnavailable, match=r"took longer than 0\.05 s"):
        await pictures.draw(request())
    gate.open.set()
    await asyncio.sleep(0.1)
    png = await pictures.draw(request())
    pictures.close()
    assert (gate.calls, png.startswith(PNG_SIGNATURE)) == (1, True)


# --- the render process (slow: spawns a Python that imports matplotlib) ---------------------


def _die_on_title_die(request_json: str) -> bytes:
    if GraphPictureRequest.model_validate_json(request_json).title == "die":
        os._exit(3)
    return draw_png(request_json)


@pytest.mark.slow
async def test_the_render_process_draws_a_real_png() -> None:
    pictures = GraphPictures()
    try:
        png = await pictures.draw(request())
    finally:
        pictures.close()
    assert 800 <= png_size(png)[0] <= 1200


@pytest.mark.slow
async def test_a_render_process_that_dies_is_replaced_for_the_next_picture() -> None:
    pictures = GraphPictures(draw=_die_on_title_die)
    try:
        with pytest.raises(SandboxUnavailable, match="render process stopped"):
            await pictures.draw(request(title="die"))
        png = await pictures.draw(request())
    finally:
        pictures.close()
    assert png.startswith(PNG_SIGNATURE)


@pytest.mark.slow
async def test_warming_up_draws_in_the_render_process_before_the_first_picture() -> None:
    pictures = GraphPictures()
    try:
        warming = pictures.warm_up()
        assert warming is not None
        png = await warming
    finally:
        pictures.close()
    assert (png.startswith(PNG_SIGNATURE), pictures.drawn) == (True, 0)
