"""``/tutor-admin``: daily drops and server settings, for members with Manage Server.

Discord applies ``default_member_permissions`` to top-level commands only, so the admin
commands are their own group: Discord hides ``/tutor-admin`` from members without Manage
Server (a server can change that in Server Settings -> Integrations), and every call checks
the permission again at run time, since that setting is the server's to loosen. The
learners' ``/tutor forget-me`` and ``/tutor export`` stay visible to everyone.
"""

from __future__ import annotations

import re
import zoneinfo
from datetime import time as clock_time
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands
from pydantic import ValidationError

from bot.content.models import Kind
from bot.discord_app import limits
from bot.discord_app.errors import UserFacingError, require_guild
from bot.discord_app.render import escape_learner, settings_embed
from bot.progress.models import GuildSettings

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

FIELD_NAMES = {
    "time_zone": "timezone",
    "drop_time": "time",
    "drop_channel_id": "channel",
    "reveal_after_hours": "reveal_after",
}
"""The store's field names, as the options of ``/tutor-admin drops set`` call them."""

_HHMM = re.compile(r"^([01][0-9]|2[0-3]):[0-5][0-9]$")


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


def drop_schedule(
    guild_id: int,
    *,
    channel_id: int,
    local_time: str,
    timezone: str,
    kinds: list[Kind],
    reveal_after_hours: int,
) -> GuildSettings:
    """The guild settings for a daily drop, from the admin's input.

    Args:
        guild_id: the guild.
        channel_id: where to post.
        local_time: ``HH:MM`` on a 24-hour clock, in ``timezone``.
        timezone: an IANA name, e.g. ``Europe/Paris``.
        kinds: kinds to drop (empty: all).
        reveal_after_hours: hours from the post to the reveal.

    Raises:
        UserFacingError: one line per bad option, named as the command names it.
    """
    problems: list[str] = []
    drop_time: clock_time | None = None
    if _HHMM.match(local_time.strip()):
        drop_time = clock_time.fromisoformat(local_time.strip())
    else:
        problems.append("time: use HH:MM on a 24-hour clock, e.g. 09:30")
    try:
        schedule = GuildSettings(
            guild_id=guild_id,
            time_zone=timezone.strip(),
            drops_enabled=drop_time is not None,
            drop_channel_id=channel_id,
            drop_time=drop_time,
            kinds=kinds,
            reveal_after_hours=reveal_after_hours,
        )
    except ValidationError as exc:
        for err in exc.errors():
            field = str(err["loc"][0]) if err["loc"] else "input"
            message = str(err.get("ctx", {}).get("error", err["msg"]))
            problems.append(f"{FIELD_NAMES.get(field, field)}: {message}")
    if problems:
        raise UserFacingError(escape_learner("\n".join(problems), 500))
    return schedule


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


@app_commands.default_permissions(manage_guild=True)
@app_commands.guild_only()
class AdminCog(
    commands.GroupCog,
    group_name="tutor-admin",
    group_description="Daily drops and server settings (Manage Server).",
):
    """The ``/tutor-admin`` command group.

    Args:
        bot: the bot (its store for settings; its scheduler for ``drops now``).
    """

    drops = app_commands.Group(name="drops", description="Daily drops.")

    def __init__(self, bot: TutorBot) -> None:
        self.bot = bot
        super().__init__()

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        """Every admin command checks Manage Server at run time, whatever the server set.

        Raises:
            app_commands.MissingPermissions: the member lacks Manage Server.
        """
        if not interaction.permissions.manage_guild:
            raise app_commands.MissingPermissions(["manage_guild"])
        return True

    @app_commands.command(name="settings", description="Show this server's tutor settings.")
    @app_commands.describe(learner_run="allow learners to use /run here")
    async def settings(
        self, interaction: discord.Interaction[Any], learner_run: bool | None = None
    ) -> None:
        """Show the configuration and the last drop failures; optionally switch ``/run``."""
        guild_id = require_guild(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        store = self.bot.services.store
        current = await store.get_guild_settings(guild_id)
        if learner_run is not None:
            current = await store.save_guild_settings(
                current.model_copy(update={"run_enabled": learner_run})
            )
        failures = await store.drop_failures(guild_id, FAILURES_SHOWN)
        await interaction.followup.send(embed=settings_embed(current, failures), ephemeral=True)

    @drops.command(name="set", description="Post a question every day in a channel.")
    @app_commands.describe(
        channel="where to post",
        time="local time, HH:MM on a 24-hour clock",
        timezone="IANA time zone, e.g. Europe/Paris",
        kinds="kinds to drop, e.g. 'true_false, why' (default: all)",
        reveal_after="hours until answers close and the reveal is posted",
    )
    async def drops_set(
        self,
        interaction: discord.Interaction[Any],
        channel: app_commands.Transform[int, TextChannelId],
        time: app_commands.Range[str, 1, 5],
        timezone: app_commands.Range[str, 1, 64],
        kinds: app_commands.Range[str, 1, 100] | None = None,
        reveal_after: app_commands.Range[int, 1, 168] = 24,
    ) -> None:
        """Validate the schedule (refusals name each bad option), then store it."""
        guild_id = require_guild(interaction)
        schedule = drop_schedule(
            guild_id,
            channel_id=channel,
            local_time=time,
            timezone=timezone,
            kinds=parse_kinds(kinds),
            reveal_after_hours=reveal_after,
        )
        await interaction.response.defer(ephemeral=True, thinking=True)
        store = self.bot.services.store
        current = await store.get_guild_settings(guild_id)
        saved = await store.save_guild_settings(
            schedule.model_copy(update={"run_enabled": current.run_enabled})
        )
        which = ", ".join(k.value for k in saved.kinds) or "every kind"
        await interaction.followup.send(
            f"Daily drops on: <#{channel}> at {time.strip()} ({saved.time_zone}), "
            f"{which}, reveal after {reveal_after} h.",
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
    async def drops_off(self, interaction: discord.Interaction[Any]) -> None:
        """Turn drops off (the channel and time are kept for the next ``drops set``)."""
        guild_id = require_guild(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        store = self.bot.services.store
        current = await store.get_guild_settings(guild_id)
        await store.save_guild_settings(current.model_copy(update={"drops_enabled": False}))
        await interaction.followup.send("Daily drops are off.", ephemeral=True)

    @drops.command(name="now", description="Post today's drop now instead of at the set time.")
    async def drops_now(self, interaction: discord.Interaction[Any]) -> None:
        """Take today's drop slot and post it at once (still one per channel and date)."""
        guild_id = require_guild(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        outcome = await self.bot.scheduler.drop_now(guild_id)
        if outcome.message_id is not None:
            text = f"Posted drop #{outcome.drop_id} in <#{outcome.channel_id}>."
        elif outcome.failure is not None:
            text = f"Drop #{outcome.drop_id} failed: {escape_learner(outcome.failure, 400)}"
        else:
            text = f"Discord did not answer; drop #{outcome.drop_id} will be retried shortly."
        await interaction.followup.send(text, ephemeral=True)
