"""Graph pictures for ``POST /graph.png``: drawn in a render process beside the worker service.

The worker's HTTP service (:mod:`sandbox.service`) owns one :class:`GraphPictures`. It draws
with :func:`sandbox.graph_render.render_graph_png` in one long-lived child process (a
``spawn`` :class:`~concurrent.futures.ProcessPoolExecutor` with one worker), never on the
service's event loop, never in the bot, never in a jailed job::

    pictures = GraphPictures()
    pictures.warm_up()                      # start the process, import matplotlib, load fonts
    png = await pictures.draw(GraphPictureRequest(graph=graph, title="TF5"))
    pictures.close()

Why a process and not a thread: the service's event loop shepherds every job (it hands
sockets to the zygote and reads answers), and a picture holds the GIL for 0.1-3 s; in a
process it uses the machine's other core instead, its memory (matplotlib, numpy, the canvas)
is not the service's, and a crash in the renderer kills only that process, which is
replaced for the next picture.

Bounds: one picture is drawn at a time and at most :data:`RENDER_QUEUE` more wait (then
:class:`~sandbox.errors.SandboxBusy`); a request waits at most :data:`RENDER_TIMEOUT_S`
seconds. Identical requests share one drawing, and the last :data:`KEEP_PICTURES` PNGs are
kept by the request's SHA-256, so a channel clicking "Show graph" under one reveal costs one
drawing.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import math
import multiprocessing
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from sandbox.errors import SandboxBusy, SandboxUnavailable
from sandbox.graph_render import RendererUnavailable, render_graph_png
from sandbox.protocol import AutogradGraph, GraphPictureRequest

log = logging.getLogger(__name__)

RENDER_QUEUE = 4
"""Distinct pictures that may wait while one is drawn; one more is answered busy. Bank
graphs draw in ~0.15 s; a forged graph at every cap of :class:`AutogradGraph` in up to ~3 s
(sandbox/README.md, "Graph pictures"), so a full queue clears well within the bot's 15 s."""

KEEP_PICTURES = 32
"""PNGs kept by request digest (bank pictures are ~50-100 KiB: a few MiB at most)."""

RENDER_TIMEOUT_S = 10.0
"""Seconds a request waits for its picture, then it is answered 503 ``unavailable``. Below
the bot's 15 s client timeout (``TUTOR_SANDBOX_TIMEOUT_S``), so the client sees that answer
and retries; the drawing goes on meanwhile and its PNG is kept, so the retry gets it."""

BUSY_RETRY_S = 1.0
"""Seconds to suggest per picture ahead of a refused request (``Retry-After``)."""


def renderer_installed() -> bool:
    """True when matplotlib and networkx can be imported here (the ``sandbox`` extra)."""
    return all(importlib.util.find_spec(name) is not None for name in ("matplotlib", "networkx"))


def draw_png(request_json: str) -> bytes:
    """Draw one picture; runs in the render process (module level, so it can be sent there).

    Args:
        request_json: a :class:`GraphPictureRequest` as JSON (validated again here: only
            JSON crosses into the render process, never a pickled model).

    Returns:
        The PNG bytes.

    Raises:
        RendererUnavailable: matplotlib or networkx is missing.
    """
    request = GraphPictureRequest.model_validate_json(request_json)
    return render_graph_png(request.graph, title=request.title)


def _render_executor() -> Executor:
    return ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))


class GraphPictures:
    """Draws graph pictures off the event loop, one at a time, with a bounded queue.

    Args:
        queue: distinct pictures that may wait while one is drawn.
        keep: PNGs kept for identical requests.
        timeout_s: seconds a request waits for its picture.
        executor: builds the executor that draws (default: one ``spawn`` process; tests
            may pass a thread pool). Built on first use and again after it broke.
        draw: the drawing function run in the executor (module level, picklable).
    """

    def __init__(
        self,
        *,
        queue: int = RENDER_QUEUE,
        keep: int = KEEP_PICTURES,
        timeout_s: float = RENDER_TIMEOUT_S,
        executor: Callable[[], Executor] = _render_executor,
        draw: Callable[[str], bytes] = draw_png,
    ) -> None:
        self.queue = queue
        self.keep = keep
        self.timeout_s = timeout_s
        self.drawn = 0
        self._make_executor = executor
        self._draw = draw
        self._executor: Executor | None = None
        self._pictures: OrderedDict[str, bytes] = OrderedDict()
        self._drawing: dict[str, asyncio.Future[bytes]] = {}
        self._warming: asyncio.Future[bytes] | None = None

    @property
    def waiting(self) -> int:
        """Distinct pictures being drawn or waiting to be."""
        return len(self._drawing)

    def _pool(self) -> Executor:
        if self._executor is None:
            self._executor = self._make_executor()
        return self._executor

    def warm_up(self) -> asyncio.Future[bytes] | None:
        """Start the render process and draw an empty graph in it (imports matplotlib and
        loads the font, ~1-2 s), so the first learner's picture does not wait for that.

        Must be called on the event loop; nobody needs to await the result (a failure is
        logged).

        Returns:
            The warm-up drawing (its PNG), or None when the renderer is not installed.
        """
        if not renderer_installed():
            return None
        if self._warming is None:
            empty = GraphPictureRequest(graph=AutogradGraph()).model_dump_json()
            loop = asyncio.get_running_loop()
            self._warming = loop.run_in_executor(self._pool(), self._draw, empty)
            self._warming.add_done_callback(_log_warm_up)
        return self._warming

    async def draw(self, request: GraphPictureRequest) -> bytes:
        """The PNG of ``request``: kept, shared with an identical drawing, or drawn now.

        Raises:
            RendererUnavailable: matplotlib or networkx is not installed.
            SandboxBusy: :data:`RENDER_QUEUE` other pictures already wait.
            SandboxUnavailable: the picture took longer than ``timeout_s``, or the render
                process died (it is replaced for the next picture).
        """
        key = request.digest()
        kept = self._pictures.get(key)
        if kept is not None:
            self._pictures.move_to_end(key)
            return kept
        drawing = self._drawing.get(key)
        if drawing is None:
            if not renderer_installed():
                raise RendererUnavailable(
                    "graph pictures need matplotlib and networkx (the sandbox extra)"
                )
            if len(self._drawing) > self.queue:
                retry = max(1.0, math.ceil(len(self._drawing) * BUSY_RETRY_S))
                raise SandboxBusy(f"{len(self._drawing)} graph pictures are being drawn", retry)
            drawing = asyncio.ensure_future(self._render(key, request))
            self._drawing[key] = drawing
        try:
            return await asyncio.wait_for(asyncio.shield(drawing), self.timeout_s)
        except TimeoutError as exc:
            raise SandboxUnavailable(
                f"the graph picture took longer than {self.timeout_s:g} s"
            ) from exc

    async def _render(self, key: str, request: GraphPictureRequest) -> bytes:
        loop = asyncio.get_running_loop()
        try:
            png = await loop.run_in_executor(self._pool(), self._draw, request.model_dump_json())
        except BrokenProcessPool as exc:
            log.error("the graph render process died; a new one starts with the next picture")
            self._discard_executor()
            raise SandboxUnavailable("the graph render process stopped; try again") from exc
        finally:
            self._drawing.pop(key, None)
        self.drawn += 1
        self._pictures[key] = png
        while len(self._pictures) > self.keep:
            self._pictures.popitem(last=False)
        return png

    def _discard_executor(self) -> None:
        executor, self._executor = self._executor, None
        self._warming = None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Stop the render process (a drawing in progress is abandoned)."""
        self._discard_executor()


def _log_warm_up(future: asyncio.Future[bytes]) -> None:
    if future.cancelled():
        return
    error = future.exception()
    if error is not None:
        log.warning("graph renderer warm-up failed: %s", error)


__all__ = [
    "KEEP_PICTURES",
    "RENDER_QUEUE",
    "RENDER_TIMEOUT_S",
    "GraphPictures",
    "draw_png",
    "renderer_installed",
]
