"""Fixtures: a fresh fake Discord, the real services on a fresh database, a logged-in bot.

The grader and the progress store are the real ones (a new SQLite file per test); only the
sandbox is a fake client (``tests/fake_sandbox.py``), so a test can make it slow, down or
refusing. One slow test (``test_real_sandbox.py``) runs the real local sandbox.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path

import discord
import pytest

from bot.content.loader import Bank, load_bank
from bot.services import Services, open_services
from bot.settings import TutorSettings
from tests.discord_app.harness import TOKEN, FakeDiscord, Harness
from tests.fake_sandbox import Clock, FakeSandboxRunner

HERE = Path(__file__).resolve().parent
FIXTURE_PACKS = [HERE.parent / "content" / "valid.yaml", HERE / "why_pack.yaml"]

Opener = Callable[[], AbstractAsyncContextManager[Services]]


@pytest.fixture(scope="session")
def test_bank() -> Bank:
    """TF1 (true/false) and WHY1 (free text): one item of each button layout."""
    return load_bank(FIXTURE_PACKS)


@pytest.fixture
def clock() -> Clock:
    """Monday 3 March 2025, 08:00 UTC: the services' and the store's clock."""
    return Clock()


@pytest.fixture
def sandbox(test_bank: Bank) -> FakeSandboxRunner:
    return FakeSandboxRunner(test_bank)


@pytest.fixture
def settings(tmp_path: Path) -> TutorSettings:
    return TutorSettings(
        _env_file=None,  # type: ignore[call-arg]
        discord_token=TOKEN,  # type: ignore[arg-type]
        database_path=tmp_path / "tutor.db",
        run_cooldown_s=30,
    )


@pytest.fixture
def opener(
    settings: TutorSettings, test_bank: Bank, clock: Clock, sandbox: FakeSandboxRunner
) -> Opener:
    """Opens the services as ``tutor bot`` does; called again by a harness restart, on the
    same database file."""
    return lambda: open_services(settings, bank=test_bank, clock=clock, runner=sandbox)


@pytest.fixture
async def services(opener: Opener) -> AsyncIterator[Services]:
    async with opener() as opened:
        yield opened


@pytest.fixture
async def fake_discord(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeDiscord]:
    """A fake Discord REST API on loopback; discord.py's Route.BASE points at it."""
    fake = FakeDiscord()
    url = await fake.start()
    monkeypatch.setattr(discord.http.Route, "BASE", f"{url}/api/v10")
    yield fake
    await fake.stop()


@pytest.fixture
async def harness(fake_discord: FakeDiscord, opener: Opener) -> AsyncIterator[Harness]:
    """The logged-in bot; after the test, every body it sent must be within Discord's limits."""
    h = Harness(fake_discord, opener)
    await h.boot()
    yield h
    await h.close()
    assert fake_discord.violations == [], "\n".join(fake_discord.violations)
