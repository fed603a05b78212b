"""``tutor bot --sync`` needs only the token and the command definitions (issue: item 11).

Discord is replaced at its edge: ``login`` runs the bot's real ``setup_hook`` (so every cog
and command is defined) without the network, and the sync returns the tree's commands.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import discord
import pytest

from bot.cli import main
from bot.discord_app.app import TutorBot
from tests.conftest import CONTENT


@pytest.fixture
def offline_discord(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Log in without the network; record the token used."""
    tokens: list[str] = []

    async def login(self: TutorBot, token: str) -> None:
        tokens.append(token)
        await self.setup_hook()

    async def sync_commands(self: TutorBot) -> list[Any]:
        return list(self.tree.get_commands())

    monkeypatch.setattr(discord.utils, "setup_logging", lambda **_: None)  # keep root clean
    monkeypatch.setattr(TutorBot, "login", login)
    monkeypatch.setattr(TutorBot, "sync_commands", sync_commands)
    return tokens


@pytest.fixture
def bot_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A token, the shipped bank, the default database path (not there yet), the local sandbox.

    The default ``data/tutor.db`` is the one path whose directory the store may create, so a
    sync that opened the store would leave ``data/`` behind.
    """
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TUTOR_DISCORD_TOKEN", "token-for-the-test")
    monkeypatch.setenv("TUTOR_CONTENT_DIR", str(CONTENT))
    monkeypatch.delenv("TUTOR_SANDBOX_ADDRESS", raising=False)
    monkeypatch.delenv("TUTOR_DATABASE_PATH", raising=False)
    return tmp_path / "data" / "tutor.db"


def _no_sandbox(*args: object, **kwargs: object) -> Any:
    raise AssertionError("tutor bot --sync started the sandbox")


def test_sync_uploads_the_commands_with_only_the_token(
    bot_env: Path,
    offline_discord: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr("bot.services.sandbox_runner", _no_sandbox)
    assert main(["bot", "--sync"]) == 0
    assert offline_discord == ["token-for-the-test"]
    out = capsys.readouterr().out
    assert out.startswith("synced ")
    assert "/quiz" in out


def test_sync_opens_no_database(
    bot_env: Path, offline_discord: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("bot.services.sandbox_runner", _no_sandbox)
    assert main(["bot", "--sync"]) == 0
    assert not bot_env.exists()
    assert not bot_env.parent.exists()


def test_sync_ignores_the_sandbox_variables(
    bot_env: Path, offline_discord: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TUTOR_SANDBOX_WALL_S", "-1")  # only the worker reads it
    assert main(["bot", "--sync"]) == 0


def test_a_blank_token_is_refused_before_any_network_call(
    bot_env: Path,
    offline_discord: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("TUTOR_DISCORD_TOKEN", "   ")
    assert main(["bot", "--sync"]) == 2
    assert offline_discord == []
    assert "TUTOR_DISCORD_TOKEN is blank" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("token", "words"),
    [(None, "is not set"), ("", "is not set"), ("   ", "is blank (only spaces)")],
    ids=["unset", "empty", "spaces"],
)
def test_a_missing_token_is_one_line_prefixed_like_every_setting_error(
    token: str | None,
    words: str,
    bot_env: Path,
    offline_discord: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """fresh22 #12: ``TUTOR_DISCORD_TOKEN is not set: ...`` lacked the ``tutor bot:`` every
    other setting error of the command carries (``tutor bot: TUTOR_DROP_TICK_S: ...``)."""
    if token is None:
        monkeypatch.delenv("TUTOR_DISCORD_TOKEN")
    else:
        monkeypatch.setenv("TUTOR_DISCORD_TOKEN", token)
    for argv in (["bot", "--sync"], ["bot"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"tutor bot: TUTOR_DISCORD_TOKEN {words}: put the bot token ")
        assert err.count("\n") == 1
    assert offline_discord == []


def test_voice_warnings_are_not_shown(
    bot_env: Path,
    offline_discord: list[str],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setattr(discord.VoiceClient, "warn_nacl", True)
    monkeypatch.setattr(discord.VoiceClient, "warn_dave", True, raising=False)
    assert main(["bot", "--sync"]) == 0
    assert not [r for r in caplog.records if "voice will NOT be supported" in r.getMessage()]


def test_a_broken_pack_is_named_with_the_command_prefix(
    bot_env: Path,
    offline_discord: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Every line of a broken pack's report carries "tutor bot:", as every other setting
    error does (fix22's leftover: the file:line:col lines were bare)."""
    packs = tmp_path / "packs"
    packs.mkdir()
    (packs / "broken.yaml").write_text("items: [\n", encoding="utf-8")
    monkeypatch.setenv("TUTOR_CONTENT_DIR", str(packs))
    monkeypatch.setattr("bot.services.sandbox_runner", _no_sandbox)
    assert main(["bot"]) == 1  # the bank is read before the sandbox starts
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines
    assert all(line.startswith("tutor bot: ") for line in lines), lines
    assert any("broken.yaml" in line for line in lines)


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("TUTOR_DATABASE_PATH", "/nonexistent/x.db"),
        ("TUTOR_DATABASE_PATH", "."),
        ("TUTOR_CONTENT_DIR", "/nonexistent"),
        ("TUTOR_DROP_TICK_S", "-1"),
    ],
)
def test_sync_needs_no_database_content_or_other_setting(
    variable: str,
    value: str,
    bot_env: Path,
    offline_discord: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """fresh24 #3: the README says sync needs only the token, yet a bad database path
    stopped it with exit 2 and a bad content directory with exit 1. No command's definition
    depends on the bank (topics autocomplete at run time), so neither is read."""
    monkeypatch.setenv(variable, value)
    monkeypatch.setattr("bot.services.sandbox_runner", _no_sandbox)
    monkeypatch.setattr("bot.services.load_bank", _no_bank)
    assert main(["bot", "--sync"]) == 0
    assert offline_discord == ["token-for-the-test"]
    assert "/quiz" in capsys.readouterr().out
    assert not bot_env.parent.exists()


def _no_bank(*args: object, **kwargs: object) -> Any:
    raise AssertionError("tutor bot --sync read the question bank")


def test_sync_still_syncs_to_the_dev_guild_and_refuses_a_bad_one(
    bot_env: Path,
    offline_discord: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("TUTOR_DEV_GUILD_ID", "1234")
    assert main(["bot", "--sync"]) == 0
    assert "to guild 1234" in capsys.readouterr().out
    monkeypatch.setenv("TUTOR_DEV_GUILD_ID", "-5")
    assert main(["bot", "--sync"]) == 2
    assert capsys.readouterr().err.startswith("tutor bot: TUTOR_DEV_GUILD_ID: ")
