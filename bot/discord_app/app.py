"""The bot: a ``commands.Bot`` built from settings and services passed in by constructor.

Nothing is created at import time. The composition root (``tutor bot``, in
``bot/cli/bot.py``) builds :class:`~bot.settings.TutorSettings` and :class:`Services`, then
``create_bot(settings, services)``; the test harness does the same with in-memory fakes.

The client asks for no privileged intent (only ``guilds``), sends with
``AllowedMentions.none()`` so nothing it posts can ping anyone, and never syncs commands
on start (``tutor bot --sync`` does, once).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

import discord
from discord import app_commands
from discord.ext import commands

from bot.content.loader import Bank
from bot.discord_app.answer import DYNAMIC_ITEMS
from bot.discord_app.cogs.progress import ProgressCog
from bot.discord_app.cogs.quiz import QuizCog
from bot.discord_app.cogs.run import RunCog
from bot.discord_app.cogs.tutor import TutorCog
from bot.discord_app.drops import DropScheduler
from bot.discord_app.errors import TutorTree
from bot.discord_app.graphs import GRAPH_ITEMS, GraphShelf
from bot.discord_app.ports import Drops, Grader, Progress, Sandbox
from bot.settings import TutorSettings

log = logging.getLogger(__name__)


def utc_now() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class Services:
    """The domain services the bot uses, built by the composition root.

    Attributes:
        bank: the question bank (validated packs from ``settings.content_dir``).
        grader: grades responses (``bot.grading``).
        sandbox: runs snippets (``sandbox.client`` with the result cache).
        progress: the progress store (``bot.progress``).
        drops: the drop state machine (``bot.progress``, often the same object).
        clock: the current time in UTC; injected so tests control time.
    """

    bank: Bank
    grader: Grader
    sandbox: Sandbox
    progress: Progress
    drops: Drops
    clock: Callable[[], datetime] = field(default=utc_now)


def intents() -> discord.Intents:
    """The gateway intents: ``guilds`` only; no members, presences or message content."""
    wanted = discord.Intents.none()
    wanted.guilds = True
    return wanted


class TutorBot(commands.Bot):
    """The tutor's Discord client.

    Args:
        settings: the process settings.
        services: the domain services.
        run_scheduler: start the drop loop in ``setup_hook`` (tests drive ticks by hand).
    """

    def __init__(
        self, settings: TutorSettings, services: Services, *, run_scheduler: bool = True
    ) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            help_command=None,
            intents=intents(),
            allowed_mentions=discord.AllowedMentions.none(),
            tree_cls=TutorTree,
        )
        self.settings = settings
        self.services = services
        self.run_scheduler = run_scheduler
        self.scheduler = DropScheduler(self)
        self.graph_shelf = GraphShelf()

    async def setup_hook(self) -> None:
        """Add the cogs, register the persistent buttons, start the drop loop."""
        for cog in (QuizCog(self), RunCog(self), ProgressCog(self), TutorCog(self)):
            await self.add_cog(cog)
        self.add_dynamic_items(*DYNAMIC_ITEMS, *GRAPH_ITEMS)
        if self.run_scheduler:
            self.scheduler.start()
        log.info("bot ready to log in: %d items in the bank", len(self.services.bank))

    async def close(self) -> None:
        """Stop the drop loop, then disconnect."""
        await self.scheduler.stop()
        await super().close()

    async def sync_commands(self) -> list[app_commands.AppCommand]:
        """Upload the command tree: to ``settings.dev_guild_id`` if set, else globally.

        Returns:
            The commands as Discord registered them.
        """
        guild_id = self.settings.dev_guild_id
        if guild_id is None:
            return await self.tree.sync()
        guild = discord.Object(id=guild_id)
        self.tree.copy_global_to(guild=guild)
        return await self.tree.sync(guild=guild)


def create_bot(
    settings: TutorSettings, services: Services, *, run_scheduler: bool = True
) -> TutorBot:
    """Build the bot (not logged in, not connected)."""
    return TutorBot(settings, services, run_scheduler=run_scheduler)
