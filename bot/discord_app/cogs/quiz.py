"""``/quiz [kind] [topic] [difficulty] [public]``: one question, answered through buttons."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.content.models import Kind
from bot.discord_app import limits
from bot.discord_app.answer import answer_view
from bot.discord_app.errors import UserFacingError
from bot.discord_app.render import KIND_TITLE, escape_learner, question_embed

if TYPE_CHECKING:
    from bot.discord_app.app import TutorBot

KIND_CHOICES = [app_commands.Choice(name=KIND_TITLE[k], value=k.value) for k in Kind]


class QuizCog(commands.Cog):
    """The ``/quiz`` command.

    Args:
        bot: the bot (its ``services.bank`` holds the questions).
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
        """Pick a matching item at random and show it with its answer buttons."""
        bank = self.bot.services.bank
        if topic is not None and topic not in bank.tags():
            raise UserFacingError(
                f"There is no topic called “{escape_learner(topic, 48)}”. "
                "Pick one from the suggestions."
            )
        items = bank.select(
            kind=Kind(kind.value) if kind else None, tag=topic, difficulty=difficulty
        )
        if not items:
            raise UserFacingError("No question matches those filters; try fewer of them.")
        item = self.rng.choice(items)
        await interaction.response.send_message(
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
