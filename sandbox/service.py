"""The HTTP face of the worker: ``POST /run`` and ``GET /health`` over a Unix socket or TCP.

A thin adapter (aiohttp) over :class:`sandbox.worker.Worker`; every answer body is a model
from :mod:`sandbox.protocol`::

    POST /run     RunRequest  -> 200 RunResult
                              -> 413 ErrorBody(error="too_large")  body over the size limit
                              -> 422 ErrorBody(error="invalid")    not a valid RunRequest
                              -> 403 ErrorBody(error="refused")    learner code, no isolation
                              -> 503 ErrorBody(error="busy") + Retry-After (seconds)
                              -> 503 ErrorBody(error="unavailable") the zygote is down
    GET  /health              -> 200 Health (503 while not ready)
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import signal
import sys
from pathlib import Path
from typing import Protocol

from aiohttp import web
from pydantic import BaseModel, ValidationError

from sandbox.errors import SandboxBusy, SandboxRejected, SandboxUnavailable
from sandbox.protocol import ErrorBody, Health, RunRequest, RunResult, first_error

WORKER_KEY = web.AppKey("worker", object)


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


def build_app(worker: WorkerLike, max_request_bytes: int) -> web.Application:
    """The aiohttp application serving ``worker``.

    Args:
        worker: runs the jobs.
        max_request_bytes: a body larger than this is answered 413 before it is parsed.
    """
    app = web.Application(client_max_size=max_request_bytes)
    app[WORKER_KEY] = worker

    async def run(request: web.Request) -> web.Response:
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
        return _json(result)

    async def health(request: web.Request) -> web.Response:
        state = worker.health()
        return _json(state, 200 if state.ready else 503)

    app.router.add_post("/run", run)
    app.router.add_get("/health", health)
    return app


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

    Args:
        worker: a started worker.
        max_request_bytes: request body limit in bytes.
        unix: a Unix socket path (created with mode 0660); when None, TCP on host:port.
        host: TCP address; the default listens on loopback only.
        port: TCP port.
        stop: set it to stop serving (tests); signals also stop.
    """
    runner = web.AppRunner(build_app(worker, max_request_bytes), access_log=None)
    await runner.setup()
    site: web.BaseSite
    if unix is not None:
        unix.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            unix.unlink()  # noqa: ASYNC240 - local file op, microseconds
        site = web.UnixSite(runner, str(unix))
    else:
        site = web.TCPSite(runner, host, port)
    await site.start()
    if unix is not None:
        unix.chmod(0o660)  # noqa: ASYNC240 - local file op, microseconds
    where = str(unix) if unix is not None else f"http://{host}:{port}"
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
