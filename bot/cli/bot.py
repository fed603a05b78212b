"""``tutor bot``: the composition root of the Discord bot.

Builds the settings (environment and ``.env``, prefix ``TUTOR_``), loads the question bank,
opens the services with ``async with``, builds the bot and runs it. ``--sync`` uploads
the slash commands instead (to ``TUTOR_DEV_GUILD_ID`` when set, else globally) and exits;
a normal start never syncs.

discord.py is imported inside the handler, so other ``tutor`` commands never pay for it.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from bot.content.loader import Bank, ContentErrors, load_bank
from bot.settings import TutorSettings

if TYPE_CHECKING:
    from bot.discord_app.app import Services


class ServicesNotWired(RuntimeError):
    """The grader, progress store or sandbox client is not available in this build."""


def register(sub: Any) -> None:
    """Add ``tutor bot`` to the CLI."""
    parser = sub.add_parser("bot", help="run the Discord bot (settings: TUTOR_* variables)")
    parser.add_argument(
        "--sync",
        action="store_true",
        help="upload the slash commands (to TUTOR_DEV_GUILD_ID if set, else globally) and exit",
    )
    parser.set_defaults(handler=cmd_bot)


def load_settings() -> TutorSettings | None:
    """The settings, or None after printing each problem as ``TUTOR_FIELD: message``."""
    try:
        settings = TutorSettings()
    except ValidationError as exc:
        for err in exc.errors():
            name = "TUTOR_" + str(err["loc"][0]).upper() if err["loc"] else "settings"
            print(f"{name}: {err['msg']}", file=sys.stderr)
        return None
    if settings.discord_token is None:
        print(
            "TUTOR_DISCORD_TOKEN is not set: put the bot token in the environment or in .env "
            "(Developer Portal -> your application -> Bot -> Reset Token).",
            file=sys.stderr,
        )
        return None
    return settings


@asynccontextmanager
async def open_services(settings: TutorSettings, bank: Bank) -> AsyncIterator[Services]:
    """Open the grader, the progress store and the sandbox client; close them on exit.

    Raises:
        ServicesNotWired: until the grader (``bot.grading``), the store (``bot.progress``)
            and the sandbox client (``sandbox.client``) are merged and wired here.
    """
    raise ServicesNotWired(
        "the grader, progress store and sandbox client are not wired into `tutor bot` yet; "
        "see bot/discord_app/ports.py for what each must provide"
    )
    yield  # type: ignore[unreachable]  # phase 2 yields the opened Services here


async def run_bot(settings: TutorSettings, services: Services, *, sync: bool) -> int:
    """Log in and either sync the commands or run until stopped.

    Args:
        settings: the settings (``discord_token`` must be set).
        services: the opened services.
        sync: upload the command tree and return instead of connecting to the gateway.

    Returns:
        The exit status (0).
    """
    from bot.discord_app.app import create_bot

    if settings.discord_token is None:
        raise ValueError("settings.discord_token is required")
    token = settings.discord_token.get_secret_value()
    bot = create_bot(settings, services, run_scheduler=not sync)
    async with bot:
        if sync:
            await bot.login(token)
            commands = await bot.sync_commands()
            where = f"guild {settings.dev_guild_id}" if settings.dev_guild_id else "all guilds"
            names = ", ".join(sorted(f"/{c.name}" for c in commands))
            print(f"synced {len(commands)} commands to {where}: {names}")
            return 0
        await bot.start(token)
    return 0


async def _main(settings: TutorSettings, bank: Bank, *, sync: bool) -> int:
    async with open_services(settings, bank) as services:
        return await run_bot(settings, services, sync=sync)


def cmd_bot(args: argparse.Namespace) -> int:
    """Run (or ``--sync``) the bot; exit 2 on bad settings, 1 on bad content or services."""
    import discord

    settings = load_settings()
    if settings is None:
        return 2
    discord.utils.setup_logging(level=logging.getLevelNamesMapping()[settings.log_level], root=True)
    try:
        bank = load_bank([settings.content_dir])
    except ContentErrors as exc:
        for err in exc.errors:
            print(err, file=sys.stderr)
        return 1
    try:
        return asyncio.run(_main(settings, bank, sync=args.sync))
    except ServicesNotWired as exc:
        print(f"tutor bot: {exc}", file=sys.stderr)
        return 1
    except discord.LoginFailure:
        print("tutor bot: Discord rejected the token (TUTOR_DISCORD_TOKEN).", file=sys.stderr)
        return 1
