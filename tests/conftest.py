"""Shared fixtures: paths and the shipped bank, loaded once per session."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bot.content.loader import Bank, load_bank

ROOT = Path(__file__).resolve().parent.parent
CONTENT = ROOT / "content"


@pytest.fixture(scope="session")
def bank() -> Bank:
    """Every shipped pack under content/, validated."""
    return load_bank([CONTENT])


def run_tutor(
    *args: str, timeout: float = 300, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m bot ARGS`` in a new process from the repository root, as a user
    would, and return its exit status and text output (no exception on a non-zero status).

    Args:
        args: the command line after ``tutor``, e.g. ``("sandbox", "run", "ok.py")``.
        timeout: seconds before the process is killed and ``TimeoutExpired`` raised.
        env: the whole environment of the process; None inherits this one.
    """
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
