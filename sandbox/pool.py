"""Spread sandbox jobs over several workers (``TUTOR_SANDBOX_ADDRESS=unix:/a.sock,unix:/b.sock``).

One worker runs ``CONCURRENCY`` jobs at once (2 on two cores; 1 under the ``container``
backend) and 23-32 jobs/s sustained (sandbox/README.md). Past that, run more workers
(compose replicas, or one per host) and hand the bot all their addresses::

    async with SandboxPool([SandboxClient(unix_path=a), SandboxClient(unix_path=b)]) as pool:
        result = await pool.run(code)

Each job goes to the worker with the fewest of this pool's jobs in flight (ties rotate, so
an idle pool alternates). A worker that cannot be reached or answers "busy" passes the job
to the next; when every worker is busy the pool waits (the longest ``Retry-After`` asked,
at least ``backoff_s``, doubling) and tries again, ``retries`` times. A refusal
(:class:`SandboxRejected`) or a time-out (:class:`SandboxTimeout`: the job may still be
running there) is not tried elsewhere. No torch, no state shared between workers: curated
results are cached by the bot's store, so any worker may answer any reveal.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from types import TracebackType
from typing import Self, TypeVar

from sandbox.client import SandboxClient
from sandbox.errors import SandboxBusy, SandboxTimeout, SandboxUnavailable
from sandbox.protocol import AutogradGraph, Health, LimitOverrides, RunResult

T = TypeVar("T")


class SandboxPool:
    """Several sandbox workers behind the methods of one client (``run``, ``render_graph``,
    ``health``).

    Args:
        clients: one client per worker (build them with ``retries=0``: the pool retries
            across workers instead of waiting on one).
        retries: extra rounds over every worker after all were busy or down.
        backoff_s: first pause between rounds in seconds; doubles each round, and the
            longest ``Retry-After`` of a round is honoured when longer.

    Raises:
        ValueError: no client given.
    """

    def __init__(
        self, clients: Sequence[SandboxClient], *, retries: int = 3, backoff_s: float = 0.25
    ) -> None:
        if not clients:
            raise ValueError("a pool needs at least one sandbox client")
        self.clients = list(clients)
        self.retries = retries
        self.backoff_s = backoff_s
        self.in_flight = [0] * len(self.clients)
        self._turn = 0

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def close(self) -> None:
        """Close every client's HTTP session."""
        for client in self.clients:
            await client.close()

    def _order(self) -> list[int]:
        """Worker indexes, fewest jobs in flight first; ties start at a rotating turn."""
        n = len(self.clients)
        start = self._turn
        self._turn = (self._turn + 1) % n
        return sorted(range(n), key=lambda i: (self.in_flight[i], (i - start) % n))

    async def run(
        self,
        code: str,
        *,
        limits: LimitOverrides | None = None,
        use_cache: bool = True,
        graph: bool = False,
    ) -> RunResult:
        """Run one snippet on the least loaded worker that takes it.

        Raises:
            SandboxRejected: the request was refused (not tried on another worker).
            SandboxTimeout: the chosen worker did not answer in time.
            SandboxBusy: every worker was still busy after every round.
            SandboxUnavailable: no worker could be reached.
        """
        return await self._spread(
            lambda client: client.run(code, limits=limits, use_cache=use_cache, graph=graph)
        )

    async def render_graph(self, graph: AutogradGraph, *, title: str | None = None) -> bytes:
        """Have the least loaded worker that takes it draw ``graph`` as a PNG.

        Each worker keeps its own recent pictures, so an identical request may be drawn
        once per worker.

        Raises:
            SandboxRejected: refused (``unsupported``, ``invalid``, ``too_large``, ``failed``).
            SandboxTimeout: the chosen worker did not answer in time.
            SandboxBusy: every worker was still busy after every round.
            SandboxUnavailable: no worker could be reached.
        """
        return await self._spread(lambda client: client.render_graph(graph, title=title))

    async def _spread(self, call: Callable[[SandboxClient], Awaitable[T]]) -> T:
        """``call`` on the least loaded worker; busy or unreachable ones pass it on."""
        delay = self.backoff_s
        last: SandboxUnavailable = SandboxUnavailable("no sandbox worker was tried")
        for round_ in range(self.retries + 1):
            if round_:
                await asyncio.sleep(delay)
                delay *= 2
            for index in self._order():
                self.in_flight[index] += 1
                try:
                    return await call(self.clients[index])
                except SandboxTimeout:
                    raise
                except SandboxBusy as exc:
                    last = exc
                    delay = max(delay, exc.retry_after_s)
                except SandboxUnavailable as exc:
                    last = exc
                finally:
                    self.in_flight[index] -= 1
        raise last

    async def health(self) -> Health:
        """The health of the first worker that answers (they run the same image).

        Raises:
            SandboxUnavailable: no worker answered.
        """
        last = SandboxUnavailable("no sandbox worker was asked")
        for index in self._order():
            try:
                return await self.clients[index].health()
            except SandboxUnavailable as exc:
                last = exc
        raise last


__all__ = ["SandboxPool"]
