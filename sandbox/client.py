"""The bot's client for the sandbox service, and a local worker for ``tutor play``/``verify``.

No torch here. The bot builds one :class:`SandboxClient` in its composition root::

    async with SandboxClient(unix_path=Path("/run/sandbox/sandbox.sock")) as sandbox:
        result = await sandbox.run("import torch\\nprint(torch.ones(2))", graph=True)
        await channel.send(result.status)
        png = await sandbox.render_graph(result.graph, title="your snippet")  # drawn there

Without a separate service, :class:`LocalSandbox` starts one as a child process on a
private Unix socket and stops it on exit::

    async with LocalSandbox() as sandbox:   # a SandboxClient
        result = await sandbox.run(code)

Every failure is a :class:`~sandbox.errors.SandboxError`: :class:`SandboxUnavailable` when
the service is down or slow (after retries), :class:`SandboxBusy` when it stayed busy,
:class:`SandboxRejected` when the request itself was refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Literal, Self

import aiohttp
from pydantic import ValidationError

from sandbox.errors import (
    SandboxBusy,
    SandboxError,
    SandboxRejected,
    SandboxStartFailed,
    SandboxTimeout,
    SandboxUnavailable,
    failure_reason,
    log_tail,
)
from sandbox.protocol import (
    MAX_GRAPH_REQUEST_BYTES,
    PNG_SIGNATURE,
    AutogradGraph,
    ErrorBody,
    GraphPictureRequest,
    Health,
    LimitOverrides,
    RunRequest,
    RunResult,
    first_error,
)
from sandbox.settings import sandbox_environment

__all__ = [
    "LocalSandbox",
    "SandboxBusy",
    "SandboxClient",
    "SandboxError",
    "SandboxRejected",
    "SandboxStartFailed",
    "SandboxUnavailable",
]

_log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_S = 30.0
"""Seconds one HTTP exchange may take (the default wall-clock limit is 5 s)."""


class SandboxClient:
    """Talks to ``tutor sandbox serve`` over a Unix socket or TCP.

    Args:
        unix_path: the service's Unix socket (preferred: no network involved).
        url: the service's base URL, e.g. ``http://127.0.0.1:8060``, when not on a socket.
        timeout_s: seconds one attempt may take before it counts as slow.
        retries: extra attempts after "busy" or a connection failure (not after a timeout
            or a refusal: a timed-out job would only be run again).
        backoff_s: first pause between attempts in seconds; doubles each time, and a
            "busy" answer's Retry-After is honoured when longer.

    Raises:
        ValueError: neither or both of ``unix_path`` and ``url`` given.
    """

    def __init__(
        self,
        *,
        unix_path: Path | None = None,
        url: str | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        retries: int = 3,
        backoff_s: float = 0.25,
    ) -> None:
        if (unix_path is None) == (url is None):
            raise ValueError("give exactly one of unix_path and url")
        self.unix_path = unix_path
        self.base_url = (url or "http://sandbox").rstrip("/")
        self.timeout_s = timeout_s
        self.retries = retries
        self.backoff_s = backoff_s
        self._session: aiohttp.ClientSession | None = None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            connector = (
                aiohttp.UnixConnector(path=str(self.unix_path))
                if self.unix_path is not None
                else aiohttp.TCPConnector()
            )
            self._session = aiohttp.ClientSession(
                connector=connector, timeout=aiohttp.ClientTimeout(total=self.timeout_s)
            )
        return self._session

    async def close(self) -> None:
        """Close the HTTP session."""
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def run(
        self,
        code: str,
        *,
        limits: LimitOverrides | None = None,
        use_cache: bool = True,
        graph: bool = False,
    ) -> RunResult:
        """Run one snippet.

        Args:
            code: Python source (at most 64 KiB).
            limits: limits to lower for this run.
            use_cache: allow a cached result for a curated snippet.
            graph: also return the autograd graph it leaves (``result.graph``, or
                ``result.graph_error`` saying why there is none).

        Returns:
            The result; ``result.status`` is the line to show.

        Raises:
            SandboxRejected: too large, invalid, or refused (no isolation).
            SandboxBusy: still busy after every retry.
            SandboxUnavailable: down, or no answer within ``timeout_s``.
        """
        try:
            request = RunRequest(
                code=code, limits=limits or LimitOverrides(), use_cache=use_cache, graph=graph
            )
        except ValidationError as exc:
            raise SandboxRejected(first_error(exc), "too_large") from exc
        body = await self._call("POST", "/run", request.model_dump_json().encode())
        return RunResult.model_validate_json(body)

    async def render_graph(self, graph: AutogradGraph, *, title: str | None = None) -> bytes:
        """Have the service draw ``graph`` as a PNG (``POST /graph.png``).

        The picture is drawn in the worker's render process, so this process never loads
        matplotlib. Identical requests are answered from the service's recent pictures.

        Args:
            graph: a graph from :attr:`RunResult.graph` (validated again by the service).
            title: shown after "Autograd graph", e.g. an item id; at most 60 printable
                characters.

        Returns:
            The PNG bytes (about 1,100 px wide, ~50-100 KiB for the bank's graphs).

        Raises:
            SandboxRejected: code ``invalid`` (a bad title), ``too_large`` (over
                :data:`~sandbox.protocol.MAX_GRAPH_REQUEST_BYTES`), ``unsupported`` (the
                worker has no renderer, or predates ``/graph.png``), ``failed`` (the
                renderer raised: a bug, in the worker's log).
            SandboxBusy: the service stayed busy drawing other pictures.
            SandboxUnavailable: down, or no picture within ``timeout_s``.
        """
        try:
            request = GraphPictureRequest(graph=graph, title=title)
        except ValidationError as exc:
            raise SandboxRejected(first_error(exc), "invalid") from exc
        body = request.model_dump_json().encode()
        if len(body) > MAX_GRAPH_REQUEST_BYTES:
            raise SandboxRejected(
                f"the graph is {len(body):,} bytes as JSON; at most "
                f"{MAX_GRAPH_REQUEST_BYTES:,} are drawn",
                "too_large",
            )
        png = await self._call("POST", "/graph.png", body, route_is_new=True)
        if not png.startswith(PNG_SIGNATURE):
            raise SandboxUnavailable("the sandbox answered /graph.png with something not a PNG")
        return png

    async def health(self) -> Health:
        """The service's :class:`~sandbox.protocol.Health` (also when not ready).

        Raises:
            SandboxUnavailable: the service cannot be reached.
        """
        body = await self._call("GET", "/health", None, ok_statuses=(200, 503))
        return Health.model_validate_json(body)

    async def _call(
        self,
        method: str,
        path: str,
        data: bytes | None,
        ok_statuses: tuple[int, ...] = (200,),
        route_is_new: bool = False,
    ) -> bytes:
        delay = self.backoff_s
        last: SandboxError = SandboxUnavailable("the sandbox was not tried")
        for attempt in range(self.retries + 1):
            if attempt:
                await asyncio.sleep(delay)
                delay *= 2
            try:
                async with self._client().request(
                    method,
                    self.base_url + path,
                    data=data,
                    headers={"Content-Type": "application/json"} if data else None,
                ) as response:
                    body = await response.read()
                    if response.status in ok_statuses:
                        return body
                    error = _error_body(response.status, body, route_is_new)
            except TimeoutError as exc:
                raise SandboxTimeout(
                    f"the sandbox did not answer within {self.timeout_s:g} s"
                ) from exc
            except aiohttp.ClientConnectorError as exc:
                # aiohttp's own words name a TCP host and "ssl:default" even for a socket.
                where = f"unix:{self.unix_path}" if self.unix_path is not None else self.base_url
                why = exc.os_error.strerror or str(exc.os_error)
                last = SandboxUnavailable(f"the sandbox cannot be reached at {where}: {why}")
                continue
            except aiohttp.ClientError as exc:
                last = SandboxUnavailable(f"the sandbox cannot be reached: {exc}")
                continue
            if error.error == "busy":
                retry_after = error.retry_after_s or delay
                last = SandboxBusy(error.message, retry_after)
                delay = max(delay, retry_after)
                continue
            if error.error == "unavailable":
                last = SandboxUnavailable(error.message)
                continue
            raise SandboxRejected(error.message, error.error)
        raise last


def _error_body(status: int, body: bytes, route_is_new: bool = False) -> ErrorBody:
    """The error an answer carries; a plain 404/405 for a route newer than some workers
    (``route_is_new``) reads as ``unsupported``: aiohttp's answer on a worker from before it."""
    try:
        return ErrorBody.model_validate_json(body)
    except ValidationError:
        if route_is_new and status in (404, 405):
            return ErrorBody(
                error="unsupported",
                message=f"the sandbox does not serve this (HTTP {status}); is it older?",
            )
        kind: Literal["busy", "unavailable", "invalid"] = (
            "busy" if status == 503 else "unavailable" if status >= 500 else "invalid"
        )
        return ErrorBody(error=kind, message=f"the sandbox answered HTTP {status}")


class LocalSandbox:
    """Starts ``python -m sandbox serve`` on a private Unix socket; yields a client.

    The child gets only ``PATH``, ``HOME``, ``LANG`` and the ``TUTOR_SANDBOX_*`` variables
    of this process and of ``.env`` in its working directory
    (:func:`sandbox.settings.sandbox_environment`; no bot token). Its log goes to a file in
    its private directory; when start-up fails, the error
    (:class:`~sandbox.errors.SandboxStartFailed`) carries the log's last lines, and the
    directory is removed.

    Args:
        content: packs whose snippets are curated (run even without isolation).
        python: interpreter with torch for the zygote, passed as ``--python``; None (the
            default) leaves it to the worker's ``TUTOR_SANDBOX_PYTHON``, else this one.
        startup_timeout_s: seconds to wait for the worker to report ready.
        extra_args: more ``tutor sandbox serve`` flags (e.g. ``["--backend", "none"]``).
        env: extra environment for the service (e.g. ``TUTOR_SANDBOX_WALL_S``).
    """

    def __init__(
        self,
        content: Sequence[Path] = (Path("content"),),
        python: str | None = None,
        startup_timeout_s: float = 180.0,
        extra_args: Sequence[str] = (),
        env: dict[str, str] | None = None,
    ) -> None:
        self.content = list(content)
        self.python = python or sandbox_environment().get("TUTOR_SANDBOX_PYTHON") or sys.executable
        self._python_flag = python
        self.startup_timeout_s = startup_timeout_s
        self.extra_args = list(extra_args)
        self.env = env or {}
        self.proc: asyncio.subprocess.Process | None = None
        self.client: SandboxClient | None = None
        self._dir: Path | None = None

    @property
    def socket_path(self) -> Path:
        """The service's Unix socket."""
        assert self._dir is not None, "not started"
        return self._dir / "sandbox.sock"

    async def __aenter__(self) -> SandboxClient:
        """Start the worker and wait until it reports ready.

        Raises:
            SandboxStartFailed: it could not be started, exited, or was not ready within
                ``startup_timeout_s``; the message ends with its last log line and
                ``log_tail`` holds more. Nothing is left behind (process, socket, log).
        """
        self._dir = Path(tempfile.mkdtemp(prefix="tutor-sandbox-"))
        try:
            await self._start()
        except BaseException:
            await self.__aexit__(None, None, None)
            raise
        assert self.client is not None
        return self.client

    async def _start(self) -> None:
        log_path = self.socket_path.with_name("service.log")
        env = sandbox_environment()  # the environment's and .env's TUTOR_SANDBOX_* values
        for name in ("PATH", "HOME", "LANG", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
            if name in os.environ:
                env[name] = os.environ[name]
        env.update(self.env)
        # The service needs no torch: it runs here, and only its zygote runs self.python.
        server = self._python_flag or sys.executable
        args = [server, "-m", "sandbox", "serve", "--unix", str(self.socket_path)]
        if self._python_flag is not None:
            args += ["--python", self._python_flag]
        args += [*self.extra_args, "--content"]
        args += [str(p.resolve()) for p in self.content]
        package_root = Path(__file__).resolve().parent.parent  # noqa: ASYNC240 - local file op, microseconds
        with log_path.open("wb") as log:
            try:
                self.proc = await asyncio.create_subprocess_exec(
                    *args,
                    env=env,
                    cwd=package_root,
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=log,
                    stderr=log,
                )
            except OSError as exc:
                raise SandboxStartFailed(
                    f"the local sandbox could not be started with {server}",
                    exc.strerror or str(exc),
                ) from exc
        self.client = SandboxClient(unix_path=self.socket_path, retries=2)
        await self._wait_ready(log_path)

    async def _wait_ready(self, log_path: Path) -> None:
        assert self.proc is not None
        assert self.client is not None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.startup_timeout_s
        while loop.time() < deadline:
            if self.proc.returncode is not None:
                raise self._failed(
                    f"the local sandbox exited during start-up (status {self.proc.returncode})",
                    log_path,
                )
            if self.socket_path.exists():
                with contextlib.suppress(SandboxError):
                    if (await self.client.health()).ready:
                        return
            await asyncio.sleep(0.1)
        raise self._failed(
            f"the local sandbox was not ready in {self.startup_timeout_s:g} s", log_path
        )

    @staticmethod
    def _failed(message: str, log_path: Path) -> SandboxStartFailed:
        """The error for a worker that did not start, with its log's last lines (logged at
        DEBUG too: the log file goes with the worker's private directory)."""
        try:
            with log_path.open("rb") as log:
                log.seek(max(0, log_path.stat().st_size - 16 * 1024))
                text = log.read().decode("utf-8", "replace")
        except OSError:
            text = ""
        tail = log_tail(text)
        if tail:
            _log.debug("the local sandbox's last log lines:\n%s", "\n".join(tail))
        return SandboxStartFailed(message, failure_reason(tail), tail)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.client is not None:
            await self.client.close()
        if self.proc is not None and self.proc.returncode is None:
            self.proc.terminate()
            try:
                await asyncio.wait_for(self.proc.wait(), 15.0)
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
