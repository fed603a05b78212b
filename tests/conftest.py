"""Shared fixtures: paths and the shipped bank, loaded once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.content.loader import Bank, load_bank

ROOT = Path(__file__).resolve().parent.parent
CONTENT = ROOT / "content"


@pytest.fixture(scope="session")
def bank() -> Bank:
    """Every shipped pack under content/, validated."""
    return load_bank([CONTENT])
