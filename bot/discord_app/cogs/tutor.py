"""``/tutor``: the learner's own data: ``/tutor forget-me`` (confirmed with a button) and
``/tutor export``. Server setup lives in ``/tutor-admin`` (``cogs/admin.py``)."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord_app import limits
from bot.discord_app.errors import TutorView, UserFacingError

if TYPE_CHECKING:
    from bot.discord_app.app import TutorBot


class ForgetConfirmView(TutorView):
    """Confirm / Cancel for ``/tutor forget-me``; only the learner who asked can press them.

    Args:
        learner_id: the learner whose data will be deleted.
    """

    def __init__(self, learner_id: int) -> None:
        super().__init__(timeout=120)
        self.learner_id = learner_id

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        """Only the learner who asked may confirm; anyone else is told so, privately."""
        if interaction.user.id == self.learner_id:
            return True
        await interaction.response.send_message(
            "These buttons belong to the learner who asked.", ephemeral=True
        )
        return False

    @discord.ui.button(label="Delete everything", style=discord.ButtonStyle.danger)
    async def confirm(
        self, interaction: discord.Interaction[Any], button: discord.ui.Button[Any]
    ) -> None:
        """Delete (deferred: the store may take a moment), then say what was deleted."""
        await interaction.response.defer()
        bot: TutorBot = interaction.client
        report = await bot.services.store.forget_learner(self.learner_id)
        self.stop()
        await interaction.edit_original_response(
            content=(
                f"Done: deleted your {report.attempts} answers, {report.review_cards} review "
                "cards and all your progress."
            ),
            view=None,
        )

    @discord.ui.button(label="Cancel", style=discord.ButtonStyle.secondary)
    async def cancel(
        self, interaction: discord.Interaction[Any], button: discord.ui.Button[Any]
    ) -> None:
        """Keep everything."""
        self.stop()
        await interaction.response.edit_message(content="Nothing was deleted.", view=None)


class TutorCog(
    commands.GroupCog, group_name="tutor", group_description="Your data: delete or download it."
):
    """The ``/tutor`` command group (every learner sees it).

    Args:
        bot: the bot (its ``services.store`` holds the learner's data).
    """

    def __init__(self, bot: TutorBot) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(
        name="forget-me", description="Delete everything the tutor stores about you."
    )
    async def forget_me(self, interaction: discord.Interaction[Any]) -> None:
        """Ask for confirmation with a button."""
        await interaction.response.send_message(
            "This deletes all your answers, stats, streaks and review cards, everywhere. "
            "It cannot be undone.",
            view=ForgetConfirmView(interaction.user.id),
            ephemeral=True,
        )

    @app_commands.command(
        name="export", description="Download everything the tutor stores about you."
    )
    async def export(self, interaction: discord.Interaction[Any]) -> None:
        """Send the learner's data (``LearnerExport`` as JSON) as a file, privately."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        data = await self.bot.services.store.export_learner(interaction.user.id)
        payload = data.model_dump_json(indent=2).encode()
        if len(payload) > limits.ATTACHMENT_BYTES:
            raise UserFacingError("Your export is larger than Discord's 10 MiB upload limit.")
        file = discord.File(
            io.BytesIO(payload), filename=f"tutor-export-{interaction.user.id}.json"
        )
        await interaction.followup.send(
            "Everything the tutor stores about you:", file=file, ephemeral=True
        )
