"""The central error handler: one short, friendly sentence for the user, details in the log.

``CommandTree.on_error``, ``View.on_error``, ``Modal.on_error`` and every persistent
button's callback end here (:func:`report`). Expected failures (a missing permission, a
cooldown, the sandbox down, bad input) get a sentence that says what to do; anything else
gets "something went wrong" and an incident id that is also in the log line with the
traceback, so an admin can find it. Raw exception text is never shown.
"""

from __future__ import annotations

import logging
import secrets
from typing import Any

import discord
from discord import app_commands

from bot.discord_app.render import LABEL_TITLE, escape_learner
from bot.grading import AnswerTooLong, EmptyAnswer
from bot.progress.errors import (
    AlreadyAnswered,
    DropAlreadyExists,
    DropClosed,
    DropMismatch,
    DropsNotConfigured,
    UnknownDrop,
)
from bot.quiz import NoGraph, NoMatchingItem, UnknownTopic
from sandbox.errors import SandboxBusy, SandboxRejected, SandboxUnavailable

log = logging.getLogger(__name__)

PERMISSION_NAMES = {"manage_guild": "Manage Server"}
"""Permissions whose API name differs from what Discord's client shows."""


class UserFacingError(Exception):
    """An error whose message is written for the user (already safe to show).

    Args:
        message: one or two sentences saying what was wrong and what to do; no user text
            unless escaped by the caller.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def require_guild(interaction: discord.Interaction[Any]) -> int:
    """The guild id of an interaction.

    Raises:
        app_commands.NoPrivateMessage: the interaction came from a DM.
    """
    if interaction.guild_id is None:
        raise app_commands.NoPrivateMessage()
    return interaction.guild_id


def new_incident_id() -> str:
    """A short random id (8 hex characters) that ties a user's message to a log line."""
    return secrets.token_hex(4)


def _unwrap(error: BaseException) -> BaseException:
    while isinstance(error, app_commands.CommandInvokeError | app_commands.TransformerError):
        inner = (
            error.__cause__ if isinstance(error, app_commands.TransformerError) else error.original
        )
        if inner is None:
            break
        error = inner
    return error


def explain(error: BaseException) -> str | None:
    """The sentence for an expected error, or None when it is unexpected (a bug).

    Args:
        error: the exception raised by a command, view, modal or button (unwrapped).
    """
    if isinstance(error, UserFacingError):
        return error.message
    if isinstance(error, app_commands.MissingPermissions):
        needed = ", ".join(
            PERMISSION_NAMES.get(p, p.replace("_", " ").title()) for p in error.missing_permissions
        )
        return f"You need the {needed} permission for this."
    if isinstance(error, app_commands.NoPrivateMessage):
        return "This command only works in a server."
    if isinstance(error, app_commands.CommandOnCooldown):
        return f"Slow down a little: try again in {error.retry_after:.0f} s."
    if isinstance(error, app_commands.TransformerError):
        return "I could not use one of the values you gave; pick it from Discord's list."
    if isinstance(error, app_commands.CheckFailure):
        return "You can't use this here."
    return _explain_domain(error)


def _explain_domain(error: BaseException) -> str | None:
    """The sentence for a domain error (sandbox, store, grader, quiz), or None."""
    if isinstance(error, SandboxBusy):
        return f"The sandbox is busy; try again in {max(1, round(error.retry_after_s))} s."
    if isinstance(error, SandboxUnavailable):
        return "The sandbox is not answering right now. Try again in a minute."
    if isinstance(error, SandboxRejected):
        if error.code == "unsupported":
            return "Graph pictures are not available here: the sandbox cannot draw them."
        if error.code == "failed":
            return None  # the renderer raised on a valid graph: a bug, with an incident id
        if error.code == "refused":
            return (
                "Running your own code is off here: the sandbox has no isolation on this "
                "machine, so it only runs the tutor's own snippets."
            )
        return f"The sandbox refused this snippet: {escape_learner(str(error), 300)}"
    if isinstance(error, AlreadyAnswered):
        label = LABEL_TITLE[error.label].lower()
        return f"You already answered this drop; your first answer ({label}) counts."
    if isinstance(error, DropClosed):
        return "This drop is closed. The reveal is in its thread."
    if isinstance(error, UnknownDrop):
        return "This question's drop no longer exists; try `/quiz` instead."
    if isinstance(error, DropMismatch):
        return "This button belongs to another server's drop; try `/quiz` instead."
    if isinstance(error, DropsNotConfigured):
        return "Daily drops are off here; set them up with `/tutor-admin drops set`."
    if isinstance(error, DropAlreadyExists):
        return f"Today's drop in <#{error.channel_id}> already exists (#{error.drop_id})."
    if isinstance(error, AnswerTooLong):
        return f"Your answer has {error.length:,} characters; at most {error.limit:,} fit."
    if isinstance(error, EmptyAnswer):  # blank or only markup; the grader's words
        message = str(error)
        return f"{message[:1].upper()}{message[1:]}. Nothing was recorded."
    if isinstance(error, UnknownTopic):
        return (
            f"There is no topic called “{escape_learner(error.topic, 48)}”. "
            "Pick one from the suggestions."
        )
    if isinstance(error, NoMatchingItem):
        return "No question matches those filters; try fewer of them."
    if isinstance(error, NoGraph):
        return f"No graph could be read from this run: {escape_learner(error.reason, 300)}."
    return None


async def report(
    interaction: discord.Interaction[discord.Client],
    error: BaseException,
    *,
    where: str,
) -> str:
    """Tell the user briefly, log the details; never raises.

    Args:
        interaction: the interaction that failed (answered, or followed up when already
            acknowledged).
        error: the exception.
        where: what failed, for the log (command name, custom_id template, modal class).

    Returns:
        The incident id (8 hex characters).
    """
    incident = new_incident_id()
    error = _unwrap(error)
    message = explain(error)
    context = (
        f"incident={incident} where={where} interaction={interaction.id} "
        f"user={interaction.user.id if interaction.user else None} guild={interaction.guild_id}"
    )
    if message is None:
        log.error("unexpected error: %s", context, exc_info=error)
        message = (
            f"Something went wrong on our side (incident `{incident}`). "
            "Please try again; if it keeps happening, tell a server admin."
        )
    else:
        log.info("refused: %s: %s", context, type(error).__name__)
    try:
        if interaction.response.is_done():
            await interaction.followup.send(message, ephemeral=True)
        else:
            await interaction.response.send_message(message, ephemeral=True)
    except discord.HTTPException:
        log.warning("could not tell the user about incident %s", incident, exc_info=True)
    return incident


class TutorTree(app_commands.CommandTree[discord.Client]):
    """The command tree; its ``on_error`` is the central handler."""

    async def on_error(
        self, interaction: discord.Interaction[discord.Client], error: app_commands.AppCommandError
    ) -> None:
        """Report a failed application command (see :func:`report`)."""
        command = interaction.command
        await report(
            interaction, error, where=f"/{command.qualified_name}" if command else "command"
        )


class TutorView(discord.ui.View):
    """Base view: errors in its items go to the central handler."""

    async def on_error(
        self,
        interaction: discord.Interaction[discord.Client],
        error: Exception,
        item: discord.ui.Item[discord.ui.View],
    ) -> None:
        """Report a failed component callback (see :func:`report`)."""
        await report(interaction, error, where=f"{type(self).__name__}:{type(item).__name__}")


class TutorModal(discord.ui.Modal):
    """Base modal: errors in ``on_submit`` go to the central handler."""

    async def on_error(  # type: ignore[override]  # discord.py's Modal narrows BaseView's
        self, interaction: discord.Interaction[discord.Client], error: Exception, /
    ) -> None:
        """Report a failed modal submit (see :func:`report`)."""
        await report(interaction, error, where=type(self).__name__)
