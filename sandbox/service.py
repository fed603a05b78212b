"""The HTTP face of the worker: ``POST /run``, ``POST /graph.png`` and ``GET /health``.

A thin adapter (aiohttp, over a Unix socket or TCP) over :class:`sandbox.worker.Worker` and
:class:`sandbox.graph_pictures.GraphPictures`; every JSON body is a model from
:mod:`sandbox.protocol`::

    POST /run     RunRequest  -> 200 RunResult
                              -> 413 ErrorBody(error="too_large")  body over the size limit
                              -> 422 ErrorBody(error="invalid")    not a valid RunRequest
                              -> 403 ErrorBody(error="refused")    learner code, no isolation
                              -> 503 ErrorBody(error="busy") + Retry-After (seconds)
                              -> 503 ErrorBody(error="unavailable") the zygote is down
    POST /graph.png GraphPictureRequest -> 200 image/png
                              -> 413 too_large (over MAX_GRAPH_REQUEST_BYTES), 422 invalid
                              -> 503 busy + Retry-After, 503 unavailable (slow or crashed)
                              -> 501 ErrorBody(error="unsupported") no renderer installed
                              -> 500 ErrorBody(error="failed") the renderer raised (logged)
    GET  /health              -> 200 Health (503 while not ready)

A ``/run`` answered 200 carries a ``Server-Timing`` header: where its milliseconds went,
hop by hop, from this service to the jailed interpreter and back (:mod:`sandbox.trace`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import signal
import sys
from pathlib import Path
from typing import Any, Protocol

from aiohttp import web
from pydantic import BaseModel, ValidationError

from sandbox import trace
from sandbox.errors import SandboxBusy, SandboxError, SandboxRejected, SandboxUnavailable
from sandbox.graph_pictures import GraphPictures
from sandbox.graph_render import RendererUnavailable
from sandbox.protocol import (
    MAX_GRAPH_REQUEST_BYTES,
    ErrorBody,
    GraphPictureRequest,
    Health,
    RunRequest,
    RunResult,
    first_error,
)

log = logging.getLogger(__name__)

WORKER_KEY = web.AppKey("worker", object)
PICTURES_KEY = web.AppKey("pictures", GraphPictures)


class WorkerLike(Protocol):
    """What the service needs from a worker (a :class:`~sandbox.worker.Worker` or a fake)."""

    async def run(self, request: RunRequest) -> RunResult:
        """Run one request."""
        ...

    def health(self) -> Health:
        """The current state."""
        ...


def _json(
    model: BaseModel, status: int = 200, headers: dict[str, str] | None = None
) -> web.Response:
    return web.Response(
        body=model.model_dump_json().encode(),
        status=status,
        content_type="application/json",
        headers=headers,
    )


def _error(status: int, body: ErrorBody) -> web.Response:
    headers = None
    if body.retry_after_s is not None:
        headers = {"Retry-After": str(math.ceil(body.retry_after_s))}
    return _json(body, status, headers)


def build_app(
    worker: WorkerLike, max_request_bytes: int, pictures: GraphPictures | None = None
) -> web.Application:
    """The aiohttp application serving ``worker`` and graph pictures.

    Args:
        worker: runs the jobs.
        max_request_bytes: a body larger than this is answered 413 before it is parsed
            (``/graph.png`` also stops at :data:`~sandbox.protocol.MAX_GRAPH_REQUEST_BYTES`).
        pictures: draws ``/graph.png`` (default: a new :class:`GraphPictures` with its own
            render process, closed when the application is cleaned up).
    """
    app = web.Application(client_max_size=max_request_bytes)
    app[WORKER_KEY] = worker
    if pictures is None:
        pictures = GraphPictures()

        async def close_pictures(app: web.Application) -> None:
            app[PICTURES_KEY].close()

        app.on_cleanup.append(close_pictures)
    app[PICTURES_KEY] = pictures

    async def run(request: web.Request) -> web.Response:
        job_trace = trace.start()
        try:
            body = await request.read()
        except web.HTTPRequestEntityTooLarge:
            return _error(
                413,
                ErrorBody(
                    error="too_large",
                    message=f"request body over {max_request_bytes:,} bytes; snippets are short",
                ),
            )
        try:
            run_request = RunRequest.model_validate_json(body)
        except ValidationError as exc:
            message = first_error(exc)
            too_large = message.startswith("code: ") and "bytes; the limit" in message
            return _error(
                413 if too_large else 422,
                ErrorBody(error="too_large" if too_large else "invalid", message=message),
            )
        job_trace.mark("parsed")
        try:
            result = await worker.run(run_request)
        except SandboxRejected as exc:
            return _error(403, ErrorBody(error="refused", message=str(exc)))
        except SandboxBusy as exc:
            return _error(
                503, ErrorBody(error="busy", message=str(exc), retry_after_s=exc.retry_after_s)
            )
        except SandboxUnavailable as exc:
            return _error(503, ErrorBody(error="unavailable", message=str(exc)))
        body = result.model_dump_json().encode()
        job_trace.mark("responded")
        return web.Response(
            body=body,
            content_type="application/json",
            headers={"Server-Timing": job_trace.server_timing()},
        )

    async def graph_png(request: web.Request) -> web.Response:
        limit = min(max_request_bytes, MAX_GRAPH_REQUEST_BYTES)
        too_large = ErrorBody(
            error="too_large", message=f"graph request over {limit:,} bytes; graphs are capped"
        )
        try:
            body = await request.read()
        except web.HTTPRequestEntityTooLarge:
            return _error(413, too_large)
        if len(body) > limit:
            return _error(413, too_large)
        try:
            picture = GraphPictureRequest.model_validate_json(body)
        except ValidationError as exc:
            return _error(422, ErrorBody(error="invalid", message=first_error(exc)))
        try:
            png = await pictures.draw(picture)
        except RendererUnavailable as exc:
            return _error(501, ErrorBody(error="unsupported", message=str(exc)))
        except SandboxBusy as exc:
            return _error(
                503, ErrorBody(error="busy", message=str(exc), retry_after_s=exc.retry_after_s)
            )
        except SandboxUnavailable as exc:
            return _error(503, ErrorBody(error="unavailable", message=str(exc)))
        except Exception:
            log.exception("the graph renderer failed on a valid graph")
            message = "the graph could not be drawn (the renderer failed; see the worker's log)"
            return _error(500, ErrorBody(error="failed", message=message))
        return web.Response(body=png, content_type="image/png")

    async def health(request: web.Request) -> web.Response:
        state = worker.health()
        return _json(state, 200 if state.ready else 503)

    app.router.add_post("/run", run)
    app.router.add_post("/graph.png", graph_png)
    app.router.add_get("/health", health)
    return app


def listening_on(host: str, addresses: list[Any]) -> str:
    """The URL(s) a TCP site listens on, with the ports the OS bound.

    ``--port 0`` asks the OS for any free port; the port asked for says nothing then, so
    the bound one is read from the listening sockets (``AppRunner.addresses``: each
    socket's ``getsockname()``).

    Args:
        host: the address asked for, shown as given (``127.0.0.1``, ``localhost``).
        addresses: ``getsockname()`` of each listening socket: ``(host, port)`` for IPv4,
            ``(host, port, flowinfo, scope_id)`` for IPv6.

    Returns:
        ``http://127.0.0.1:40203``; ``http://localhost:40203, http://localhost:40207``
        when a name resolved to several sockets that got different ports.
    """
    ports = sorted({int(address[1]) for address in addresses if isinstance(address, tuple)})
    return ", ".join(f"http://{host}:{port}" for port in ports)


async def serve(
    worker: WorkerLike,
    max_request_bytes: int,
    *,
    unix: Path | None = None,
    host: str = "127.0.0.1",
    port: int = 8060,
    stop: asyncio.Event | None = None,
) -> None:
    """Serve until SIGINT/SIGTERM (or ``stop`` is set).

    The graph render process is started (and warmed up) at once and stopped on exit.

    Args:
        worker: a started worker.
        max_request_bytes: request body limit in bytes.
        unix: a Unix socket path (created with mode 0660) in an existing directory (none
            is created: ``tutor sandbox serve`` refuses a missing one); when None, TCP on
            host:port.
        host: TCP address; the default listens on loopback only.
        port: TCP port.
        stop: set it to stop serving (tests); signals also stop.

    Raises:
        SandboxError: the socket cannot be listened on (``cannot listen on
            http://127.0.0.1:8060: Address already in use``).
    """
    pictures = GraphPictures()
    runner = web.AppRunner(build_app(worker, max_request_bytes, pictures), access_log=None)
    await runner.setup()
    pictures.warm_up()
    site: web.BaseSite
    if unix is not None:
        with contextlib.suppress(FileNotFoundError):
            unix.unlink()  # noqa: ASYNC240 - local file op, microseconds
        site = web.UnixSite(runner, str(unix))
    else:
        site = web.TCPSite(runner, host, port)
    where = str(unix) if unix is not None else f"http://{host}:{port}"
    try:
        await site.start()
    except OSError as exc:  # e.g. the port was taken after tutor sandbox serve checked it
        await runner.cleanup()
        pictures.close()
        raise SandboxError(f"cannot listen on {where}: {exc.strerror or exc}") from None
    if unix is not None:
        unix.chmod(0o660)  # noqa: ASYNC240 - local file op, microseconds
    else:
        where = listening_on(host, runner.addresses) or where  # fresh12 #6: port 0 said ":0"
    print(f"sandbox: listening on {where}", file=sys.stderr, flush=True)
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        await runner.cleanup()
        pictures.close()
