"""Sandbox errors, shared by the worker, the service and the client (no torch, no aiohttp)."""

from __future__ import annotations


class SandboxError(Exception):
    """Base of every sandbox error; ``str()`` is one sentence for a person."""


class SandboxUnavailable(SandboxError):
    """The sandbox is down, did not start, or did not answer in time."""


class SandboxTimeout(SandboxUnavailable):
    """The sandbox took longer than the client's timeout to answer one request.

    Not retried, on the same worker or another: the job may still be running there, and
    running it again would only double the wait.
    """


class SandboxBusy(SandboxUnavailable):
    """Every slot and queue place is taken.

    Attributes:
        retry_after_s: seconds after which a retry is likely to be accepted.
    """

    def __init__(self, message: str, retry_after_s: float) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class SandboxRejected(SandboxError):
    """The request itself was refused (too large, invalid, or learner code without isolation).

    Attributes:
        code: the :class:`~sandbox.protocol.ErrorBody` error code.
    """

    def __init__(self, message: str, code: str = "refused") -> None:
        super().__init__(message)
        self.code = code
