"""``/tutor``: the learner's privacy commands and the admin commands for drops and settings.

Learners: ``/tutor forget-me`` (with a confirmation button), ``/tutor export``.
Admins (Manage Server, checked at run time on every call): ``/tutor drops set``,
``/tutor drops off``, ``/tutor drops now``, ``/tutor settings``.

Discord applies ``default_member_permissions`` to top-level commands only, and ``/tutor``
also holds the learners' privacy commands, so the admin subcommands rely on the runtime
check; a server can hide them further in Server Settings -> Integrations.
"""

from __future__ import annotations

import io
import re
import zoneinfo
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands
from pydantic import ValidationError

from bot.content.models import Kind
from bot.discord_app import limits
from bot.discord_app.errors import TutorView, UserFacingError, require_guild
from bot.discord_app.ports import DropScheduleIn
from bot.discord_app.render import escape_learner, settings_embed

if TYPE_CHECKING:
    from bot.discord_app.app import TutorBot

FAILURES_SHOWN = 5

KIND_ALIASES: dict[str, Kind] = {
    **{k.value: k for k in Kind},
    "tf": Kind.TRUE_FALSE,
    "truefalse": Kind.TRUE_FALSE,
    "se": Kind.SPOT_THE_ERROR,
    "spot": Kind.SPOT_THE_ERROR,
    "ec": Kind.EDGE_CASE,
    "edge": Kind.EDGE_CASE,
}

FIELD_NAMES = {"local_time": "time", "timezone": "timezone", "reveal_after_hours": "reveal_after"}


def parse_kinds(text: str | None) -> list[Kind]:
    """Kinds from a comma- or space-separated list (``"true_false, why"``, ``"tf se"``).

    Raises:
        UserFacingError: naming the first word that is not a kind.
    """
    if not text:
        return []
    kinds: list[Kind] = []
    for word in re.split(r"[,\s]+", text.strip().lower()):
        if not word:
            continue
        kind = KIND_ALIASES.get(word.replace("-", "_"))
        if kind is None:
            raise UserFacingError(
                f"kinds: “{escape_learner(word, 40)}” is not a kind; use any of "
                + ", ".join(k.value for k in Kind)
                + "."
            )
        if kind not in kinds:
            kinds.append(kind)
    return kinds


def schedule_error(exc: ValidationError) -> UserFacingError:
    """A ValidationError of admin input as one line per field, in the command's words."""
    lines = []
    for err in exc.errors():
        field = str(err["loc"][0]) if err["loc"] else "input"
        message = str(err.get("ctx", {}).get("error", err["msg"]))
        lines.append(f"{FIELD_NAMES.get(field, field)}: {message}")
    return UserFacingError(escape_learner("\n".join(lines), 500))


class TextChannelId(app_commands.Transformer):
    """A text (or announcement) channel option, read from the interaction's resolved data.

    Unlike a ``discord.TextChannel`` annotation it needs no guild cache, so it works right
    after a restart, before the gateway has sent the guild.
    """

    @property
    def type(self) -> discord.AppCommandOptionType:
        """Discord's option type: channel."""
        return discord.AppCommandOptionType.channel

    @property
    def channel_types(self) -> list[discord.ChannelType]:
        """Only channels a drop can be posted in."""
        return [discord.ChannelType.text, discord.ChannelType.news]

    async def transform(self, interaction: discord.Interaction[Any], value: Any, /) -> int:
        """The channel's id."""
        return int(value.id)


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
        result = await bot.services.progress.forget_learner(self.learner_id)
        self.stop()
        await interaction.edit_original_response(
            content=f"Done: deleted your {result.attempts_deleted} answers and all your progress.",
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
    commands.GroupCog, group_name="tutor", group_description="Your data, and server setup."
):
    """The ``/tutor`` command group.

    Args:
        bot: the bot (services for the store and drops; the scheduler for ``drops now``).
    """

    drops = app_commands.Group(name="drops", description="Daily drops (Manage Server).")

    def __init__(self, bot: TutorBot) -> None:
        self.bot = bot
        super().__init__()

    # --- learners: privacy ---------------------------------------------------------------

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
        """Send the learner's data as a JSON file, privately."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        data = await self.bot.services.progress.export_learner(interaction.user.id)
        payload = data.model_dump_json(indent=2).encode()
        if len(payload) > limits.ATTACHMENT_BYTES:
            raise UserFacingError("Your export is larger than Discord's 10 MiB upload limit.")
        file = discord.File(
            io.BytesIO(payload), filename=f"tutor-export-{interaction.user.id}.json"
        )
        await interaction.followup.send(
            "Everything the tutor stores about you:", file=file, ephemeral=True
        )

    # --- admins ----------------------------------------------------------------------------

    @app_commands.command(
        name="settings", description="Show this server's tutor settings (Manage Server)."
    )
    @app_commands.describe(learner_run="allow learners to use /run here")
    @app_commands.checks.has_permissions(manage_guild=True)
    async def settings(
        self, interaction: discord.Interaction[Any], learner_run: bool | None = None
    ) -> None:
        """Show the configuration and the last drop failures; optionally switch ``/run``."""
        guild_id = require_guild(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        progress = self.bot.services.progress
        if learner_run is not None:
            await progress.set_run_enabled(guild_id, learner_run)
        current = await progress.guild_settings(guild_id)
        failures = await progress.recent_drop_failures(guild_id, FAILURES_SHOWN)
        await interaction.followup.send(embed=settings_embed(current, failures), ephemeral=True)

    @drops.command(name="set", description="Post a question every day in a channel.")
    @app_commands.describe(
        channel="where to post",
        time="local time, HH:MM on a 24-hour clock",
        timezone="IANA time zone, e.g. Europe/Paris",
        kinds="kinds to drop, e.g. 'true_false, why' (default: all)",
        reveal_after="hours until answers close and the reveal is posted",
    )
    @app_commands.checks.has_permissions(manage_guild=True)
    async def drops_set(
        self,
        interaction: discord.Interaction[Any],
        channel: app_commands.Transform[int, TextChannelId],
        time: app_commands.Range[str, 1, 5],
        timezone: app_commands.Range[str, 1, 64],
        kinds: app_commands.Range[str, 1, 100] | None = None,
        reveal_after: app_commands.Range[int, 1, 168] = 24,
    ) -> None:
        """Validate the schedule, then store it."""
        guild_id = require_guild(interaction)
        try:
            schedule = DropScheduleIn(
                channel_id=channel,
                local_time=time,
                timezone=timezone,
                kinds=parse_kinds(kinds),
                reveal_after_hours=reveal_after,
            )
        except ValidationError as exc:
            raise schedule_error(exc) from None
        await interaction.response.defer(ephemeral=True, thinking=True)
        await self.bot.services.progress.set_drop_schedule(guild_id, schedule)
        which = ", ".join(k.value for k in schedule.kinds) or "every kind"
        await interaction.followup.send(
            f"Daily drops on: <#{channel}> at {schedule.local_time} ({schedule.timezone}), "
            f"{which}, reveal after {schedule.reveal_after_hours} h.",
            ephemeral=True,
        )

    @drops_set.autocomplete("timezone")
    async def timezone_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        """IANA zone names containing what was typed, at most 25."""
        needle = current.lower().replace(" ", "_")
        names = sorted(z for z in zoneinfo.available_timezones() if needle in z.lower())
        return [app_commands.Choice(name=z, value=z) for z in names[: limits.AUTOCOMPLETE_CHOICES]]

    @drops.command(name="off", description="Stop the daily drops (open ones still reveal).")
    @app_commands.checks.has_permissions(manage_guild=True)
    async def drops_off(self, interaction: discord.Interaction[Any]) -> None:
        """Turn drops off."""
        guild_id = require_guild(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        await self.bot.services.progress.disable_drops(guild_id)
        await interaction.followup.send("Daily drops are off.", ephemeral=True)

    @drops.command(name="now", description="Post today's drop now instead of at the set time.")
    @app_commands.checks.has_permissions(manage_guild=True)
    async def drops_now(self, interaction: discord.Interaction[Any]) -> None:
        """Claim today's drop and post it at once."""
        guild_id = require_guild(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        services = self.bot.services
        drop = await services.drops.claim_now(guild_id, services.clock())
        outcome = await self.bot.scheduler.post(drop)
        if outcome.message_id is not None:
            text = f"Posted drop #{drop.drop_id} in <#{drop.channel_id}>."
        elif outcome.failure is not None:
            text = f"Drop #{drop.drop_id} failed: {escape_learner(outcome.failure, 400)}"
        else:
            text = f"Discord did not answer; drop #{drop.drop_id} will be retried shortly."
        await interaction.followup.send(text, ephemeral=True)
