"""Messages between the async worker (bot side, no torch) and the warm zygote (torch side).

Not part of the public protocol: only :mod:`sandbox.worker` and :mod:`sandbox.zygote` use
them. The worker sends :class:`JobSpec` as one JSON line on a per-job socket and reads a
:class:`~sandbox.protocol.JobOutcome` back; the zygote greets with :class:`ZygoteHello`.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from sandbox.protocol import Backend, Limits


class JobSpec(BaseModel):
    """One job as the zygote's supervisor receives it: the code and its effective limits."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    code: str
    limits: Limits


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
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    pid: int
    torch_version: str
    backend: Backend
    reason: str
    isolated: list[str]
    not_isolated: list[str]
    startup_s: float


JOB_RESULT_SLACK_BYTES = 64 * 1024
"""Room for the JSON around a job's two output streams."""


def max_result_bytes(limits: Limits) -> int:
    """Largest JSON a job's outcome can take: each output byte may become a 6-byte escape."""
    return 2 * 6 * limits.output_bytes + JOB_RESULT_SLACK_BYTES
