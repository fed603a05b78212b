"""The async worker: owns the warm zygote process, a bounded queue, and the result cache.

This is the bot-side half of the sandbox (no torch import). The HTTP service
(:mod:`sandbox.service`) and ``tutor sandbox run`` both drive a :class:`Worker`::

    async with Worker(SandboxSettings()) as worker:
        result = await worker.run(RunRequest(code="print(1)"))

Each job gets a fresh Unix socket pair; one end goes on the job queue (SCM_RIGHTS), where an
idle spare takes it (the zygote is not on the way); the worker writes the
:class:`~sandbox.internal.JobSpec` and reads the :class:`~sandbox.internal.JobAnswer` from its
end, bounded in size and time. When the request asked for the graph, the job's graph text is
validated here as an :class:`~sandbox.protocol.AutogradGraph` (a hostile job can write
anything there).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import signal
import socket
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Self

from pydantic import ValidationError

from sandbox import jail, trace
from sandbox.cache import CacheKey, MemoryResultCache, ResultCache
from sandbox.curated import CuratedSnippets
from sandbox.errors import SandboxBusy, SandboxError, SandboxRejected, SandboxUnavailable
from sandbox.internal import JobAnswer, JobSpec, ZygoteFailed, ZygoteHello, max_result_bytes
from sandbox.protocol import (
    AutogradGraph,
    Health,
    RunRequest,
    RunResult,
    code_sha256,
)
from sandbox.settings import SandboxSettings
from sandbox.zygote import JOB_ENV

log = logging.getLogger(__name__)

STARTUP_TIMEOUT_S = 180.0
"""The zygote may take this long to import torch (3-5 s on an idle 2-core machine)."""

ANSWER_GRACE_S = 10.0
"""Beyond a job's wall-clock limit, the worker waits this long for the spare's answer."""

PASSED_ENV = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
"""Host variables passed to the zygote: older OpenBLAS builds need them on some CPUs."""


SPARES_PER_SLOT = 2
"""Idle spares kept per concurrency slot. With one per slot, jobs sent back to back on a
loaded 2-core machine found the replacement spare still setting up (handover 17 ms p50);
with two, 0.4 ms (benchmarks/sandbox_latency.py). Each idle spare costs ~46 MiB PSS."""


def zygote_env() -> dict[str, str]:
    """The zygote's whole environment: the job environment, nothing of the caller's.

    Jobs are forked from the zygote, and ``/proc/<pid>/environ`` shows the environment a
    process was started with, so no token or secret of the bot may be in it.
    """
    env = dict(JOB_ENV)
    for name in PASSED_ENV:
        if name in os.environ:
            env[name] = os.environ[name]
    return env


class Worker:
    """A warm sandbox: the zygote child process plus a bounded queue and a cache.

    Args:
        settings: limits, capacity and backend choice.
        cache: where curated results are kept (default: in memory).
        curated: the trusted snippets (default: loaded from ``settings.content`` in a
            thread while the zygote starts: both take seconds, parsing the packs' YAML and
            importing torch, and they need not wait for each other).
        backend_origin: what chose ``settings.backend`` (e.g. ``--backend none``), named in
            the reason when isolation is turned off on purpose; ``configuration`` (the
            environment) by default.
        one_job: start for a single job (``tutor sandbox run``): one idle spare instead of
            :data:`SPARES_PER_SLOT` per slot, and the zygote's heap is not moved onto huge
            pages (:mod:`sandbox.hugepages`: ~1 s at start-up, repaid only over many forks).
    """

    def __init__(
        self,
        settings: SandboxSettings,
        cache: ResultCache | None = None,
        curated: CuratedSnippets | None = None,
        *,
        backend_origin: str = "configuration",
        one_job: bool = False,
    ) -> None:
        self.settings = settings
        self.backend_origin = backend_origin
        self.one_job = one_job
        self.cache: ResultCache = cache if cache is not None else MemoryResultCache()
        self.curated = curated if curated is not None else CuratedSnippets()
        self._curated_load: asyncio.Future[CuratedSnippets] | None = None
        self._curated_loaded = curated is not None
        self.hello: ZygoteHello | None = None
        self._proc: asyncio.subprocess.Process | None = None
        self._ctl: socket.socket | None = None
        self._jobs: socket.socket | None = None
        self._slots = asyncio.Semaphore(settings.concurrency)
        self._start_lock = asyncio.Lock()
        self._running = 0
        self._waiting = 0
        self._abandoned = 0  # jobs dispatched, then cancelled before their answer was read
        self._prewarm: asyncio.Task[None] | None = None
        self._jail_parent = Path(tempfile.gettempdir())

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    @property
    def zygote_pid(self) -> int | None:
        """The zygote's process id while it runs."""
        return self._proc.pid if self._proc is not None else None

    async def start(self) -> ZygoteHello:
        """Start the zygote and wait until torch is loaded and the backend is chosen.

        Returns:
            The zygote's greeting (torch version, backend and why).

        Raises:
            SandboxUnavailable: the zygote could not start or did not greet in time.
        """
        async with self._start_lock:
            if self._proc is not None and self._proc.returncode is None and self.hello:
                return self.hello
            await self._stop_zygote()  # a zygote that died: reap it and remove its jail root
            if not self._curated_loaded and self._curated_load is None:
                self._curated_load = asyncio.ensure_future(
                    asyncio.to_thread(CuratedSnippets.load, self.settings.content)
                )
                self._curated_load.add_done_callback(self._curated_done)
            hello = await self._spawn()
            if self.settings.prewarm and self._prewarm is None:
                self._prewarm = asyncio.create_task(self._prewarm_cache())
            return hello

    def _curated_done(self, load: asyncio.Future[CuratedSnippets]) -> None:
        if not load.cancelled() and load.exception() is None:
            self.curated = load.result()
            self._curated_loaded = True

    async def curated_ready(self) -> CuratedSnippets:
        """The curated snippets, once loaded (:meth:`start` begins loading them).

        Returns:
            :attr:`curated`.

        Raises:
            OSError: a pack could not be read (a broken pack only logs, see
                :meth:`CuratedSnippets.load`).
        """
        if self._curated_load is not None and not self._curated_loaded:
            self.curated = await asyncio.shield(self._curated_load)
            self._curated_loaded = True
        return self.curated

    async def _spawn(self) -> ZygoteHello:
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        jobs, spares_jobs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        python = self.settings.python or sys.executable
        args = [
            "-m",
            "sandbox.zygote",
            "--ctl-fd",
            str(theirs.fileno()),
            "--jobs-fd",
            str(spares_jobs.fileno()),
            "--backend",
            self.settings.backend,
            "--backend-origin",
            self.backend_origin,
            "--uid",
            str(self.settings.job_uid),
            "--tmp-mib",
            str(self.settings.tmp_mib),
            "--pool",  # idle spares: a job never waits for one's set-up (README)
            str(1 if self.one_job else SPARES_PER_SLOT * self.settings.concurrency),
            "--limits",
            self.settings.limits.model_dump_json(),
            "--jail-parent",
            str(self._jail_parent),
        ]
        if self.one_job:
            args.append("--no-collapse")
        package_root = Path(__file__).resolve().parent.parent  # noqa: ASYNC240 - local file op, microseconds
        try:
            self._proc = await asyncio.create_subprocess_exec(
                python,
                *args,
                pass_fds=[theirs.fileno(), spares_jobs.fileno()],
                env=zygote_env(),
                cwd=package_root,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                # Its own session, so a terminal's Ctrl-C (SIGINT to the foreground process
                # group) reaches only this process, which stops the zygote itself (close or
                # cancellation): the zygote and its spares dumped KeyboardInterrupt
                # tracebacks (fresh7 #7). PR_SET_PDEATHSIG still ends it with this process.
                start_new_session=True,
            )
        except OSError as exc:
            mine.close()
            jobs.close()
            raise SandboxUnavailable(f"could not start the sandbox with {python}: {exc}") from exc
        finally:
            theirs.close()
            spares_jobs.close()
        mine.setblocking(False)
        jobs.setblocking(False)
        self._ctl = mine
        self._jobs = jobs
        loop = asyncio.get_running_loop()
        try:
            raw = await asyncio.wait_for(loop.sock_recv(mine, 65536), STARTUP_TIMEOUT_S)
        except TimeoutError as exc:
            await self._stop_zygote()
            raise SandboxUnavailable(
                f"the sandbox did not start within {STARTUP_TIMEOUT_S:g} s"
            ) from exc
        except asyncio.CancelledError:  # Ctrl-C during start-up: no half-started zygote
            if self._proc.returncode is None:
                self._proc.kill()  # mid-import: closing its socket would make it raise
            await self._stop_zygote()
            raise
        if not raw:
            code = await self._proc.wait()
            await self._stop_zygote()
            raise SandboxUnavailable(f"the sandbox exited during start-up (status {code})")
        try:
            self.hello = ZygoteHello.model_validate_json(raw)
        except ValidationError:
            await self._stop_zygote()
            raise SandboxUnavailable(_start_failure(raw)) from None
        return self.hello

    async def close(self) -> None:
        """Stop the zygote (its spares clean up their jobs and exit)."""
        if self._curated_load is not None:
            # A thread cannot be cancelled: let a load still running finish, unread.
            with contextlib.suppress(Exception):
                await self._curated_load
        if self._prewarm is not None:
            self._prewarm.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._prewarm
            self._prewarm = None
        await self._stop_zygote()

    async def _stop_zygote(self) -> None:
        if self._jobs is not None:
            self._jobs.close()
            self._jobs = None
        if self._ctl is not None:
            self._ctl.close()
            self._ctl = None
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.returncode is None and self._abandoned:
            # A spare still runs a job nobody will read (its zygote would wait 5 s for it,
            # and it would run to its wall limit): end the zygote's process group (its own
            # session, see _spawn) now; each namespaces job has PR_SET_PDEATHSIG. The
            # zygote is not reaped yet (no returncode), so the group id is still its pid.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            self._abandoned = 0
        if proc.returncode is None:
            try:
                await asyncio.wait_for(proc.wait(), 10.0)
            except TimeoutError:
                proc.kill()
                await proc.wait()
        # The zygote removes its jail root's directory when it ends normally; after a crash
        # or SIGKILL the directory is left (empty) on the host, and only now, with the
        # zygote gone, may it be removed (jail.remove_jail_roots says why).
        jail.remove_jail_roots(self._jail_parent, proc.pid)

    # -- running

    @property
    def learner_code(self) -> bool:
        """Whether code other than curated snippets is accepted."""
        return self.hello is not None and self.hello.backend != "none"

    def health(self) -> Health:
        """The worker's state for ``GET /health``."""
        hello = self.hello
        ready = hello is not None and self._proc is not None and self._proc.returncode is None
        return Health(
            ready=ready,
            backend=hello.backend if hello else "none",
            learner_code=self.learner_code,
            isolated=hello.isolated if hello else [],
            not_isolated=hello.not_isolated if hello else [],
            reason=hello.reason if hello else "the sandbox has not started",
            torch_version=hello.torch_version if hello else "",
            running=self._running,
            queued=self._waiting,
            concurrency=self.settings.concurrency,
            queue_limit=self.settings.queue,
            curated_snippets=len(self.curated),
            cached_results=len(self.cache),
            limits=self.settings.limits,
        )

    def retry_after_s(self) -> float:
        """A fair wait before retrying when busy: the queue ahead drained at full speed."""
        ahead = self._waiting + self._running
        rounds = ahead / self.settings.concurrency
        return float(max(1, math.ceil(rounds * min(self.settings.wall_s, 1.0))))

    async def run(self, request: RunRequest) -> RunResult:
        """Run one snippet (or answer a curated one from the cache).

        A curated snippet always runs with its graph extracted (it changes no output: a
        test checks every bank snippet), so its one cache entry serves requests with and
        without ``graph``; the graph is dropped from the answer when it was not asked for.
        A cached result without a graph (stored before graphs existed) is run again when
        the graph is asked for.

        Args:
            request: the code, any lowered limits, and whether to return the graph.

        Returns:
            The result, with its status line.

        Raises:
            SandboxRejected: learner code while no isolation is available.
            SandboxBusy: every slot and queue place is taken.
            SandboxUnavailable: the zygote could not be (re)started or did not answer.
        """
        hello = await self.start()
        limits = request.limits.apply(self.settings.limits)
        digest = code_sha256(request.code)
        curated = digest in await self.curated_ready()
        if not curated and hello.backend == "none":
            raise SandboxRejected(
                f"this sandbox runs only the question bank's snippets: {hello.reason}",
                "refused",
            )
        key = CacheKey(code_sha256=digest, torch_version=hello.torch_version)
        if curated and request.use_cache and limits == self.settings.limits:
            hit = self.cache.get(key)
            if hit is not None and (hit.graph_read or not request.graph):
                return hit.as_asked(graph=request.graph).model_copy(update={"cached": True})
        if self._running + self._waiting >= self.settings.concurrency + self.settings.queue:
            retry = self.retry_after_s()
            raise SandboxBusy(f"the sandbox is busy; retry after {retry:g} s", retry)
        self._waiting += 1
        try:
            await self._slots.acquire()
        finally:
            self._waiting -= 1
        self._running += 1
        trace.mark("slot")
        extract = request.graph or curated
        try:
            answer = await self._run_job(JobSpec(code=request.code, limits=limits, graph=extract))
        finally:
            self._running -= 1
            self._slots.release()
        reading = read_graph(answer) if extract else GraphReading(None, None)
        result = RunResult.from_outcome(
            answer.outcome,
            limits,
            hello.backend,
            hello.torch_version,
            graph=reading.graph,
            graph_error=reading.error,
        )
        trace.mark("result")
        if curated and result.ok and limits == self.settings.limits:
            self.cache.put(key, result)
        return result.as_asked(graph=request.graph)

    async def _run_job(self, spec: JobSpec) -> JobAnswer:
        hello = await self.start()
        assert self._jobs is not None
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        trace.mark("dispatched")
        answered = False
        try:
            try:
                socket.send_fds(self._jobs, [b"run"], [theirs.fileno()])
            except OSError as exc:
                await self._stop_zygote()
                raise SandboxUnavailable(f"the sandbox is not running ({exc.strerror})") from exc
            finally:
                theirs.close()
            reader, writer = await asyncio.open_unix_connection(sock=mine, limit=2**16)
            try:
                writer.write(spec.model_dump_json().encode() + b"\n")
                await writer.drain()
                raw = await asyncio.wait_for(
                    _read_bounded(reader, max_result_bytes(spec.limits)),
                    spec.limits.wall_s + ANSWER_GRACE_S,
                )
                answered_s = time.monotonic()
                answered = True
            except asyncio.CancelledError:
                # Ctrl-C, or a caller gone: its spare runs on up to wall_s; close() stops it.
                self._abandoned += not answered
                raise
            finally:
                writer.close()
        except TimeoutError as exc:
            raise SandboxUnavailable(
                f"the sandbox did not answer within {spec.limits.wall_s + ANSWER_GRACE_S:g} s"
            ) from exc
        except (ConnectionError, ValueError) as exc:
            raise SandboxUnavailable(f"the sandbox dropped the job: {exc}") from exc
        if not raw:
            if self._proc is not None and self._proc.returncode is not None:
                await self._stop_zygote()
            raise SandboxUnavailable(
                f"the sandbox ({hello.backend}) closed the job without an answer"
            )
        try:
            answer = JobAnswer.model_validate_json(raw)
        except ValidationError as exc:
            raise SandboxUnavailable("the sandbox answered with something unreadable") from exc
        trace.extend(answer.hops)
        trace.mark("answered", answered_s)
        return answer

    async def _prewarm_cache(self) -> None:
        """Run every curated snippet once so reveals are answered from the cache."""
        for code in (await self.curated_ready()).snippets():
            try:
                await self.run(RunRequest(code=code))
            except SandboxError as exc:
                log.warning("prewarm of a curated snippet failed: %s", exc)


@dataclass(frozen=True, slots=True)
class GraphReading:
    """What became of a job's graph text.

    Attributes:
        graph: the validated graph, or None.
        error: why there is no graph (None when there is one).
    """

    graph: AutogradGraph | None
    error: str | None


def read_graph(answer: JobAnswer) -> GraphReading:
    """Validate the graph text a job wrote.

    The text comes from inside the jail, where hostile code may have forged it; it becomes a
    graph only if it is a valid :class:`~sandbox.protocol.AutogradGraph` (sizes, kinds,
    references, no cycle, printable labels). A refusal is logged with its first problem.
    """
    if answer.graph_text is None:
        why = answer.graph_problem or "the snippet ended before its graph was written"
        return GraphReading(None, why)
    try:
        return GraphReading(AutogradGraph.model_validate_json(answer.graph_text), None)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        message = first["msg"].removeprefix("Value error, ")
        problem = (f"{where}: {message}" if where else message)[:300]
        log.warning("refused a job's graph: %s", problem)
        return GraphReading(None, f"the job's graph was refused: {problem}")


def _start_failure(raw: bytes) -> str:
    """The worker's words for a zygote that said it could not start (or said nonsense)."""
    try:
        failed = ZygoteFailed.model_validate_json(raw)
    except ValidationError:
        return "the sandbox answered its start-up with something unreadable"
    return f"the sandbox could not start: {failed.error}"


async def _read_bounded(reader: asyncio.StreamReader, limit: int) -> bytes:
    data = bytearray()
    while True:
        chunk = await reader.read(2**16)
        if not chunk:
            return bytes(data)
        data += chunk
        if len(data) > limit:
            raise ValueError(f"answer larger than {limit} bytes")


def describe_backend(hello: ZygoteHello) -> str:
    """The startup banner: backend, why, and what is and is not isolated (several lines)."""
    lines = [f"sandbox: backend {hello.backend} ({hello.reason}); torch {hello.torch_version}"]
    if hello.backend == "none":
        lines.append("sandbox: learner code will be REFUSED; only curated snippets run")
    lines += [f"sandbox:   isolated: {item}" for item in hello.isolated]
    lines += [f"sandbox:   NOT isolated: {item}" for item in hello.not_isolated]
    if hello.heap:
        lines.append(f"sandbox: {hello.heap}")
    return "\n".join(lines)


__all__ = [
    "SandboxBusy",
    "SandboxError",
    "SandboxRejected",
    "SandboxUnavailable",
    "Worker",
    "describe_backend",
]
