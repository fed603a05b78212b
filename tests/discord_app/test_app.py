"""The client's configuration and command sync (``tutor bot --sync``)."""

from __future__ import annotations

import discord
import pytest

from bot.cli.bot import run_bot
from bot.discord_app.app import Services, create_bot
from bot.settings import TutorSettings
from tests.discord_app.harness import TOKEN, FakeDiscord, Harness

COMMANDS = ["leaderboard", "quiz", "review", "run", "stats", "tutor"]


def test_the_client_asks_for_no_privileged_intent(
    settings: TutorSettings, services: Services
) -> None:
    bot = create_bot(settings, services)
    assert bot.intents.value == discord.Intents(guilds=True).value
    assert not bot.intents.message_content
    assert not bot.intents.members
    assert not bot.intents.presences


def test_the_client_never_pings(settings: TutorSettings, services: Services) -> None:
    bot = create_bot(settings, services)
    assert bot.allowed_mentions is not None
    assert bot.allowed_mentions.to_dict() == {"parse": []}  # replied_user defaults to false


async def test_starting_the_bot_does_not_sync_commands(harness: Harness) -> None:
    assert [r.route for r in harness.fake.requests] == [
        "GET /users/@me",
        "GET /oauth2/applications/@me",
    ]


async def test_sync_uploads_every_command_to_the_dev_guild(
    fake_discord: FakeDiscord, services: Services, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = TutorSettings(
        _env_file=None,  # type: ignore[call-arg]
        discord_token=TOKEN,  # type: ignore[arg-type]
        dev_guild_id=123456789012345678,
    )
    assert await run_bot(settings, services, sync=True) == 0
    [sync] = fake_discord.routes("PUT /applications/{id}/guilds/{id}/commands")
    assert (
        sync.path
        == f"/applications/{fake_discord.application_id}/guilds/123456789012345678/commands"
    )
    assert sorted(c["name"] for c in sync.body) == COMMANDS
    tutor = next(c for c in sync.body if c["name"] == "tutor")
    assert sorted(o["name"] for o in tutor["options"]) == [
        "drops",
        "export",
        "forget-me",
        "settings",
    ]
    drops = next(o for o in tutor["options"] if o["name"] == "drops")
    assert sorted(o["name"] for o in drops["options"]) == ["now", "off", "set"]
    assert fake_discord.violations == []
    assert capsys.readouterr().out.startswith(
        "synced 6 commands to guild 123456789012345678: /leaderboard"
    )


async def test_sync_without_a_dev_guild_is_global(
    fake_discord: FakeDiscord, settings: TutorSettings, services: Services
) -> None:
    assert await run_bot(settings, services, sync=True) == 0
    assert [r.route for r in fake_discord.routes() if r.route.startswith("PUT")] == [
        "PUT /applications/{id}/commands"
    ]
