"""Sandbox errors, shared by the worker, the service and the client (no torch, no aiohttp)."""

from __future__ import annotations

import re
from typing import Final


class SandboxError(Exception):
    """Base of every sandbox error; ``str()`` is one sentence for a person."""


class SandboxUnavailable(SandboxError):
    """The sandbox is down, did not start, or did not answer in time."""


class SandboxStartFailed(SandboxUnavailable):
    """A local worker (:class:`~sandbox.client.LocalSandbox`) did not start.

    ``str()`` is one line that ends with the reason: the last line the worker wrote to its
    log (e.g. ``sandbox: the sandbox could not start: OSError: building the jail root: ...``).

    Attributes:
        reason: that last log line (printable characters only, at most 500), or "" when
            the worker wrote nothing.
        log_tail: the worker's last log lines (at most :data:`LOG_TAIL_LINES`), for a
            front end's debug output or a server's log.
    """

    def __init__(self, message: str, reason: str = "", log_tail: tuple[str, ...] = ()) -> None:
        super().__init__(f"{message}: {reason}" if reason else message)
        self.reason = reason
        self.log_tail = log_tail

    def details(self) -> str:
        """The message, then the worker's last log lines indented (several lines)."""
        lines = [str(self)]
        if self.log_tail:
            lines.append("the sandbox worker's last log lines:")
            lines += [f"  {line}" for line in self.log_tail]
        return "\n".join(lines)


LOG_TAIL_LINES = 20
"""Lines of a failed local worker's log kept in :attr:`SandboxStartFailed.log_tail`."""


def log_tail(text: str, lines: int = LOG_TAIL_LINES) -> tuple[str, ...]:
    """The last ``lines`` non-blank lines of a log, each cut to 500 printable characters."""
    kept = [line.rstrip() for line in text.splitlines() if line.strip()][-lines:]
    return tuple("".join(c if c.isprintable() else "?" for c in line)[:500] for line in kept)


_EXCEPTION_LINE: Final = re.compile(r"^\s*(\w+\.)*\w*(Error|Exception|Exit)\b.*:")


def failure_reason(tail: tuple[str, ...]) -> str:
    """The line of a failed worker's log tail that says why: the last one naming an
    exception (``ModuleNotFoundError: No module named 'torch'``), else the last line.

    A worker started with a Python that lacks torch or pydantic logs a traceback and then a
    generic "exited during start-up" line; the generic line alone tells a user nothing.
    """
    for line in reversed(tail):
        if _EXCEPTION_LINE.match(line):
            return line.strip()
    return tail[-1] if tail else ""


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
