"""``/stats [member]``, ``/leaderboard [weekly|all]`` and ``/review``.

Each defers first: the answers come from the progress store.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import quiz
from bot.discord_app.answer import answer_view
from bot.discord_app.errors import require_guild
from bot.discord_app.render import leaderboard_embed, question_embed, review_embed, stats_embed
from bot.progress.models import LeaderboardPeriod
from bot.progress.stats import describe_concepts

if TYPE_CHECKING:
    from bot.discord_app.app import TutorBot

LEADERBOARD_SIZE = 10
REVIEW_BATCH = 10

PERIOD_CHOICES: list[app_commands.Choice[str]] = [
    app_commands.Choice(name="weekly", value="week"),
    app_commands.Choice(name="all", value="all"),
]
"""The learner picks "weekly" or "all"; the store's periods are ``week`` (the ISO week in
the guild's time zone) and ``all``."""


class ProgressCog(commands.Cog):
    """Stats, leaderboards and the review queue.

    Args:
        bot: the bot (its ``services.store`` answers every query).
    """

    def __init__(self, bot: TutorBot) -> None:
        self.bot = bot

    @app_commands.command(name="stats", description="Your progress (or a member's).")
    @app_commands.describe(member="whose progress to show (default: yours)")
    async def stats(
        self, interaction: discord.Interaction[Any], member: discord.User | None = None
    ) -> None:
        """Show accuracy, streaks, per-kind accuracy and weak spots, privately.

        In a server the numbers count the answers given there; in DMs, every answer.
        """
        await interaction.response.defer(ephemeral=True, thinking=True)
        target = member or interaction.user
        services = self.bot.services
        stats = describe_concepts(
            await services.store.learner_stats(target.id, interaction.guild_id),
            services.bank.concept_descriptions(),
        )
        await interaction.followup.send(
            embed=stats_embed(stats, target.display_name), ephemeral=True
        )

    @app_commands.command(name="leaderboard", description="This server's top learners.")
    @app_commands.describe(period="this week (default) or all time")
    @app_commands.choices(period=PERIOD_CHOICES)
    @app_commands.guild_only()
    async def leaderboard(
        self,
        interaction: discord.Interaction[Any],
        period: app_commands.Choice[str] | None = None,
    ) -> None:
        """Show the guild's top learners by points, and the asker's own rank."""
        guild_id = require_guild(interaction)
        chosen: LeaderboardPeriod = "all" if period and period.value == "all" else "week"
        await interaction.response.defer(ephemeral=True, thinking=True)
        board = await self.bot.services.store.leaderboard(
            guild_id, chosen, limit=LEADERBOARD_SIZE, learner_id=interaction.user.id
        )
        await interaction.followup.send(embed=leaderboard_embed(board), ephemeral=True)

    @app_commands.command(name="review", description="Questions due for review, then missed ones.")
    async def review(self, interaction: discord.Interaction[Any]) -> None:
        """Show the review queue and its first question with answer buttons."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        plan = await quiz.review_plan(self.bot.services, interaction.user.id, REVIEW_BATCH)
        if not plan.items:
            await interaction.followup.send(embed=review_embed(plan), ephemeral=True)
            return
        first = plan.items[0]
        await interaction.followup.send(
            embeds=[review_embed(plan), question_embed(first)],
            view=answer_view(first, None),
            ephemeral=True,
        )
