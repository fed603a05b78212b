"""Fixtures: a fresh fake Discord, fake services and a logged-in bot for every test."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import discord
import pytest

from bot.content.loader import Bank, load_bank
from bot.discord_app.app import Services
from bot.settings import TutorSettings
from tests.discord_app.fakes import Clock, FakeGrader, FakeSandbox, FakeStore
from tests.discord_app.harness import TOKEN, FakeDiscord, Harness

HERE = Path(__file__).resolve().parent
FIXTURE_PACKS = [HERE.parent / "content" / "valid.yaml", HERE / "why_pack.yaml"]


@pytest.fixture(scope="session")
def test_bank() -> Bank:
    """TF1 (true/false) and WHY1 (free text): one item of each button layout."""
    return load_bank(FIXTURE_PACKS)


@pytest.fixture
def clock() -> Clock:
    """Monday 3 March 2025, 08:00 UTC."""
    return Clock(datetime(2025, 3, 3, 8, 0, tzinfo=UTC))


@pytest.fixture
def store(test_bank: Bank, clock: Clock) -> FakeStore:
    return FakeStore(test_bank, clock)


@pytest.fixture
def sandbox() -> FakeSandbox:
    return FakeSandbox()


@pytest.fixture
def settings() -> TutorSettings:
    return TutorSettings(
        _env_file=None,  # type: ignore[call-arg]
        discord_token=TOKEN,  # type: ignore[arg-type]
        run_cooldown_s=30,
    )


@pytest.fixture
def services(test_bank: Bank, store: FakeStore, sandbox: FakeSandbox, clock: Clock) -> Services:
    return Services(
        bank=test_bank,
        grader=FakeGrader(test_bank),
        sandbox=sandbox,
        progress=store,
        drops=store,
        clock=clock,
    )


@pytest.fixture
async def fake_discord(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeDiscord]:
    """A fake Discord REST API on loopback; discord.py's Route.BASE points at it."""
    fake = FakeDiscord()
    url = await fake.start()
    monkeypatch.setattr(discord.http.Route, "BASE", f"{url}/api/v10")
    yield fake
    await fake.stop()


@pytest.fixture
async def harness(
    fake_discord: FakeDiscord, settings: TutorSettings, services: Services
) -> AsyncIterator[Harness]:
    """The logged-in bot; after the test, every body it sent must be within Discord's limits."""
    h = Harness(fake_discord, settings, services)
    await h.boot()
    yield h
    await h.close()
    assert fake_discord.violations == [], "\n".join(fake_discord.violations)
