"""``/run``: a learner's own snippet, run in the sandbox with a per-learner lock and cooldown.

The modal is the first response (the code is typed there, at most 4,000 characters). Before
it opens, the guild's switch and the learner's cooldown are checked; the guild check waits
at most :data:`PRE_MODAL_BUDGET_S` on the store so the modal still opens within Discord's
3 s, and is repeated after the submit in any case.
"""

from __future__ import annotations

import asyncio
import io
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Self

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord_app import limits
from bot.discord_app.answer import bot_of
from bot.discord_app.errors import TutorModal, UserFacingError
from bot.discord_app.graphs import run_graph_view
from bot.discord_app.render import run_message
from sandbox.errors import SandboxRejected

if TYPE_CHECKING:
    from bot.discord_app.app import TutorBot

PRE_MODAL_BUDGET_S = 1.0
"""Seconds the guild check may wait on the store before the modal opens anyway."""

RUN_DISABLED = "Admins have turned `/run` off in this server."


class RunLimiter:
    """One ``/run`` at a time per learner, and a cooldown between runs.

    Args:
        cooldown_s: seconds between the end of one run and the start of the next.
        clock: a monotonic clock in seconds (``time.monotonic`` by default).
    """

    def __init__(self, cooldown_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.cooldown_s = cooldown_s
        self.clock = clock
        self._busy: set[int] = set()
        self._last_end: dict[int, float] = {}

    def wait_s(self, learner_id: int) -> float:
        """Seconds until ``learner_id`` may run again (0 when they may now)."""
        last = self._last_end.get(learner_id)
        if last is None:
            return 0.0
        return max(0.0, self.cooldown_s - (self.clock() - last))

    def check(self, learner_id: int) -> None:
        """Raise when the learner has a run going or is cooling down.

        Raises:
            UserFacingError: with the seconds left to wait.
        """
        if learner_id in self._busy:
            raise UserFacingError("Your previous `/run` is still running.")
        wait = self.wait_s(learner_id)
        if wait > 0:
            raise UserFacingError(f"You can use `/run` again in {wait:.0f} s.")

    def begin(self, learner_id: int) -> None:
        """Mark a run as started (after :meth:`check`)."""
        self.check(learner_id)
        self._busy.add(learner_id)

    def end(self, learner_id: int) -> None:
        """Mark a run as finished; the cooldown starts now."""
        self._busy.discard(learner_id)
        self._last_end[learner_id] = self.clock()


class RunModal(TutorModal):
    """The code box of ``/run``.

    Args:
        limiter: the cog's limiter.
        public: post the output in the channel instead of privately.
        opened_by: the id of the command interaction (makes the custom_id unique).
    """

    def __init__(self, limiter: RunLimiter, *, public: bool, opened_by: int) -> None:
        super().__init__(
            title="Run a snippet", custom_id=f"tutor:modal:run:{opened_by}", timeout=15 * 60
        )
        self.limiter = limiter
        self.public = public
        self.code: discord.ui.TextInput[Self] = discord.ui.TextInput(
            label="Python with torch (CPU, no network)",
            style=discord.TextStyle.paragraph,
            placeholder="import torch\nx = torch.ones(2, requires_grad=True)\n...",
            max_length=limits.TEXT_INPUT_VALUE,
            required=True,
        )
        self.add_item(self.code)

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        """Defer, check again, run in the sandbox, then show the status and the output."""
        await interaction.response.defer(ephemeral=not self.public, thinking=True)
        bot = bot_of(interaction)
        learner = interaction.user.id
        if interaction.guild_id is not None:
            settings = await bot.services.store.get_guild_settings(interaction.guild_id)
            if not settings.run_enabled:
                raise UserFacingError(RUN_DISABLED)
        self.limiter.begin(learner)
        try:
            run = await bot.services.snippets.run_learner(self.code.value, graph=True)
        finally:
            self.limiter.end(learner)
        message = run_message(run)
        view: discord.ui.View = discord.utils.MISSING
        file: discord.File = discord.utils.MISSING
        if run.graph is not None and not run.graph.empty:
            # The graph is kept in memory under this submit's id for the "Show graph" button.
            bot.graph_shelf.put(interaction.id, run.graph)
            view = run_graph_view(interaction.id)
        if message.full_output is not None:
            file = discord.File(io.BytesIO(message.full_output), filename="output.txt")
        await interaction.followup.send(
            message.content, ephemeral=not self.public, view=view, file=file
        )


class RunCog(commands.Cog):
    """The ``/run`` command.

    Args:
        bot: the bot (settings give the cooldown; services the store and sandbox).
    """

    def __init__(self, bot: TutorBot) -> None:
        self.bot = bot
        self.limiter = RunLimiter(bot.settings.run_cooldown_s)

    async def _guild_allows(self, guild_id: int) -> bool:
        try:
            settings = await asyncio.wait_for(
                self.bot.services.store.get_guild_settings(guild_id), PRE_MODAL_BUDGET_S
            )
        except TimeoutError:
            return True  # checked again after the submit
        return settings.run_enabled

    @app_commands.command(name="run", description="Run your own torch snippet in the sandbox.")
    @app_commands.describe(public="post the output in the channel instead of only to you")
    async def run(self, interaction: discord.Interaction[Any], public: bool = False) -> None:
        """Open the code modal (the first response), unless refused.

        Refused at once where admins turned ``/run`` off, during the learner's cooldown, or
        when the sandbox last reported no isolation (checked again after the submit).
        """
        if interaction.guild_id is not None and not await self._guild_allows(interaction.guild_id):
            raise UserFacingError(RUN_DISABLED)
        health = self.bot.services.snippets.health
        if health is not None and not health.learner_code:
            raise SandboxRejected(health.reason, "refused")
        self.limiter.check(interaction.user.id)
        await interaction.response.send_modal(
            RunModal(self.limiter, public=public, opened_by=interaction.id)
        )
