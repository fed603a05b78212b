"""Checking every item's snippet against its recorded ``expected_output``.

A snippet proves its item only if running it under the pinned torch prints exactly what the
item says it prints. :func:`verify_items` runs each snippet through a :class:`SnippetRunner`
and reports a readable diff per mismatch.
"""

from __future__ import annotations

import asyncio
import difflib
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Protocol, Self

from bot.content.models import Item


@dataclass(frozen=True, slots=True)
class SnippetOutput:
    """What one run printed.

    Attributes:
        output: stdout followed by stderr, as text (invalid UTF-8 replaced).
        ok: False when the run itself failed (timed out, killed, could not start); a snippet
            that raises and prints a traceback is still ``ok`` if that is what it means to do.
        status: a short human status ("exit 0", "timed out after 60 s").
        duration_s: wall time in seconds.
    """

    output: str
    ok: bool
    status: str
    duration_s: float


class SnippetRunner(Protocol):
    """Anything that can run a curated snippet and return what it printed."""

    def run(self, code: str) -> SnippetOutput:
        """Run ``code`` and return its combined output."""
        ...


class SubprocessRunner:
    """Runs each snippet in a fresh ``python -c`` with torch (no isolation; curated code only).

    Args:
        python: the interpreter that has torch installed (default: this one).
        timeout_s: wall-clock limit per snippet in seconds.
    """

    def __init__(self, python: str | None = None, timeout_s: float = 120.0) -> None:
        self.python = python or sys.executable
        self.timeout_s = timeout_s

    def run(self, code: str) -> SnippetOutput:
        """Run one snippet; stdout then stderr are returned as one text."""
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
            "PYTHONHASHSEED": "0",
            "PYTHONIOENCODING": "utf-8",
            "LANG": "C.UTF-8",
        }
        start = time.monotonic()
        try:
            proc = subprocess.run(
                [self.python, "-I", "-c", code],
                capture_output=True,
                timeout=self.timeout_s,
                env=env,
                check=False,
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            return SnippetOutput("", False, f"timed out after {self.timeout_s:g} s", self.timeout_s)
        except OSError as exc:
            return SnippetOutput("", False, f"could not start {self.python}: {exc.strerror}", 0.0)
        text = proc.stdout.decode("utf-8", "replace") + proc.stderr.decode("utf-8", "replace")
        status = f"exit {proc.returncode}"
        return SnippetOutput(text, proc.returncode >= 0, status, time.monotonic() - start)


class SandboxRunner:
    """Runs each snippet through a local sandbox worker: the isolation learner code gets.

    The default runner of ``tutor content verify``. Use it as a context manager; it starts
    ``python -m sandbox serve`` on a private socket (the worker's zygote loads torch once)
    and stops it on exit. Every run bypasses the result cache.

    Args:
        content: the packs being verified; their snippets count as curated, so they run
            even where the sandbox has no isolation.
        python: the interpreter that has torch installed (default: this one).
    """

    def __init__(self, content: Sequence[Path], python: str | None = None) -> None:
        from sandbox.client import LocalSandbox

        self._local = LocalSandbox(content=content, python=python)
        self._loop: asyncio.Runner | None = None

    def __enter__(self) -> Self:
        """Start the local worker.

        Raises:
            SandboxStartFailed: it did not start (its event loop is closed again, so
                nothing leaks into the caller).
        """
        loop = asyncio.Runner()
        try:
            self._client = loop.run(self._local.__aenter__())
        except BaseException:
            loop.close()
            raise
        self._loop = loop
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._loop is not None:
            self._loop.run(self._local.__aexit__(None, None, None))
            self._loop.close()
            self._loop = None

    def run(self, code: str) -> SnippetOutput:
        """Run one snippet in the sandbox; stdout then stderr are returned as one text."""
        from sandbox.errors import SandboxError

        assert self._loop is not None, "use SandboxRunner as a context manager"
        start = time.monotonic()
        try:
            result = self._loop.run(self._client.run(code, use_cache=False))
        except SandboxError as exc:
            return SnippetOutput("", False, f"sandbox: {exc}", time.monotonic() - start)
        return SnippetOutput(result.output, result.ok, result.status, result.duration_ms / 1000)


def normalise_output(text: str) -> str:
    """Compare outputs modulo trailing whitespace on each line and at the end."""
    return "\n".join(line.rstrip() for line in text.rstrip().splitlines())


@dataclass(frozen=True, slots=True)
class VerifyResult:
    """The outcome for one item: ``diff`` is empty when the output matched."""

    item_id: str
    matched: bool
    status: str
    diff: str
    actual: str
    duration_s: float


def diff_outputs(item_id: str, expected: str, actual: str) -> str:
    """A unified diff from the recorded output to the real one (empty when they agree)."""
    lines = difflib.unified_diff(
        normalise_output(expected).splitlines(),
        normalise_output(actual).splitlines(),
        fromfile=f"{item_id} expected_output",
        tofile=f"{item_id} real output",
        lineterm="",
    )
    return "\n".join(lines)


def verify_items(
    items: Iterable[Item],
    runner: SnippetRunner,
    progress: Callable[[int, int, VerifyResult], None] | None = None,
) -> list[VerifyResult]:
    """Run every item's snippet and compare with ``expected_output``.

    Args:
        items: the items to check.
        runner: how snippets are run.
        progress: called after each item with (done, total, result).

    Returns:
        One result per item, in order.
    """
    todo = list(items)
    results: list[VerifyResult] = []
    for done, item in enumerate(todo, start=1):
        out = runner.run(item.snippet)
        diff = diff_outputs(item.id, item.expected_output, out.output) if out.ok else ""
        matched = out.ok and not diff
        result = VerifyResult(item.id, matched, out.status, diff, out.output, out.duration_s)
        results.append(result)
        if progress is not None:
            progress(done, len(todo), result)
    return results
