"""A spare whose set-up failed: retried quietly once, reported to a job when it repeats.

``run_spare`` is driven in this process with a spare whose ``prepare`` raises (no torch, no
jail): the sockets are the real SOCK_SEQPACKET queue and job sockets the zygote uses.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from sandbox import zygote
from sandbox.internal import JobAnswer, JobSpec
from sandbox.protocol import Limits
from sandbox.trace import JobTrace


class FailingSpare:
    """A spare whose jail cannot be built (as when a cgroup cannot be created)."""

    cleaned = 0

    def __init__(self, cfg: object, name: str) -> None:
        self.trace = JobTrace()

    def prepare(self) -> None:
        raise OSError(28, "No space left on device")

    def cleanup(self) -> None:
        FailingSpare.cleaned += 1

    def run(self, spec: JobSpec) -> JobAnswer:  # pragma: no cover - must not be reached
        raise AssertionError("a spare whose set-up failed ran a job")


@pytest.fixture
def sockets(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[socket.socket, ...]]:
    """(zygote's end, spare's end, worker's job queue end, spares' job queue end)."""
    monkeypatch.setattr(zygote, "Spare", FailingSpare)
    FailingSpare.cleaned = 0
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    queue, spares_queue = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    yield mine, theirs, queue, spares_queue
    for sock in (mine, theirs, queue, spares_queue):
        sock.close()


def _offer_job(queue: socket.socket) -> socket.socket:
    """Put a job on the queue as the worker does; return the worker's end of the job."""
    worker_end, job_end = socket.socketpair()
    socket.send_fds(queue, [b"run"], [job_end.fileno()])
    job_end.close()
    spec = JobSpec(code="print(1)", limits=Limits())
    worker_end.sendall(spec.model_dump_json().encode() + b"\n")
    return worker_end


def test_a_failed_spare_that_need_not_report_exits_and_leaves_the_job_queued(
    sockets: tuple[socket.socket, ...],
) -> None:
    mine, theirs, queue, spares_queue = sockets
    worker_end = _offer_job(queue)
    status = zygote.run_spare(theirs, spares_queue, None, "t-1", report_failure=False)  # type: ignore[arg-type]
    assert status == 0
    assert mine.recv(4096).startswith(b"Fsandbox set-up failed: [Errno 28]")
    assert FailingSpare.cleaned == 1
    spares_queue.setblocking(False)  # the job is still there for the next spare
    _, fds, _, _ = socket.recv_fds(spares_queue, 64, 1)
    assert len(fds) == 1
    worker_end.close()


def test_a_failed_spare_that_must_report_answers_the_job_with_its_error(
    sockets: tuple[socket.socket, ...],
) -> None:
    _, theirs, queue, spares_queue = sockets
    worker_end = _offer_job(queue)
    status = zygote.run_spare(theirs, spares_queue, None, "t-2", report_failure=True)  # type: ignore[arg-type]
    assert status == 0
    worker_end.settimeout(5)
    data = b""
    while chunk := worker_end.recv(65536):
        data += chunk
    answer = JobAnswer.model_validate_json(data)
    assert answer.outcome.error is not None
    assert "set-up failed" in answer.outcome.error
    assert "No space left on device" in answer.outcome.error
    worker_end.close()
