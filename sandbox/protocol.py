"""The sandbox wire protocol: what the bot sends, what the worker answers.

Both sides import this module; it never imports torch. A run is one HTTP exchange::

    POST /run   {"code": "import torch\\nprint(torch.ones(2))", "limits": {"wall_s": 2}}
    200         {"stdout": "tensor([1., 1.])\\n", "stderr": "", "exit_code": 0, "signal": null,
                 "timed_out": false, "memory_exceeded": false, "cpu_exceeded": false,
                 "output_truncated": false, "duration_ms": 12.5, "status": "exit 0", ...}

Errors are an :class:`ErrorBody` with a machine ``error`` code and a human ``message``
(413 too large, 422 invalid, 403 refused, 503 busy with a ``Retry-After`` header).

:func:`describe_outcome` is the one place that turns an outcome into words; every front end
(Discord, ``tutor play``, ``tutor content verify``) shows :attr:`RunResult.status` as is.
"""

from __future__ import annotations

import hashlib
import signal as _signal
from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

MAX_CODE_BYTES = 64 * 1024
"""A snippet longer than 64 KiB (UTF-8) is refused. Curated snippets are under 1 KiB."""

DEFAULT_WALL_S = 5.0
"""Wall-clock limit per job in seconds (snekbox uses 6 s; our warm jobs take milliseconds)."""

DEFAULT_CPU_S = 5.0
"""CPU-time limit per process of a job in seconds (RLIMIT_CPU)."""

DEFAULT_MEMORY_MIB = 512
"""Memory limit per job in MiB (cgroup, swap included). torch's own pages are shared with
the warm parent and not counted; only what the job allocates is."""

DEFAULT_PIDS = 32
"""Processes plus threads a job may have at once (cgroup pids.max; snekbox uses 15)."""

DEFAULT_OUTPUT_BYTES = 64 * 1024
"""Bytes kept per stream (stdout, stderr); a job that prints more is stopped (snekbox caps
output at 1 MB; a Discord message shows at most 2,000 characters)."""

Backend = Literal["namespaces", "container", "none"]
"""How jobs are isolated.

``namespaces``: per-job net/pid/mount/ipc/uts namespaces, cgroup memory and pids, uid drop.
``container``: the container is the outer wall; per job only rlimits, a private directory,
a process group and a uid-less cleanup (learner code accepted, with the caveats in
sandbox/README.md). ``none``: no isolation; only curated snippets run.
"""


class Limits(BaseModel):
    """Per-job limits. Every field has a unit; a request may only lower the server's values.

    Attributes:
        wall_s: wall-clock seconds from the code's start to its end.
        cpu_s: CPU seconds per process (RLIMIT_CPU).
        memory_mib: MiB of memory and swap for the whole job (cgroup).
        pids: processes and threads alive at once for the whole job (cgroup pids.max).
        output_bytes: bytes kept per stream before the job is stopped.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    wall_s: float = Field(DEFAULT_WALL_S, gt=0, le=600)
    cpu_s: float = Field(DEFAULT_CPU_S, gt=0, le=600)
    memory_mib: int = Field(DEFAULT_MEMORY_MIB, ge=16, le=64 * 1024)
    pids: int = Field(DEFAULT_PIDS, ge=1, le=4096)
    output_bytes: int = Field(DEFAULT_OUTPUT_BYTES, ge=1, le=16 * 1024 * 1024)

    def capped_by(self, ceiling: Limits) -> Limits:
        """These limits, each lowered to at most ``ceiling``'s (a caller never raises one)."""
        return Limits(
            wall_s=min(self.wall_s, ceiling.wall_s),
            cpu_s=min(self.cpu_s, ceiling.cpu_s),
            memory_mib=min(self.memory_mib, ceiling.memory_mib),
            pids=min(self.pids, ceiling.pids),
            output_bytes=min(self.output_bytes, ceiling.output_bytes),
        )


class LimitOverrides(BaseModel):
    """Limits a caller asks to lower; an omitted field keeps the server's value.

    Values above the server's are not an error: they are capped (see
    :meth:`Limits.capped_by`), so a client written for a larger server still works.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    wall_s: float | None = Field(None, gt=0, le=600)
    cpu_s: float | None = Field(None, gt=0, le=600)
    memory_mib: int | None = Field(None, ge=16, le=64 * 1024)
    pids: int | None = Field(None, ge=1, le=4096)
    output_bytes: int | None = Field(None, ge=1, le=16 * 1024 * 1024)

    def apply(self, server: Limits) -> Limits:
        """The effective limits: the server's, lowered where this asks for less."""
        asked = server.model_copy(update=self.model_dump(exclude_none=True))
        return Limits.model_validate(asked.model_dump()).capped_by(server)


def code_sha256(code: str) -> str:
    """Hex SHA-256 of the snippet's UTF-8 bytes: the identity of a snippet (cache, curated)."""
    return hashlib.sha256(code.encode("utf-8", "surrogatepass")).hexdigest()


class RunRequest(BaseModel):
    """One snippet to run.

    Attributes:
        code: Python source, at most :data:`MAX_CODE_BYTES` bytes of UTF-8.
        limits: limits to lower for this run (never raised above the server's).
        use_cache: a curated snippet may be answered from the result cache; set False to
            force a real run (``tutor content verify`` does).
        graph: reserved for a later issue (draw the autograd graph); must stay False for now.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    code: str
    limits: LimitOverrides = Field(default_factory=LimitOverrides)
    use_cache: bool = True
    graph: bool = False

    @field_validator("code")
    @classmethod
    def _code_size(cls, value: str) -> str:
        size = len(value.encode("utf-8", "surrogatepass"))
        if size > MAX_CODE_BYTES:
            raise ValueError(f"code is {size:,} bytes; the limit is {MAX_CODE_BYTES:,} bytes")
        return value

    @field_validator("graph")
    @classmethod
    def _graph_not_yet(cls, value: bool) -> bool:
        if value:
            raise ValueError("graph rendering is not supported by this sandbox version")
        return value


def first_error(exc: ValidationError) -> str:
    """``field: message`` for the first problem of a validation error, for people."""
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "body"
    return f"{where}: {first['msg'].removeprefix('Value error, ')}"


class JobOutcome(BaseModel):
    """What the worker observed about one job, before it is put into words.

    Attributes:
        stdout: standard output, decoded as UTF-8 (invalid bytes replaced), at most
            ``limits.output_bytes`` bytes before decoding.
        stderr: standard error, likewise.
        exit_code: the exit status when the job exited; None when a signal ended it.
        signal: the number of the signal that ended it, or None.
        timed_out: the wall-clock limit was reached and the job was killed.
        memory_exceeded: the kernel killed a process of the job for memory (cgroup OOM).
        cpu_exceeded: a process used up its CPU-time limit.
        pids_exceeded: the job tried to have more than ``limits.pids`` tasks at once.
        output_truncated: a stream went past ``limits.output_bytes``; the job was stopped.
        duration_ms: wall time from the code's start to the job's end, milliseconds.
        peak_memory_bytes: the job's peak memory (cgroup), or None where not measured.
        error: the worker could not run the job at all (set up failed); words for logs.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    stdout: str = ""
    stderr: str = ""
    exit_code: int | None = None
    signal: int | None = None
    timed_out: bool = False
    memory_exceeded: bool = False
    cpu_exceeded: bool = False
    pids_exceeded: bool = False
    output_truncated: bool = False
    duration_ms: float = 0.0
    peak_memory_bytes: int | None = None
    error: str | None = None


class RunResult(JobOutcome):
    """The answer to a :class:`RunRequest`: the outcome, its words, and where it ran.

    Attributes:
        status: one human line, from :func:`describe_outcome` ("exit 0", "timed out after
            5 s", "ran out of memory (limit 512 MiB)", "killed by SIGSEGV", ...).
        ok: the snippet ran to its end by itself (no limit hit, no signal, no worker error);
            its exit code may still be non-zero.
        limits: the limits the job ran under.
        backend: how it was isolated (see :data:`Backend`).
        cached: answered from the curated-result cache, not run now.
        torch_version: the torch the worker has loaded, e.g. ``2.13.0``.
    """

    status: str
    ok: bool
    limits: Limits
    backend: Backend
    cached: bool = False
    torch_version: str

    @classmethod
    def from_outcome(
        cls,
        outcome: JobOutcome,
        limits: Limits,
        backend: Backend,
        torch_version: str,
        cached: bool = False,
    ) -> Self:
        """Wrap an outcome with its status line and provenance."""
        return cls(
            **outcome.model_dump(),
            status=describe_outcome(outcome, limits),
            ok=outcome_ok(outcome),
            limits=limits,
            backend=backend,
            cached=cached,
            torch_version=torch_version,
        )

    @property
    def output(self) -> str:
        """stdout followed by stderr, as a terminal would show a short run."""
        return self.stdout + self.stderr


def outcome_ok(outcome: JobOutcome) -> bool:
    """True when the job ended by itself: no limit hit, no signal, no worker error."""
    return not (
        outcome.error
        or outcome.timed_out
        or outcome.memory_exceeded
        or outcome.cpu_exceeded
        or outcome.output_truncated
        or outcome.signal is not None
    )


def _seconds(value: float) -> str:
    return f"{value:g} s"


def _bytes(value: int) -> str:
    if value % (1024 * 1024) == 0:
        return f"{value // (1024 * 1024)} MiB"
    if value % 1024 == 0:
        return f"{value // 1024} KiB"
    return f"{value} bytes"


def signal_name(number: int) -> str:
    """``SIGSEGV`` for 11; ``signal 99`` for a number this platform does not name."""
    try:
        return _signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def describe_outcome(outcome: JobOutcome, limits: Limits) -> str:
    """The one human status line for an outcome; the only place outcomes become words.

    The most telling cause wins: worker error, wall time, memory, CPU time, output cap,
    signal, then the exit status. A process limit that was hit is appended as a note.

    Args:
        outcome: what the worker observed.
        limits: the limits the job ran under (quoted in the words).

    Returns:
        e.g. ``"timed out after 5 s"``, ``"ran out of memory (limit 512 MiB)"``,
        ``"killed by SIGSEGV"``, ``"exit 1"``, ``"exit 0 (hit the limit of 32 processes)"``.
    """
    if outcome.error:
        return f"could not run: {outcome.error}"
    if outcome.timed_out:
        words = f"timed out after {_seconds(limits.wall_s)}"
    elif outcome.memory_exceeded:
        words = f"ran out of memory (limit {limits.memory_mib} MiB)"
    elif outcome.cpu_exceeded:
        words = f"used up its CPU time (limit {_seconds(limits.cpu_s)})"
    elif outcome.output_truncated:
        words = f"stopped: printed more than {_bytes(limits.output_bytes)}"
    elif outcome.signal is not None:
        words = f"killed by {signal_name(outcome.signal)}"
    else:
        words = f"exit {outcome.exit_code}"
    if outcome.pids_exceeded:
        words += f" (hit the limit of {limits.pids} processes)"
    return words


class ErrorBody(BaseModel):
    """An error answer from the service (and ``tutor sandbox run --json`` on refusal).

    Attributes:
        error: a stable code: ``too_large``, ``invalid``, ``refused``, ``busy``,
            ``unavailable``.
        message: one sentence for a person, naming what was wrong.
        retry_after_s: for ``busy``: seconds to wait before retrying.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    error: Literal["too_large", "invalid", "refused", "busy", "unavailable"]
    message: str
    retry_after_s: float | None = None


class Health(BaseModel):
    """``GET /health``: is the worker up, how does it isolate, and how loaded is it.

    Attributes:
        ready: the warm worker is up and accepts jobs.
        backend: how jobs are isolated.
        learner_code: whether code other than curated snippets is accepted.
        isolated: what each job is isolated by, in words.
        not_isolated: what is knowingly not isolated under this backend, in words.
        reason: why the backend was chosen (e.g. why isolation is unavailable).
        torch_version: the torch the worker has loaded.
        running: jobs running now.
        queued: jobs waiting for a slot.
        concurrency: jobs that may run at once.
        queue_limit: jobs that may wait; beyond that the service answers busy.
        curated_snippets: curated snippets known (hashes loaded from content/).
        cached_results: results in the curated-result cache.
        limits: the server's default (and maximum) limits.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    ready: bool
    backend: Backend
    learner_code: bool
    isolated: list[str]
    not_isolated: list[str]
    reason: str
    torch_version: str
    running: int
    queued: int
    concurrency: int
    queue_limit: int
    curated_snippets: int
    cached_results: int
    limits: Limits
