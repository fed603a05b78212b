"""The bot: a ``commands.Bot`` built from the opened services passed in by constructor.

Nothing is created at import time. The composition root (``tutor bot``, in
``bot/cli/bot.py``) builds :class:`~bot.settings.TutorSettings`, opens
:func:`bot.services.open_services` and calls ``create_bot(services)``; the test harness does
the same with a fresh database and a fake sandbox client.

The client asks for no privileged intent (only ``guilds``), sends with
``AllowedMentions.none()`` so nothing it posts can ping anyone, and never syncs commands
on start (``tutor bot --sync`` does, once).
"""

from __future__ import annotations

import logging

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord_app.answer import DYNAMIC_ITEMS
from bot.discord_app.cogs.admin import AdminCog
from bot.discord_app.cogs.progress import ProgressCog
from bot.discord_app.cogs.quiz import QuizCog
from bot.discord_app.cogs.run import RunCog
from bot.discord_app.cogs.tutor import TutorCog
from bot.discord_app.drops import DropScheduler
from bot.discord_app.errors import TutorTree
from bot.discord_app.graphs import GRAPH_ITEMS, GraphShelf
from bot.services import Services
from bot.settings import TutorSettings

log = logging.getLogger(__name__)


def intents() -> discord.Intents:
    """The gateway intents: ``guilds`` only; no members, presences or message content."""
    wanted = discord.Intents.none()
    wanted.guilds = True
    return wanted


class TutorBot(commands.Bot):
    """The tutor's Discord client.

    Args:
        services: the opened services (their ``settings`` configure the bot too).
        run_scheduler: start the drop loop in ``setup_hook`` (tests drive ticks by hand).
    """

    def __init__(self, services: Services, *, run_scheduler: bool = True) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            help_command=None,
            intents=intents(),
            allowed_mentions=discord.AllowedMentions.none(),
            tree_cls=TutorTree,
        )
        self.settings: TutorSettings = services.settings
        self.services = services
        self.run_scheduler = run_scheduler
        self.scheduler = DropScheduler(self)
        self.graph_shelf = GraphShelf()

    async def setup_hook(self) -> None:
        """Add the cogs, register the persistent buttons, start the drop loop."""
        for cog in (QuizCog(self), RunCog(self), ProgressCog(self), TutorCog(self), AdminCog(self)):
            await self.add_cog(cog)
        self.add_dynamic_items(*DYNAMIC_ITEMS, *GRAPH_ITEMS)
        if self.run_scheduler:
            self.scheduler.start()
        if len(self.services.bank):
            log.info("bot ready to log in: %d items in the bank", len(self.services.bank))
        else:  # tutor bot --sync reads no bank: the commands' definitions do not need it
            log.info("bot ready to log in: no question bank read (syncing the commands)")

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


def create_bot(services: Services, *, run_scheduler: bool = True) -> TutorBot:
    """Build the bot (not logged in, not connected) over the opened services."""
    return TutorBot(services, run_scheduler=run_scheduler)
