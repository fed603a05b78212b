"""Fixtures for ``tutor play``: services over a fresh database and the fake sandbox."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.content.loader import Bank
from bot.play.session import PlaySession
from bot.services import Services, open_services
from bot.settings import TutorSettings
from tests.fake_sandbox import FakeSandboxRunner

LEARNER = 42


def settings_for(tmp_path: Path, **fields: object) -> TutorSettings:
    """Settings with no .env and a database under ``tmp_path``."""
    return TutorSettings(_env_file=None, database_path=tmp_path / "tutor.db", **fields)  # type: ignore[call-arg, arg-type]


@pytest.fixture
def runner(bank: Bank) -> FakeSandboxRunner:
    return FakeSandboxRunner(bank)


@pytest.fixture
async def services(
    tmp_path: Path, bank: Bank, runner: FakeSandboxRunner
) -> AsyncIterator[Services]:
    async with open_services(settings_for(tmp_path), bank=bank, runner=runner) as opened:
        yield opened


@pytest.fixture
def session(services: Services) -> PlaySession:
    return PlaySession(services, LEARNER, measure_time=False, rng=random.Random(7))
