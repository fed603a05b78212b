"""A fake sandbox client for fast tests: the one fake left, so tests choose its health.

It has the two methods of :class:`bot.services.SandboxRunner` (``run``, ``health``) and
answers with real :class:`~sandbox.protocol.RunResult` models: a curated snippet prints the
item's recorded output, anything else prints :attr:`FakeSandboxRunner.learner_result`. The
real sandbox has its own tests (tests/sandbox) and one slow Discord test runs it for real.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Literal

from bot.content.models import Item
from sandbox.errors import SandboxRejected, SandboxUnavailable
from sandbox.protocol import Health, LimitOverrides, Limits, RunResult, code_sha256

Mode = Literal["ok", "slow", "down", "refusing"]

TORCH = "2.13.0"


def run_result(
    stdout: str = "", *, status: str = "exit 0", ok: bool = True, **extra: object
) -> RunResult:
    """A RunResult as the worker would send it (exit 0 under the default limits)."""
    fields: dict[str, object] = {
        "stdout": stdout,
        "exit_code": 0 if ok else None,
        "status": status,
        "ok": ok,
        "limits": Limits(),
        "backend": "namespaces",
        "torch_version": TORCH,
        "duration_ms": 21.0,
    }
    fields.update(extra)
    return RunResult.model_validate(fields)


class FakeSandboxRunner:
    """A sandbox whose health the test chooses.

    Attributes:
        mode: ``ok``; ``slow`` (every run waits for :attr:`gate`); ``down`` (every call
            raises ``SandboxUnavailable``); ``refusing`` (no isolation: learner code is
            refused with code ``refused``, curated snippets still run).
        learner_result: what a non-curated snippet returns.
        torch_version: the torch the fake worker "has".
        runs: the code of every ``run`` call, in order.
    """

    def __init__(self, items: Iterable[Item]) -> None:
        self.mode: Mode = "ok"
        self.gate = asyncio.Event()
        self.curated = {code_sha256(item.snippet): item.expected_output for item in items}
        self.learner_result = run_result("tensor([2.])\n")
        self.torch_version = TORCH
        self.runs: list[str] = []
        self.use_cache: list[bool] = []
        self.health_calls = 0

    async def health(self) -> Health:
        self.health_calls += 1
        if self.mode == "down":
            raise SandboxUnavailable("the sandbox cannot be reached: connection refused (test)")
        refusing = self.mode == "refusing"
        return Health(
            ready=True,
            backend="none" if refusing else "namespaces",
            learner_code=not refusing,
            isolated=[] if refusing else ["namespaces"],
            not_isolated=[],
            reason="test",
            torch_version=self.torch_version,
            running=0,
            queued=0,
            concurrency=2,
            queue_limit=8,
            curated_snippets=len(self.curated),
            cached_results=0,
            limits=Limits(),
        )

    async def run(
        self, code: str, *, limits: LimitOverrides | None = None, use_cache: bool = True
    ) -> RunResult:
        self.runs.append(code)
        self.use_cache.append(use_cache)
        if self.mode == "down":
            raise SandboxUnavailable("the sandbox cannot be reached: connection refused (test)")
        if self.mode == "slow":
            await self.gate.wait()
        recorded = self.curated.get(code_sha256(code))
        if recorded is not None:
            return run_result(recorded, torch_version=self.torch_version)
        if self.mode == "refusing":
            raise SandboxRejected(
                "learner code is refused: this worker has no isolation", "refused"
            )
        return self.learner_result.model_copy(update={"torch_version": self.torch_version})


class Clock:
    """A settable aware UTC clock (the services' and the store's)."""

    def __init__(self, now: datetime | None = None) -> None:
        self.now = now or datetime(2025, 3, 3, 8, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, delta: timedelta) -> None:
        self.now += delta
