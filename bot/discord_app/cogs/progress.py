"""``/stats [member]``, ``/leaderboard [weekly|all]`` and ``/review``.

Each defers first: the answers come from the progress store.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord_app.answer import answer_view
from bot.discord_app.errors import require_guild
from bot.discord_app.render import leaderboard_embed, question_embed, review_embed, stats_embed

if TYPE_CHECKING:
    from bot.discord_app.app import TutorBot

LEADERBOARD_SIZE = 10
REVIEW_BATCH = 10


class ProgressCog(commands.Cog):
    """Stats, leaderboards and the review queue.

    Args:
        bot: the bot (its ``services.progress`` answers every query).
    """

    def __init__(self, bot: TutorBot) -> None:
        self.bot = bot

    @app_commands.command(name="stats", description="Your progress (or a member's).")
    @app_commands.describe(member="whose progress to show (default: yours)")
    async def stats(
        self, interaction: discord.Interaction[Any], member: discord.User | None = None
    ) -> None:
        """Show accuracy, streaks, per-kind accuracy and weak spots, privately."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        target = member or interaction.user
        stats = await self.bot.services.progress.learner_stats(target.id, interaction.guild_id)
        await interaction.followup.send(
            embed=stats_embed(stats, target.display_name), ephemeral=True
        )

    @app_commands.command(name="leaderboard", description="This server's top learners.")
    @app_commands.describe(period="this week (default) or all time")
    @app_commands.guild_only()
    async def leaderboard(
        self,
        interaction: discord.Interaction[Any],
        period: Literal["weekly", "all"] = "weekly",
    ) -> None:
        """Show the guild's top learners by points."""
        guild_id = require_guild(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        rows = await self.bot.services.progress.leaderboard(guild_id, period, LEADERBOARD_SIZE)
        await interaction.followup.send(embed=leaderboard_embed(rows, period), ephemeral=True)

    @app_commands.command(name="review", description="Questions due for review, then missed ones.")
    async def review(self, interaction: discord.Interaction[Any]) -> None:
        """Show the review queue and its first question with answer buttons."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        services = self.bot.services
        queue = await services.progress.review_queue(interaction.user.id, REVIEW_BATCH)
        items = [services.bank.get(i) for i in [*queue.due, *queue.missed]]
        first = next((item for item in items if item is not None), None)
        if first is None:
            await interaction.followup.send(embed=review_embed(queue), ephemeral=True)
            return
        await interaction.followup.send(
            embeds=[review_embed(queue), question_embed(first)],
            view=answer_view(first, None),
            ephemeral=True,
        )
