"""``/quiz [kind] [topic] [difficulty] [public]``: one question, answered through buttons."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import quiz
from bot.content.models import Kind
from bot.discord_app import limits
from bot.discord_app.answer import answer_view
from bot.discord_app.render import KIND_TITLE, question_embed

if TYPE_CHECKING:
    from bot.discord_app.app import TutorBot

KIND_CHOICES = [app_commands.Choice(name=KIND_TITLE[k], value=k.value) for k in Kind]


class QuizCog(commands.Cog):
    """The ``/quiz`` command.

    Args:
        bot: the bot (its ``services`` hold the bank and the store).
        rng: the random source used to pick a question (seedable in tests).
    """

    def __init__(self, bot: TutorBot, rng: random.Random | None = None) -> None:
        self.bot = bot
        self.rng = rng or random.Random()  # noqa: S311 - picking a quiz question, not a secret

    @app_commands.command(name="quiz", description="Get one autograd trap question.")
    @app_commands.describe(
        kind="the kind of question",
        topic="a topic such as leaf-tensor or grad-accumulation",
        difficulty="1 (easiest) to 3",
        public="post the question in the channel instead of only to you",
    )
    @app_commands.choices(kind=KIND_CHOICES)
    async def quiz(
        self,
        interaction: discord.Interaction[Any],
        kind: app_commands.Choice[str] | None = None,
        topic: app_commands.Range[str, 1, 48] | None = None,
        difficulty: app_commands.Range[int, 1, 3] | None = None,
        public: bool = False,
    ) -> None:
        """Pick a matching item the learner has not answered lately; show it with buttons.

        The filters are checked against the bank first (a refusal is private even for a
        public quiz), then the answer is deferred: the recent items come from the store.
        """
        filters = quiz.QuizFilter(
            kind=Kind(kind.value) if kind else None, topic=topic, difficulty=difficulty
        )
        quiz.matching_items(self.bot.services.bank, filters)
        await interaction.response.defer(ephemeral=not public, thinking=True)
        item = await quiz.next_item(self.bot.services, interaction.user.id, filters, rng=self.rng)
        await interaction.followup.send(
            embed=question_embed(item), view=answer_view(item, None), ephemeral=not public
        )

    @quiz.autocomplete("topic")
    async def topic_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        """Topics (item tags) containing what was typed, at most 25."""
        needle = current.lower().strip()
        tags = [tag for tag in self.bot.services.bank.tags() if needle in tag]
        return [
            app_commands.Choice(name=tag, value=tag) for tag in tags[: limits.AUTOCOMPLETE_CHOICES]
        ]
