"""The client's configuration, command sync (``tutor bot --sync``) and a clean start."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import discord
import pytest

from bot.cli import main
from bot.cli.bot import run_bot
from bot.discord_app.app import create_bot
from bot.services import Services
from tests.conftest import CONTENT
from tests.discord_app.harness import TOKEN, FakeDiscord, Harness

COMMANDS = ["leaderboard", "quiz", "review", "run", "stats", "tutor", "tutor-admin"]


def test_the_client_asks_for_no_privileged_intent(services: Services) -> None:
    bot = create_bot(services)
    assert bot.intents.value == discord.Intents(guilds=True).value
    assert not bot.intents.message_content
    assert not bot.intents.members
    assert not bot.intents.presences


def test_the_client_never_pings(services: Services) -> None:
    bot = create_bot(services)
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
    settings = services.settings.model_copy(update={"dev_guild_id": 123456789012345678})
    assert await run_bot(dataclasses.replace(services, settings=settings), sync=True) == 0
    [sync] = fake_discord.routes("PUT /applications/{id}/guilds/{id}/commands")
    assert (
        sync.path
        == f"/applications/{fake_discord.application_id}/guilds/123456789012345678/commands"
    )
    assert sorted(c["name"] for c in sync.body) == COMMANDS
    tutor = next(c for c in sync.body if c["name"] == "tutor")
    assert sorted(o["name"] for o in tutor["options"]) == ["export", "forget-me"]
    admin = next(c for c in sync.body if c["name"] == "tutor-admin")
    assert sorted(o["name"] for o in admin["options"]) == ["drops", "settings"]
    drops = next(o for o in admin["options"] if o["name"] == "drops")
    assert sorted(o["name"] for o in drops["options"]) == ["now", "off", "set"]
    assert fake_discord.violations == []
    assert capsys.readouterr().out.startswith(
        "synced 7 commands to guild 123456789012345678: /leaderboard"
    )


async def test_only_the_admin_group_is_hidden_from_members_without_manage_server(
    fake_discord: FakeDiscord, services: Services
) -> None:
    await run_bot(services, sync=True)
    [sync] = fake_discord.routes("PUT /applications/{id}/commands")
    permissions = {c["name"]: c.get("default_member_permissions") for c in sync.body}
    assert int(permissions["tutor-admin"]) == discord.Permissions(manage_guild=True).value
    assert permissions["tutor"] is None
    assert permissions["quiz"] is None
    admin = next(c for c in sync.body if c["name"] == "tutor-admin")
    assert admin["contexts"] == [0]  # guilds only


async def test_sync_without_a_dev_guild_is_global(
    fake_discord: FakeDiscord, services: Services
) -> None:
    assert await run_bot(services, sync=True) == 0
    assert [r.route for r in fake_discord.routes() if r.route.startswith("PUT")] == [
        "PUT /applications/{id}/commands"
    ]


def test_tutor_bot_without_discord_ends_with_one_clean_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)  # no .env here
    monkeypatch.setattr(discord.utils, "setup_logging", lambda **_: None)
    monkeypatch.setattr(discord.http.Route, "BASE", "http://127.0.0.1:9/api/v10")  # refused
    monkeypatch.setenv("TUTOR_DISCORD_TOKEN", TOKEN)
    monkeypatch.setenv("TUTOR_CONTENT_DIR", str(CONTENT))
    monkeypatch.setenv("TUTOR_DATABASE_PATH", str(tmp_path / "tutor.db"))
    monkeypatch.setenv("TUTOR_SANDBOX_ADDRESS", "http://127.0.0.1:9")  # down: not fatal
    assert main(["bot"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith("tutor bot: cannot reach Discord (ClientConnectorError: ")
    assert (tmp_path / "tutor.db").exists()  # the services opened before the login
