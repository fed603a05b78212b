"""Messages between the async worker (bot side, no torch) and the warm zygote (torch side).

Not part of the public protocol: only :mod:`sandbox.worker` and :mod:`sandbox.zygote` use
them. The worker sends :class:`JobSpec` as one JSON line on a per-job socket and reads a
:class:`JobAnswer` back; the zygote greets with :class:`ZygoteHello`, or says why it could
not start with :class:`ZygoteFailed`.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from sandbox.protocol import MAX_GRAPH_BYTES, Backend, JobOutcome, Limits
from sandbox.trace import Hop


class JobSpec(BaseModel):
    """One job as the zygote's supervisor receives it.

    Attributes:
        code: the snippet.
        limits: its effective limits.
        graph: extract the autograd graph after the code ran (``RunRequest.graph``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    code: str
    limits: Limits
    graph: bool = False


class JobAnswer(BaseModel):
    """A spare's answer: what it observed, and the job's graph text exactly as read.

    Attributes:
        outcome: the job's outcome.
        graph_text: with ``JobSpec.graph``: what the job wrote on its graph pipe, decoded as
            UTF-8, at most :data:`~sandbox.protocol.MAX_GRAPH_BYTES` bytes. Untrusted: the
            worker validates it as an :class:`~sandbox.protocol.AutogradGraph`.
        graph_problem: why there is no ``graph_text`` (too large, not UTF-8, nothing written).
        hops: the hops the spare passed (``handed`` to ``drained``; :mod:`sandbox.trace`).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    outcome: JobOutcome
    graph_text: str | None = Field(None, max_length=MAX_GRAPH_BYTES)
    graph_problem: str | None = None
    hops: list[Hop] = Field(default_factory=list, max_length=16)


class ZygoteHello(BaseModel):
    """The zygote's first message once torch is loaded and the backend chosen.

    Attributes:
        pid: the zygote's process id (host namespace).
        torch_version: ``torch.__version__`` without a local suffix, e.g. ``2.13.0``.
        backend: the isolation in force.
        reason: why this backend (why isolation is missing, for ``none``).
        isolated: what each job is isolated by, in words.
        not_isolated: what is knowingly not isolated, in words.
        startup_s: seconds the zygote took to import and warm torch.
        heap: how much of the zygote's heap is on transparent huge pages and, when the
            kernel refused to collapse it, why (one line for the service's banner; a
            one-shot ``tutor sandbox run`` does not print it).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    pid: int
    torch_version: str
    backend: Backend
    reason: str
    isolated: list[str]
    not_isolated: list[str]
    startup_s: float
    heap: str = ""


class ZygoteFailed(BaseModel):
    """The zygote's only message when it cannot start (instead of :class:`ZygoteHello`).

    Attributes:
        error: one line saying why (``sandbox: the jail root could not be built in ...``,
            why a forced backend cannot work here, or the exception that stopped it).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    error: str = Field(max_length=2000)


JOB_RESULT_SLACK_BYTES = 64 * 1024
"""Room for the JSON around a job's two output streams."""


def max_result_bytes(limits: Limits) -> int:
    """Largest JSON a job's answer can take: each output or graph byte may become a 6-byte
    escape."""
    return 6 * (2 * limits.output_bytes + MAX_GRAPH_BYTES) + JOB_RESULT_SLACK_BYTES
