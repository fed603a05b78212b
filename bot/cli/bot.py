"""``tutor bot``: the composition root of the Discord bot.

Builds the settings (environment and ``.env``, prefix ``TUTOR_``), opens the services with
:func:`bot.services.open_services` (bank, grader, progress store, sandbox: a running worker,
or a local one started here), builds the bot over them and runs it. ``--sync`` uploads the
slash commands instead (to ``TUTOR_DEV_GUILD_ID`` when set, else globally) and exits: it
needs only the token and the command definitions (:func:`bot.services.command_services`),
so it opens no database, starts no sandbox and reads no pack, and reads only
``TUTOR_DISCORD_TOKEN``, ``TUTOR_DEV_GUILD_ID`` and ``TUTOR_LOG_LEVEL``
(:class:`bot.settings.SyncSettings`): a bad database path or content directory cannot stop
it. A normal start never syncs. Every failure to
start ends with one line saying what and where (a local sandbox's also with its last log
lines), and exit status 1 (2 for bad settings, ``TUTOR_SANDBOX_*`` ones included).

discord.py, aiohttp and the services are imported inside the handler, so other ``tutor``
commands never pay for them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sqlite3
import sys
from typing import TYPE_CHECKING, Any, Final, TextIO, TypeVar

from bot.content.loader import ContentErrors
from bot.health import GatewayState, HeartbeatWriter, heartbeat_path
from bot.settings import SyncSettings, TutorSettings
from sandbox.errors import SandboxError, SandboxStartFailed

if TYPE_CHECKING:
    import discord

    from bot.services import Services


def register(sub: Any) -> None:
    """Add ``tutor bot`` to the CLI."""
    parser = sub.add_parser("bot", help="run the Discord bot (settings: TUTOR_* variables)")
    parser.add_argument(
        "--sync",
        action="store_true",
        help="upload the slash commands (to TUTOR_DEV_GUILD_ID if set, else globally) and exit",
    )
    parser.set_defaults(handler=cmd_bot)


_S = TypeVar("_S", TutorSettings, SyncSettings)


def load_settings(cls: type[_S]) -> _S | None:
    """The settings, or None after printing each problem as ``tutor bot: TUTOR_FIELD:
    message`` (:func:`bot.cli.settings_check.read_settings`); a token that is missing or
    only spaces is one line with the same ``tutor bot:`` prefix (fresh22 #12: it had
    none)."""
    from bot.cli.settings_check import read_settings

    settings = read_settings(cls, "tutor bot")
    if settings is None:
        return None
    if settings.discord_token is None:
        print(
            "tutor bot: TUTOR_DISCORD_TOKEN is not set: put the bot token in the environment "
            "or in .env (Developer Portal -> your application -> Bot -> Reset Token).",
            file=sys.stderr,
        )
        return None
    if not settings.discord_token.get_secret_value().strip():
        print(
            "tutor bot: TUTOR_DISCORD_TOKEN is blank (only spaces): put the bot token in the "
            "environment or in .env (Developer Portal -> your application -> Bot -> Reset "
            "Token).",
            file=sys.stderr,
        )
        return None
    return settings


class NoVoiceWarnings(logging.Filter):
    """Drops discord.py's start-up warnings that voice is unsupported (PyNaCl, davey are
    not installed): the tutor uses app commands only, never voice, so they only alarm."""

    def filter(self, record: logging.LogRecord) -> bool:
        """False for a "voice will NOT be supported" record."""
        return not record.getMessage().endswith("voice will NOT be supported")


LOG_FORMAT: Final = "[{asctime}] [{levelname:<8}] {name}: {message}"
"""discord.py's own plain format (``discord.utils.setup_logging`` without colour)."""


def configure_logging(level: int, stream: TextIO | None = None) -> None:
    """Log to ``stream`` (stderr) with discord.py's format, in colour only on a terminal.

    discord.py's :func:`discord.utils.stream_supports_colour` also says yes inside Docker
    whether or not a terminal is attached, so ``docker compose logs`` showed its colour
    codes (fresh26); a stream that is not a TTY gets the plain formatter instead.
    """
    import discord

    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    isatty = getattr(handler.stream, "isatty", None)
    if callable(isatty) and isatty():
        discord.utils.setup_logging(handler=handler, level=level, root=True)
    else:
        plain = logging.Formatter(LOG_FORMAT, "%Y-%m-%d %H:%M:%S", style="{")
        discord.utils.setup_logging(handler=handler, formatter=plain, level=level, root=True)


def preload() -> None:
    """Load the grader's English word list before discord.py and the store are imported.

    The list (47,000 words) is read from pyspellchecker's 160,000-entry frequency list, which
    briefly takes ~45 MiB. Loaded first, that memory is reused by the imports that follow
    instead of staying fragmented: about 6 MiB less idle RSS (benchmarks/discord_bot.py
    calls this too, in the same order).
    """
    from bot.grading.lexicon import known_words

    known_words()


async def run_bot(services: Services, *, sync: bool) -> int:
    """Log in and either sync the commands or run until stopped.

    Args:
        services: the opened services (``services.settings.discord_token`` must be set).
        sync: upload the command tree and return instead of connecting to the gateway.

    Returns:
        The exit status (0).

    Raises:
        ValueError: no token in the settings.
        discord.LoginFailure: Discord rejected the token.
        aiohttp.ClientError: Discord cannot be reached.
    """
    from bot.discord_app.app import create_bot

    settings = services.settings
    if settings.discord_token is None:
        raise ValueError("settings.discord_token is required")
    token = settings.discord_token.get_secret_value()
    bot = create_bot(services, run_scheduler=not sync)
    async with bot:
        if sync:
            await bot.login(token)
            commands = await bot.sync_commands()
            where = f"guild {settings.dev_guild_id}" if settings.dev_guild_id else "all guilds"
            names = ", ".join(sorted(f"/{c.name}" for c in commands))
            print(f"synced {len(commands)} commands to {where}: {names}")
            return 0
        # `tutor health --check heartbeat` (the compose healthcheck) reads this file.
        heartbeat = HeartbeatWriter(heartbeat_path(settings), lambda: gateway_state(bot))
        beating = asyncio.create_task(heartbeat.run(), name="heartbeat")
        # `docker stop` sends SIGTERM: close the gateway and let the services close in
        # order, instead of dying mid-step (the default for SIGTERM).
        closing: list[asyncio.Task[None]] = []
        loop = asyncio.get_running_loop()
        with contextlib.suppress(NotImplementedError):  # no signal handlers on Windows
            loop.add_signal_handler(
                signal.SIGTERM, lambda: closing.append(asyncio.create_task(bot.close()))
            )
        try:
            await bot.start(token)
        finally:
            beating.cancel()
            with contextlib.suppress(NotImplementedError):
                loop.remove_signal_handler(signal.SIGTERM)
    return 0


def gateway_state(client: discord.Client) -> GatewayState:
    """The bot's Discord connection now, for its heartbeat file (:mod:`bot.health`)."""
    ws = client.ws
    connected = client.is_ready() and not client.is_closed() and ws is not None and ws.open
    return GatewayState(
        connected=connected, guilds=len(client.guilds), latency_ms=client.latency * 1000
    )


async def _main(settings: TutorSettings, *, sync: bool) -> int:
    from bot.services import command_services, open_services

    if sync:  # uploading the commands needs the token and their definitions, nothing else
        from bot.content.loader import Bank

        # no definition depends on the bank (topic autocompletes at run time): none is read
        return await run_bot(await command_services(settings, bank=Bank(packs=[])), sync=True)
    async with open_services(settings) as services:
        return await run_bot(services, sync=False)


def cmd_bot(args: argparse.Namespace) -> int:
    """Run (or ``--sync``) the bot.

    Returns:
        0 after a clean stop; 2 on bad settings; 1 when the content, the database, the
        sandbox or Discord stops the start (one line on stderr says which and why).
    """
    if args.sync:
        # only the token, the guild and the log level: no database, pack or sandbox setting
        # can stop a sync (fresh24 #3)
        synced = load_settings(SyncSettings)
        if synced is None:
            return 2
        settings = synced.bot_settings()
    else:
        loaded = load_settings(TutorSettings)
        if loaded is None:
            return 2
        settings = loaded
    if not args.sync and settings.sandbox_endpoint.kind == "local":
        from bot.cli.sandbox import bad_sandbox_settings

        if bad_sandbox_settings("tutor bot"):
            return 2
    preload()
    import aiohttp
    import discord

    configure_logging(logging.getLevelNamesMapping()[settings.log_level])
    logging.getLogger("discord.client").addFilter(NoVoiceWarnings())
    try:
        return asyncio.run(_main(settings, sync=args.sync))
    except ContentErrors as exc:
        from bot.cli.content import bank_not_found

        missing = bank_not_found(settings.content_dir)
        for err in [missing] if missing else exc.errors:  # prefixed as tutor play does
            print(f"tutor bot: {err}", file=sys.stderr)
        return 1
    except sqlite3.Error as exc:
        from bot.progress.db import describe_open_error

        where = settings.database_path
        why = describe_open_error(where, exc)
        print(f"tutor bot: cannot open the database {where}: {why}", file=sys.stderr)
        return 1
    except SandboxStartFailed as exc:
        print(f"tutor bot: the sandbox did not start: {exc.details()}", file=sys.stderr)
        return 1
    except SandboxError as exc:
        print(f"tutor bot: the sandbox did not start: {exc}", file=sys.stderr)
        return 1
    except discord.LoginFailure:
        print("tutor bot: Discord rejected the token (TUTOR_DISCORD_TOKEN).", file=sys.stderr)
        return 1
    except discord.HTTPException as exc:
        print(f"tutor bot: Discord answered HTTP {exc.status} at login.", file=sys.stderr)
        return 1
    except (aiohttp.ClientError, OSError) as exc:
        print(
            f"tutor bot: cannot reach Discord ({type(exc).__name__}: {exc}); check the "
            "network and any proxy.",
            file=sys.stderr,
        )
        return 1
