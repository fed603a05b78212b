"""A fake sandbox client for fast tests: the one fake left, so tests choose its health.

It has the methods of :class:`bot.services.SandboxRunner` (``run``, ``health``,
``render_graph``) and answers with real :class:`~sandbox.protocol.RunResult` models: a
curated snippet prints the item's recorded output, anything else prints
:attr:`FakeSandboxRunner.learner_result`; asked for the graph, it returns
:attr:`FakeSandboxRunner.graph` (a real, validated :class:`~sandbox.protocol.AutogradGraph`),
and it "draws" any graph as a tiny PNG. The real sandbox has its own tests (tests/sandbox)
and one slow Discord test runs it for real.
"""

from __future__ import annotations

import asyncio
import struct
import zlib
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Literal

from bot.content.models import Item
from sandbox.errors import SandboxRejected, SandboxUnavailable
from sandbox.protocol import (
    AutogradGraph,
    GraphEdge,
    GraphNode,
    Health,
    LimitOverrides,
    Limits,
    RunResult,
    TensorFacts,
    code_sha256,
)

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


def tiny_png(width: int = 2, height: int = 1) -> bytes:
    """A valid white RGB PNG of the given size (what the fake "draws")."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data)
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    rows = b"".join(b"\x00" + b"\xff" * 3 * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def small_graph() -> AutogradGraph:
    """``y = x * 2`` as the sandbox extracts it: y -> MulBackward0 -> AccumulateGrad -> x."""
    leaf = TensorFacts(names=["x"], shape=[2], dtype="float32", requires_grad=True, is_leaf=True)
    out = TensorFacts(names=["y"], shape=[2], dtype="float32", requires_grad=True, is_leaf=False)
    return AutogradGraph(
        nodes=[
            GraphNode(id=0, kind="tensor", label="y", tensor=out),
            GraphNode(id=1, kind="backward", label="MulBackward0"),
            GraphNode(id=2, kind="backward", label="AccumulateGrad"),
            GraphNode(id=3, kind="tensor", label="x", tensor=leaf),
        ],
        edges=[
            GraphEdge(source=0, target=1, kind="grad_fn"),
            GraphEdge(source=1, target=2, kind="next"),
            GraphEdge(source=2, target=3, kind="variable"),
        ],
    )


class FakeSandboxRunner:
    """A sandbox whose health the test chooses.

    Attributes:
        mode: ``ok``; ``slow`` (every run waits for :attr:`gate`); ``down`` (every call
            raises ``SandboxUnavailable``); ``refusing`` (no isolation: learner code is
            refused with code ``refused``, curated snippets still run).
        learner_result: what a non-curated snippet returns.
        torch_version: the torch the fake worker "has".
        runs: the code of every ``run`` call, in order.
        use_cache: the ``use_cache`` of every ``run`` call, in order.
        graph: the graph a run asked for it returns (None: the job wrote none, and the
            result says :attr:`graph_error`).
        graph_asks: the ``graph`` flag of every ``run`` call, in order.
        picture: what ``render_graph`` returns (a valid PNG).
        drawn: the ``(graph, title)`` of every ``render_graph`` call, in order.
        render_refusal: when set, ``render_graph`` raises it (e.g. a worker without the
            renderer: ``SandboxRejected(..., "unsupported")``).
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
        self.graph: AutogradGraph | None = small_graph()
        self.graph_error = "the snippet ended before its graph was written"
        self.graph_asks: list[bool] = []
        self.picture = tiny_png()
        self.drawn: list[tuple[AutogradGraph, str | None]] = []
        self.render_refusal: SandboxRejected | None = None

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
        self,
        code: str,
        *,
        limits: LimitOverrides | None = None,
        use_cache: bool = True,
        graph: bool = False,
    ) -> RunResult:
        self.runs.append(code)
        self.use_cache.append(use_cache)
        self.graph_asks.append(graph)
        if self.mode == "down":
            raise SandboxUnavailable("the sandbox cannot be reached: connection refused (test)")
        if self.mode == "slow":
            await self.gate.wait()
        recorded = self.curated.get(code_sha256(code))
        if recorded is not None:
            result = run_result(recorded, torch_version=self.torch_version)
        elif self.mode == "refusing":
            raise SandboxRejected(
                "learner code is refused: this worker has no isolation", "refused"
            )
        else:
            result = self.learner_result.model_copy(update={"torch_version": self.torch_version})
        if not graph:
            return result
        error = None if self.graph is not None else self.graph_error
        return result.model_copy(update={"graph": self.graph, "graph_error": error})

    async def render_graph(self, graph: AutogradGraph, *, title: str | None = None) -> bytes:
        self.drawn.append((graph, title))
        if self.mode == "down":
            raise SandboxUnavailable("the sandbox cannot be reached: connection refused (test)")
        if self.mode == "slow":
            await self.gate.wait()
        if self.render_refusal is not None:
            raise self.render_refusal
        return self.picture


class Clock:
    """A settable aware UTC clock (the services' and the store's)."""

    def __init__(self, now: datetime | None = None) -> None:
        self.now = now or datetime(2025, 3, 3, 8, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, delta: timedelta) -> None:
        self.now += delta
