"""The service layer both front ends share: the Discord bot and ``tutor play``.

One async context manager opens everything a front end needs, from :class:`TutorSettings`::

    settings = TutorSettings()
    async with open_services(settings) as services:
        item = await quiz.next_item(services, learner_id, QuizFilter(kind=Kind.WHY))
        outcome = await quiz.grade_and_record(services, item=item, ...)
        reveal = await quiz.reveal(services, item)

It loads the question bank, builds the grader, opens the progress store (SQLite), and
connects to the sandbox: a running worker (``TUTOR_SANDBOX_ADDRESS=unix:/...`` or
``http://...``), or a worker started as a child process (``local``, the default; it needs
torch in this Python, and is stopped on exit). Curated snippets' results are kept in the
store (:class:`StoreResultCache`), so a reveal waits for torch at most once per snippet and
torch version, across restarts of the bot and of the worker.

Torch-free and discord-free: a test walks the package and fails otherwise.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import Protocol

from pydantic import ValidationError

from bot.content.loader import Bank, load_bank
from bot.content.models import Item
from bot.grading import Grader
from bot.progress.clock import Clock, system_clock
from bot.progress.errors import InvalidCacheEntry
from bot.progress.store import ProgressStore
from bot.settings import TutorSettings
from sandbox.cache import CacheKey
from sandbox.client import LocalSandbox, SandboxClient
from sandbox.errors import SandboxError, SandboxUnavailable
from sandbox.pool import SandboxPool
from sandbox.protocol import AutogradGraph, Health, LimitOverrides, RunResult, code_sha256
from sandbox.settings import sandbox_environment

log = logging.getLogger(__name__)

PROBE_INTERVAL_S = 60.0
"""While the worker's torch version is unknown, ask ``/health`` at most this often (seconds)."""


class SandboxRunner(Protocol):
    """What the service layer needs from a sandbox client (:class:`SandboxClient` has it).

    Tests pass a fake with the same methods to make the sandbox slow, down or refusing.
    """

    async def run(
        self,
        code: str,
        *,
        limits: LimitOverrides | None = None,
        use_cache: bool = True,
        graph: bool = False,
    ) -> RunResult:
        """Run one snippet; with ``graph``, also return the autograd graph it leaves.

        Raises:
            SandboxRejected: refused (too large, invalid, learner code without isolation).
            SandboxUnavailable: down, busy after retries, or slower than the timeout.
        """
        ...

    async def health(self) -> Health:
        """The worker's state (torch version, backend, whether learner code is accepted).

        Raises:
            SandboxUnavailable: the worker cannot be reached.
        """
        ...

    async def render_graph(self, graph: AutogradGraph, *, title: str | None = None) -> bytes:
        """The PNG of ``graph``, drawn by the worker's service (never in this process).

        Raises:
            SandboxRejected: ``unsupported`` (no renderer there), ``invalid``, ``too_large``,
                ``failed``.
            SandboxUnavailable: down, busy after retries, or slower than the timeout.
        """
        ...


class StoreResultCache:
    """Curated snippets' results in the progress store's ``sandbox_cache`` table.

    The async counterpart of :class:`sandbox.cache.ResultCache` (whose ``get``/``put`` are
    synchronous and run inside the worker): same :class:`CacheKey` and :class:`RunResult`,
    stored as ``key.text()`` and the result's JSON (``bot.progress.cache``, at most 256 KiB).

    Args:
        store: the opened progress store.
    """

    def __init__(self, store: ProgressStore) -> None:
        self.store = store

    async def get(self, key: CacheKey) -> RunResult | None:
        """The stored result for ``key``; None when absent or written by an older protocol
        (logged; the next :meth:`put` replaces it)."""
        raw = await self.store.cache_get(key.text())
        if raw is None:
            return None
        try:
            return RunResult.model_validate_json(raw)
        except ValidationError as exc:
            log.warning("ignoring cached sandbox result %s: %s", key.text(), exc.errors()[0])
            return None

    async def put(self, key: CacheKey, result: RunResult) -> None:
        """Store ``result`` under ``key``, replacing any earlier one.

        Raises:
            InvalidCacheEntry: the result's JSON is larger than 256 KiB.
        """
        await self.store.cache_put(key.text(), result.model_dump_json())


class Snippets:
    """Runs snippets in the sandbox: curated ones through the result cache, learner code as is.

    A curated snippet's result is looked up in the store first, so a reveal does not wait
    for the sandbox (nor need it up) once the snippet has run with the worker's torch. Calls
    for the same snippet while it runs share that one run. Only results of snippets that ran
    to their end (``RunResult.ok``) are cached; a timed-out or killed run is tried again.

    Args:
        runner: the sandbox client.
        cache: where curated results are kept.
        clock: monotonic seconds (for the health probe's interval).
    """

    def __init__(
        self,
        runner: SandboxRunner,
        cache: StoreResultCache,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.runner = runner
        self.cache = cache
        self.torch_version: str | None = None
        self.health: Health | None = None
        self.probe_error: str | None = None
        self._clock = clock
        self._last_probe: float | None = None
        self._running: dict[str, asyncio.Lock] = {}

    async def probe(self) -> Health | None:
        """Ask the worker for its health; remember its torch version.

        Returns:
            The health, or None when the worker cannot be reached (logged, never raised;
            :attr:`probe_error` keeps why, for front ends that hide the log).
        """
        self._last_probe = self._clock()
        try:
            health = await self.runner.health()
        except SandboxError as exc:
            log.warning("sandbox health check failed: %s", exc)
            self.probe_error = str(exc).split("\n", 1)[0]
            return None
        self.probe_error = None
        self.health = health
        self.torch_version = health.torch_version
        return health

    async def _known_torch(self, item: Item) -> str:
        """The worker's torch version; probed when unknown, else the item's recorded one."""
        if self.torch_version is None and (
            self._last_probe is None or self._clock() - self._last_probe >= PROBE_INTERVAL_S
        ):
            await self.probe()
        return self.torch_version or item.torch_version

    async def _cached(self, key: CacheKey, graph: bool) -> RunResult | None:
        """The stored result for ``key`` as asked, or None when absent or (for ``graph``)
        stored before graphs existed."""
        hit = await self.cache.get(key)
        if hit is None or (graph and not hit.graph_read):
            return None
        return hit.as_asked(graph=graph).model_copy(update={"cached": True})

    async def run_curated(self, item: Item, *, graph: bool = False) -> RunResult:
        """The real output of ``item``'s snippet: from the store when cached, else run once.

        A curated snippet is always run with its autograd graph extracted (the sandbox does
        so anyway: it changes no output), so its one stored entry answers both kinds of
        call; without ``graph`` the graph fields are dropped from the answer. An entry stored
        before graphs existed answers ``graph=False`` and is run again for ``graph=True``.

        Args:
            item: the item whose snippet runs.
            graph: also return the graph (``RunResult.graph``, or ``graph_error`` saying
                why there is none).

        Returns:
            The result; ``cached`` is True when it came from the store or the worker's cache.

        Raises:
            SandboxUnavailable: not cached and the worker is down, busy or too slow.
            SandboxRejected: the worker refused the snippet (it is not curated there).
        """
        digest = code_sha256(item.snippet)
        key = CacheKey(code_sha256=digest, torch_version=await self._known_torch(item))
        hit = await self._cached(key, graph)
        if hit is not None:
            return hit
        lock = self._running.setdefault(key.text(), asyncio.Lock())
        async with lock:
            hit = await self._cached(key, graph)
            if hit is not None:
                return hit
            result = await self.runner.run(item.snippet, graph=True)
            self.torch_version = result.torch_version
            if result.ok:
                stored = CacheKey(code_sha256=digest, torch_version=result.torch_version)
                try:
                    await self.cache.put(stored, result.model_copy(update={"cached": False}))
                except InvalidCacheEntry as exc:  # over the store's 256 KiB: serve it uncached
                    log.warning("not caching the result of %s: %s", item.id, exc)
            return result.as_asked(graph=graph)

    async def run_learner(self, code: str, *, graph: bool = False) -> RunResult:
        """Run a learner's own snippet (never from the cache).

        Args:
            code: the learner's snippet (the modal allows 4,000 characters).
            graph: also return the autograd graph it leaves (``RunResult.graph``).

        Raises:
            SandboxRejected: code ``refused`` when the worker has no isolation; ``too_large``
                or ``invalid`` for a bad request.
            SandboxUnavailable: the worker is down, busy or too slow.
        """
        result = await self.runner.run(code, use_cache=False, graph=graph)
        self.torch_version = result.torch_version
        return result

    async def render_graph(self, graph: AutogradGraph, *, title: str | None = None) -> bytes:
        """Have the sandbox worker draw ``graph`` as a PNG.

        The worker draws it in its render process (``POST /graph.png``), so neither the bot
        nor ``tutor play`` loads matplotlib; the worker keeps its 32 latest pictures, so a
        reveal's graph clicked by a whole channel is drawn once.

        Args:
            graph: a graph from ``RunResult.graph``.
            title: shown after "Autograd graph" (an item id, "your snippet"); at most 60
                printable characters.

        Returns:
            PNG bytes (about 1,100 px wide; 50-100 KiB for the bank's graphs).

        Raises:
            SandboxRejected: code ``unsupported`` when the worker has no renderer;
                ``invalid``, ``too_large`` or ``failed`` otherwise.
            SandboxUnavailable: the worker is down, busy or too slow.
        """
        return await self.runner.render_graph(graph, title=title)


class NoSandbox:
    """A sandbox runner that is never available (a :class:`SandboxRunner`).

    Used for ``tutor play --sandbox off``, when a local worker cannot start, and by
    :func:`command_services` (``tutor bot --sync`` starts no sandbox), so every caller
    takes the path the bot takes when its worker is down.

    Args:
        reason: why there is no sandbox, shown to the learner.
        turned_off: the learner turned it off (``--sandbox off``), rather than it failing.
    """

    def __init__(self, reason: str, *, turned_off: bool = False) -> None:
        self.reason = reason
        self.turned_off = turned_off

    async def run(
        self,
        code: str,
        *,
        limits: LimitOverrides | None = None,
        use_cache: bool = True,
        graph: bool = False,
    ) -> RunResult:
        """Never runs anything.

        Raises:
            SandboxUnavailable: always, with :attr:`reason`.
        """
        raise SandboxUnavailable(self.reason)

    async def render_graph(self, graph: AutogradGraph, *, title: str | None = None) -> bytes:
        """Never draws anything.

        Raises:
            SandboxUnavailable: always, with :attr:`reason`.
        """
        raise SandboxUnavailable(self.reason)

    async def health(self) -> Health:
        """Never healthy.

        Raises:
            SandboxUnavailable: always, with :attr:`reason`.
        """
        raise SandboxUnavailable(self.reason)


@dataclass(frozen=True, slots=True)
class Services:
    """Everything a front end uses, opened by :func:`open_services`.

    Attributes:
        settings: the settings they were opened from.
        bank: the question bank (validated packs of ``settings.content_dir``).
        grader: grades responses against the bank's rubrics (synchronous, ~1 ms).
        store: the progress store (attempts, stats, drops, the result cache).
        snippets: the sandbox, with curated results cached in the store.
        clock: the current aware instant; the store reads the same clock.
    """

    settings: TutorSettings
    bank: Bank
    grader: Grader
    store: ProgressStore
    snippets: Snippets
    clock: Clock


@asynccontextmanager
async def sandbox_runner(settings: TutorSettings) -> AsyncIterator[SandboxRunner]:
    """Connect to the sandbox ``settings.sandbox_address`` names; disconnect (or stop) on exit.

    ``local`` starts ``tutor sandbox serve`` as a child process on a private Unix socket
    (up to ``sandbox_startup_timeout_s`` seconds) and stops it on exit; the other addresses
    only make a client (nothing is contacted until the first call); several addresses make
    a :class:`~sandbox.pool.SandboxPool` that spreads jobs over the workers.

    Raises:
        SandboxUnavailable: ``local`` was asked but this Python has no torch, or the
            worker did not start (the message has the tail of its log).
    """
    timeout_s = settings.sandbox_timeout_s
    endpoints = settings.sandbox_endpoints
    if len(endpoints) > 1:  # several running workers: spread the jobs (sandbox/pool.py)
        clients = [
            SandboxClient(unix_path=e.unix_path, timeout_s=timeout_s, retries=0)
            if e.kind == "unix"
            else SandboxClient(url=e.url, timeout_s=timeout_s, retries=0)
            for e in endpoints
        ]
        async with SandboxPool(clients) as pool:
            yield pool
        return
    endpoint = endpoints[0]
    if endpoint.kind == "unix":
        async with SandboxClient(unix_path=endpoint.unix_path, timeout_s=timeout_s) as client:
            yield client
        return
    if endpoint.kind == "http":
        async with SandboxClient(url=endpoint.url, timeout_s=timeout_s) as client:
            yield client
        return
    # The zygote runs TUTOR_SANDBOX_PYTHON when it is set (in the environment or .env, as the
    # worker reads it): then this Python needs no torch.
    if (
        not sandbox_environment().get("TUTOR_SANDBOX_PYTHON")
        and importlib.util.find_spec("torch") is None
    ):
        raise SandboxUnavailable(
            "TUTOR_SANDBOX_ADDRESS=local starts a sandbox worker with this Python, which has "
            "no torch; install the sandbox extra (torch==2.13.0, CPU) or set "
            "TUTOR_SANDBOX_ADDRESS to a running worker (unix:/path.sock or http://host:port)"
        )
    local = LocalSandbox(
        content=[settings.content_dir], startup_timeout_s=settings.sandbox_startup_timeout_s
    )
    async with local, SandboxClient(unix_path=local.socket_path, timeout_s=timeout_s) as client:
        yield client


@asynccontextmanager
async def open_services(
    settings: TutorSettings,
    *,
    bank: Bank | None = None,
    clock: Clock = system_clock,
    runner: SandboxRunner | None = None,
    compile_all: bool = True,
) -> AsyncIterator[Services]:
    """Open the bank, grader, progress store and sandbox; close them in reverse on exit.

    Args:
        settings: the settings (database path and options, sandbox address, content dir).
        bank: an already loaded bank (default: load ``settings.content_dir``).
        clock: the current aware instant, for the store and the front end (tests pass a
            fake one).
        runner: a sandbox client to use instead of connecting to ``sandbox_address``.
        compile_all: compile every rubric before opening (the bot: a fault shows at
            start-up, no learner waits for a compile); False compiles each item on its
            first grade (``tutor play``: one learner, 1.5-2 s less to wait at its start).

    Yields:
        The opened services. The sandbox's health is probed once (logged, never fatal: a
        remote worker that is down only means reveals show the recorded output).

    Raises:
        ContentErrors: a pack under ``content_dir`` is invalid.
        sqlite3.Error: the database cannot be opened or migrated.
        SandboxUnavailable: a ``local`` worker could not be started.
    """
    if bank is None:
        bank = await asyncio.to_thread(load_bank, [settings.content_dir])
    # Compiling every rubric (1.5-2 s of CPU) and loading the English word list (0.5 s).
    grader = await asyncio.to_thread(Grader, bank, eager=compile_all)
    async with AsyncExitStack() as stack:
        store = await stack.enter_async_context(
            ProgressStore(
                settings.database_path,
                clock=clock,
                answer_retention_days=settings.answer_retention_days,
                busy_timeout_s=settings.db_busy_timeout_s,
                synchronous=settings.db_synchronous,
            )
        )
        if runner is None:
            runner = await stack.enter_async_context(sandbox_runner(settings))
        snippets = Snippets(runner, StoreResultCache(store))
        health = await snippets.probe()
        if health is not None:
            log.info(
                "sandbox %s: torch %s, backend %s, learner code %s",
                settings.sandbox_address,
                health.torch_version,
                health.backend,
                "accepted" if health.learner_code else "refused (no isolation)",
            )
        yield Services(
            settings=settings,
            bank=bank,
            grader=grader,
            store=store,
            snippets=snippets,
            clock=clock,
        )


async def command_services(
    settings: TutorSettings, *, bank: Bank | None = None, clock: Clock = system_clock
) -> Services:
    """Services enough to define the bot's commands, for ``tutor bot --sync``.

    Uploading the slash commands needs only the token and the command definitions (some
    take their choices from the bank). So the bank is loaded and the grader built, but the
    progress store is constructed without being opened (no database file is touched) and
    the sandbox is a :class:`NoSandbox`: nothing is started, and a command run against
    these services fails loudly instead of silently writing somewhere.

    Args:
        settings: the settings (``content_dir`` is read).
        bank: an already loaded bank (default: load ``settings.content_dir``).
        clock: the current aware instant.

    Raises:
        ContentErrors: a pack under ``content_dir`` is invalid.
    """
    if bank is None:
        bank = await asyncio.to_thread(load_bank, [settings.content_dir])
    grader = await asyncio.to_thread(Grader, bank)
    store = ProgressStore(settings.database_path, clock=clock)  # never opened
    runner = NoSandbox("no sandbox is started while the commands are synced")
    return Services(
        settings=settings,
        bank=bank,
        grader=grader,
        store=store,
        snippets=Snippets(runner, StoreResultCache(store)),
        clock=clock,
    )


__all__ = [
    "PROBE_INTERVAL_S",
    "NoSandbox",
    "SandboxRunner",
    "Services",
    "Snippets",
    "StoreResultCache",
    "command_services",
    "open_services",
    "sandbox_runner",
]
