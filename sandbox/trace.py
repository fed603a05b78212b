"""Where a warm job's milliseconds go: timestamps at each hop of one ``POST /run``.

No torch here. The service starts a :class:`JobTrace` per request (:func:`start`), the worker
and the spare mark the hops they pass (:func:`mark`; the spare's hops travel back inside its
:class:`~sandbox.internal.JobAnswer`), and the service answers with the time between
consecutive hops as a W3C ``Server-Timing`` header (https://www.w3.org/TR/server-timing/)::

    Server-Timing: origin;desc="t=8123.456789", parse;dur=0.21, queue;dur=0.02,
                   handover;dur=0.48, spec;dur=0.15, start;dur=0.09, job;dur=14.2, ...

Every time is ``CLOCK_MONOTONIC`` (``time.monotonic()``), which all processes of one host
share, pid namespaces included (the jail has no time namespace), so hops taken in the
service, the zygote's spare and the benchmark's own client line up. ``origin`` is the
monotonic time, in seconds, at which the service received the request; the phases follow
it end to end, in order. A caller on the same host can place its own timestamps (the
benchmark's client send, a snippet's first statement) on the same line.
"""

from __future__ import annotations

import contextvars
import re
import time
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict

HopName = Literal[
    "received",
    "parsed",
    "slot",
    "dispatched",
    "handed",
    "spec",
    "code_in",
    "exited",
    "reaped",
    "emptied",
    "drained",
    "answered",
    "result",
    "responded",
]
"""The hops of one ``POST /run``, in the order a job passes them."""

PHASES: dict[HopName, tuple[str, str]] = {
    "received": ("origin", "the service's handler starts (HTTP request line and headers read)"),
    "parsed": ("parse", "body read and validated as a RunRequest"),
    "slot": ("queue", "limits applied, cache and busy checks, waiting for a concurrency slot"),
    "dispatched": ("socket", "the job's socket pair made"),
    "handed": ("handover", "worker -> job queue (SCM_RIGHTS) -> an idle spare takes the job"),
    "spec": ("spec", "the spare reads and validates the JobSpec line"),
    "code_in": ("start", "cgroup limits lowered to the request's"),
    "exited": ("job", "code written to the jail; the interpreter runs it and exits"),
    "reaped": ("reap", "wait4 of the interpreter"),
    "emptied": ("kill", "every other process of the job killed; cgroup confirmed empty"),
    "drained": ("drain", "pipes drained, cgroup statistics read, outcome built"),
    "answered": ("answer", "spare serialises and sends the answer; the worker reads it"),
    "result": ("result", "the worker validates the answer (and graph) into a RunResult"),
    "responded": ("respond", "the service serialises the RunResult"),
}
"""For each hop: the name of the phase that ends there (the ``Server-Timing`` metric), and
what happens in it. The first hop starts the line and names no phase of its own."""


class Hop(BaseModel):
    """One hop: where, and when.

    Attributes:
        name: which hop (see :data:`PHASES`).
        at_s: ``time.monotonic()`` when it was passed, seconds.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: HopName
    at_s: float


@dataclass(frozen=True, slots=True)
class Phase:
    """The time between two consecutive hops.

    Attributes:
        name: the phase (a ``Server-Timing`` metric name, e.g. ``handover``).
        ms: its length in milliseconds.
    """

    name: str
    ms: float


@dataclass(slots=True)
class JobTrace:
    """The hops one request passed, in order.

    Attributes:
        hops: hops so far.
    """

    hops: list[Hop] = field(default_factory=list)

    def mark(self, name: HopName, at_s: float | None = None) -> None:
        """Record hop ``name`` now (or at ``at_s``, monotonic seconds)."""
        self.hops.append(Hop(name=name, at_s=time.monotonic() if at_s is None else at_s))

    def phases(self) -> list[Phase]:
        """The time between each pair of consecutive hops, named by the later hop's phase."""
        return [
            Phase(PHASES[later.name][0], (later.at_s - earlier.at_s) * 1000)
            for earlier, later in zip(self.hops, self.hops[1:], strict=False)
        ]

    def server_timing(self) -> str:
        """The ``Server-Timing`` header value: the origin, then each phase in ms (3 decimals).

        Returns:
            e.g. ``origin;desc="t=8123.456789", parse;dur=0.210, ...``; empty without hops.
        """
        if not self.hops:
            return ""
        parts = [f'origin;desc="t={self.hops[0].at_s:.6f}"']
        parts += [f"{p.name};dur={p.ms:.3f}" for p in self.phases()]
        return ", ".join(parts)


_current: contextvars.ContextVar[JobTrace | None] = contextvars.ContextVar(
    "sandbox_job_trace", default=None
)


def start() -> JobTrace:
    """Begin a trace for the request being handled in this task; marks ``received``."""
    trace = JobTrace()
    trace.mark("received")
    _current.set(trace)
    return trace


def mark(name: HopName, at_s: float | None = None) -> None:
    """Record hop ``name`` now (or at ``at_s``, monotonic seconds) on the current request's
    trace, if one was started (else nothing)."""
    trace = _current.get()
    if trace is not None:
        trace.mark(name, at_s)


def extend(hops: list[Hop]) -> None:
    """Append hops recorded in another process (the spare) to the current trace."""
    trace = _current.get()
    if trace is not None:
        trace.hops.extend(hops)


_METRIC = re.compile(r'\s*([A-Za-z_]+)\s*(?:;\s*dur=([0-9.]+))?\s*(?:;\s*desc="t=([0-9.]+)")?')


@dataclass(frozen=True, slots=True)
class ServerTiming:
    """A parsed ``Server-Timing`` header as :meth:`JobTrace.server_timing` writes it.

    Attributes:
        origin_s: monotonic time the service received the request, seconds.
        phases: the phases in order.
    """

    origin_s: float
    phases: list[Phase]

    @classmethod
    def parse(cls, header: str) -> ServerTiming:
        """Read a header written by :meth:`JobTrace.server_timing`.

        Raises:
            ValueError: no ``origin`` metric, or a metric that is not ``name;dur=ms``.
        """
        origin: float | None = None
        phases: list[Phase] = []
        for part in header.split(","):
            match = _METRIC.fullmatch(part)
            if match is None:
                raise ValueError(f"not a Server-Timing metric: {part!r}")
            name, dur, t = match.groups()
            if t is not None:
                origin = float(t)
            elif dur is not None:
                phases.append(Phase(name, float(dur)))
            else:
                raise ValueError(f"a Server-Timing metric without dur: {part!r}")
        if origin is None:
            raise ValueError("the Server-Timing header has no origin")
        return cls(origin, phases)
