"""The daily-drop loop: post what the store says is due, reveal what has closed.

The store owns the rules (``ProgressStore.tick_drops``: which drop is due in each guild's
own time zone, one per channel and local date, late within the grace window or skipped,
closing, and giving up on interrupted posts); this module only talks to Discord.

Exactly once across restarts and crashes:

* the store claims a drop (``begin_posting``: ``posting``) before anything is sent;
* the message is created with the drop's nonce and ``enforce_nonce``, so when a post is
  retried (a 500 after Discord created the message, or a crash before ``mark_open``),
  Discord returns the first message instead of creating a second;
* Discord checks nonces only over "the past few minutes" (discord.com/developers/docs/
  resources/message#create-message), so the store hands a ``posting`` drop out again only
  within :data:`~bot.progress.schedule.NONCE_WINDOW` of its claim; later it marks it failed
  with the reason, visible in ``/tutor-admin settings`` (a lost drop is shown; a duplicate
  could not be taken back). Reveals work the same way with ``begin_reveal``.

A deleted channel (404) or a missing permission (403) marks the drop failed and is never
retried, so a broken channel cannot cause a crash loop. Other Discord errors (5xx after
discord.py's own retries) leave the drop ``posting`` for the next tick, inside the window.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Literal

import discord

from bot import quiz
from bot.discord_app.answer import answer_view
from bot.discord_app.graphs import graph_view
from bot.discord_app.limits import THREAD_NAME
from bot.discord_app.render import clip, question_embed, reveal_embeds
from bot.progress.errors import DropsNotConfigured, DropStateError
from bot.progress.models import Drop, DropState, ItemRef
from bot.progress.schedule import NONCE_WINDOW

if TYPE_CHECKING:
    from bot.discord_app.app import TutorBot

log = logging.getLogger(__name__)

THREAD_ARCHIVE_MINUTES: Literal[1440] = 1440
"""Reveal threads auto-archive after a day of inactivity (a value Discord accepts)."""

THREAD_ALREADY_CREATED = 160004
"""Discord's JSON error code "A thread has already been created for this message"
(discord.com/developers/docs/topics/opcodes-and-status-codes#json). A thread started from a
message has the message's id, so a retried reveal posts into that thread."""

PURGE_EVERY = timedelta(days=1)
"""Answer texts past the retention period are removed at start and then once a day."""


@dataclass(frozen=True, slots=True)
class PostOutcome:
    """What happened to one drop post.

    Attributes:
        drop_id: the drop.
        channel_id: the channel it was for.
        message_id: the message in the channel when posted, else None.
        failure: the reason recorded when the drop was marked failed, else None.
        retry: True when left ``posting`` for the next tick (a transient Discord error).
    """

    drop_id: int
    channel_id: int
    message_id: int | None = None
    failure: str | None = None
    retry: bool = False


def _forbidden_reason(exc: discord.HTTPException, what: str) -> str:
    return (
        f"missing permission to {what} (Discord {exc.status}, code {exc.code}); the bot needs "
        "View Channel, Send Messages, Embed Links, Create Public Threads and Send Messages "
        "in Threads there"
    )


class DropScheduler:
    """Posts due drops and reveals closed ones, every ``settings.drop_tick_s`` seconds.

    Args:
        bot: the bot; its ``services`` give the store, bank, sandbox and clock.
    """

    def __init__(self, bot: TutorBot) -> None:
        self.bot = bot
        self.items = ItemRef.from_items(list(bot.services.bank))
        self._task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self._purged_at: datetime | None = None

    def start(self) -> None:
        """Start the loop (idempotent)."""
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name="tutor-drop-scheduler")

    async def stop(self) -> None:
        """Stop the loop and wait for it."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        await self.bot.wait_until_ready()
        while True:
            try:
                await self.tick()
            except Exception:
                # A failing store must not kill the loop; the next tick tries again.
                log.exception("drop tick failed")
            await asyncio.sleep(self.bot.settings.drop_tick_s)

    async def tick(self) -> list[PostOutcome]:
        """One pass: ask the store what is due, post it, then reveal every closed drop.

        Returns:
            The outcome of each post attempted in this pass.
        """
        async with self._lock:
            services = self.bot.services
            await self._purge_daily()
            tick = await services.store.tick_drops(
                self.items, grace=self.bot.settings.drop_grace, nonce_window=NONCE_WINDOW
            )
            for drop in tick.skipped:
                log.warning("drop %s skipped: %s", drop.drop_id, drop.failure_reason)
            for drop in tick.failed:
                log.warning("drop %s failed: %s", drop.drop_id, drop.failure_reason)
            outcomes = []
            for drop in tick.to_post:
                try:
                    outcomes.append(await self._post(drop))
                except Exception:
                    log.exception("posting drop %s failed; it stays claimed", drop.drop_id)
            for drop in tick.to_reveal:
                try:
                    await self._reveal(drop)
                except Exception:
                    log.exception("revealing drop %s failed; retrying next tick", drop.drop_id)
            return outcomes

    async def drop_now(self, guild_id: int) -> PostOutcome:
        """Take today's drop slot for a guild and post it at once (``/tutor-admin drops now``).

        Runs under the loop's lock, so a tick cannot post the same drop concurrently.

        Returns:
            What happened to the drop's post.

        Raises:
            DropsNotConfigured: drops are off in this guild.
            DropAlreadyExists: today's drop in the channel exists already.
        """
        store = self.bot.services.store
        async with self._lock:
            if not (await store.get_guild_settings(guild_id)).drops_enabled:
                raise DropsNotConfigured(guild_id)
            drop = await store.create_manual_drop(guild_id, self.items)
            if drop.state is DropState.FAILED:
                reason = drop.failure_reason or "no item fits the kinds filter"
                return PostOutcome(drop.drop_id, drop.channel_id, failure=reason)
            return await self._post(drop)

    async def _purge_daily(self) -> None:
        now = self.bot.services.clock()
        if self._purged_at is None:
            self._purged_at = now  # the store purged when it opened
        elif now - self._purged_at >= PURGE_EVERY:
            self._purged_at = now
            report = await self.bot.services.store.purge_answer_texts()
            log.info("removed %d answer texts older than %s", report.purged, report.cutoff)

    async def _fail(self, drop: Drop, reason: str) -> PostOutcome:
        try:
            await self.bot.services.store.mark_failed(drop.drop_id, reason)
        except DropStateError as exc:
            log.info("drop %s was moved on elsewhere: %s", drop.drop_id, exc)
        log.warning("drop %s failed: %s", drop.drop_id, reason)
        return PostOutcome(drop.drop_id, drop.channel_id, failure=reason)

    async def _post(self, drop: Drop) -> PostOutcome:
        """Send one due drop to its channel and record the result in the store."""
        services = self.bot.services
        store = services.store
        item = services.bank.get(drop.item_id) if drop.item_id else None
        if item is None:
            return await self._fail(drop, f"item {drop.item_id} is no longer in the question bank")
        try:
            drop = await store.begin_posting(drop.drop_id)
        except DropStateError as exc:
            log.info("drop %s is not ours to post: %s", drop.drop_id, exc)
            return PostOutcome(
                drop.drop_id, drop.channel_id, failure="another process is posting it"
            )
        guild = await store.get_guild_settings(drop.guild_id)
        closes_at = services.clock() + timedelta(hours=guild.reveal_after_hours)
        channel = self.bot.get_partial_messageable(drop.channel_id, guild_id=drop.guild_id)
        try:
            message = await channel.send(
                embed=question_embed(item, closes_at=closes_at, drop_id=drop.drop_id),
                view=answer_view(item, drop.drop_id),
                nonce=drop.nonce,
            )
        except discord.Forbidden as exc:
            return await self._fail(drop, _forbidden_reason(exc, "post in the channel"))
        except discord.NotFound:
            return await self._fail(drop, "the channel no longer exists, or the bot cannot see it")
        except discord.HTTPException as exc:
            log.warning("drop %s: Discord error %s; retrying next tick", drop.drop_id, exc.status)
            return PostOutcome(drop.drop_id, drop.channel_id, retry=True)
        await store.mark_open(drop.drop_id, message.id)
        log.info("drop %s posted in %s as %s", drop.drop_id, drop.channel_id, message.id)
        return PostOutcome(drop.drop_id, drop.channel_id, message_id=message.id)

    async def _reveal_target(
        self, drop: Drop, message_id: int, name: str
    ) -> discord.abc.Messageable | None:
        """The reveal thread on the drop message: created, or the one a retry already made.

        Args:
            drop: the drop being revealed.
            message_id: its message in the channel (the thread starts from it).
            name: the thread's name (at most 100 characters).

        Returns:
            The thread, or None to reveal in the channel instead (no thread permission, or
            the guild is not cached yet).

        Raises:
            discord.NotFound: the drop message or its channel is gone.
            discord.HTTPException: a Discord 5xx (the next tick tries again).
        """
        channel = self.bot.get_partial_messageable(drop.channel_id, guild_id=drop.guild_id)
        try:
            return await channel.get_partial_message(message_id).create_thread(
                name=name, auto_archive_duration=THREAD_ARCHIVE_MINUTES
            )
        except discord.NotFound:
            raise
        except discord.HTTPException as exc:
            if exc.code == THREAD_ALREADY_CREATED:
                return self.bot.get_partial_messageable(message_id, guild_id=drop.guild_id)
            if exc.status >= 500:
                raise
            log.info("drop %s: no thread (%s); revealing in the channel", drop.drop_id, exc.status)
        except ValueError:
            # discord.py needs the guild in its cache to create a thread (it is, once READY).
            log.info("drop %s: guild not cached; revealing in the channel", drop.drop_id)
        return None

    async def _reveal(self, drop: Drop) -> None:
        """Post a closed drop's reveal in a thread on the drop message (else the channel).

        Falls back to a message in the channel when a thread cannot be used; marks the drop
        failed with the reason when neither works. A 5xx from Discord propagates and the drop
        stays ``closed``, so the next tick tries again (with the same reveal nonce).
        """
        services = self.bot.services
        store = services.store
        item = services.bank.get(drop.item_id) if drop.item_id else None
        if item is None:
            await self._fail(drop, f"item {drop.item_id} is no longer in the question bank")
            return
        message_id = drop.message_id
        if message_id is None:  # a closed drop was always posted; guard the invariant
            await self._fail(drop, "the drop has no message to reveal under")
            return
        try:
            drop = await store.begin_reveal(drop.drop_id)
        except DropStateError as exc:
            log.info("drop %s is not ours to reveal: %s", drop.drop_id, exc)
            return
        summary = await store.drop_summary(drop.drop_id, top=5)
        embeds = reveal_embeds(summary, await quiz.reveal(services, item))
        channel = self.bot.get_partial_messageable(drop.channel_id, guild_id=drop.guild_id)
        jump_url = channel.get_partial_message(message_id).jump_url
        try:
            thread = await self._reveal_target(
                drop, message_id, clip(f"Reveal: {item.id}", THREAD_NAME)
            )
        except discord.NotFound:
            await self._fail(drop, "the drop message or its channel was deleted before the reveal")
            return
        targets: list[tuple[discord.abc.Messageable, str | None]] = [
            *([(thread, None)] if thread is not None else []),
            (channel, f"Reveal of {jump_url}"),
        ]
        forbidden: discord.HTTPException | None = None
        for target, content in targets:
            try:
                sent = await target.send(
                    content=content,
                    embeds=embeds,
                    view=graph_view(item.id, drop.drop_id),
                    nonce=drop.reveal_nonce,
                )
            except discord.Forbidden as exc:
                forbidden = exc
                continue
            except discord.NotFound:
                await self._fail(drop, "the channel no longer exists, or the bot cannot see it")
                return
            await store.mark_revealed(drop.drop_id, sent.id)
            log.info("drop %s revealed as %s", drop.drop_id, sent.id)
            return
        if forbidden is not None:
            await self._fail(drop, _forbidden_reason(forbidden, "post the reveal"))
