"""The daily-drop loop: post what the store says is due, reveal what has closed.

The store owns the rules (which drop is due in each guild's time zone, one per channel and
local date, late within the grace window or skipped); this module only talks to Discord.

Exactly once across restarts and crashes:

* the store claims a drop (``posting``) before anything is sent;
* the message is created with the drop's nonce and ``enforce_nonce``, so when a post is
  retried (a 500 after Discord created the message, or a crash before ``mark_open``),
  Discord returns the first message instead of creating a second;
* Discord checks nonces only over "the past few minutes" (discord.com/developers/docs/
  resources/message#create-message), so a drop found still ``posting`` after longer than
  :data:`NONCE_WINDOW` is not re-sent: it is marked failed with the reason, visible in
  ``/tutor settings`` (a lost drop is shown; a duplicate could not be taken back).

A deleted channel (404) or a missing permission (403) marks the drop failed and is never
retried, so a broken channel cannot cause a crash loop. Other Discord errors (5xx after
discord.py's own retries) leave the drop ``posting`` for the next tick, inside the window.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Literal

import discord

from bot.discord_app.answer import answer_view
from bot.discord_app.graphs import graph_view
from bot.discord_app.limits import THREAD_NAME
from bot.discord_app.ports import DropToPost, DropToReveal, SandboxUnavailable, SnippetRun
from bot.discord_app.render import clip, question_embed, reveal_embeds

if TYPE_CHECKING:
    from bot.discord_app.app import TutorBot

log = logging.getLogger(__name__)

NONCE_WINDOW = timedelta(minutes=2)
"""How long after its claim a ``posting`` drop may be re-sent with the same nonce. Discord
documents its nonce check only as "the past few minutes"; two minutes stays inside that."""

THREAD_ARCHIVE_MINUTES: Literal[1440] = 1440
"""Reveal threads auto-archive after a day of inactivity (a value Discord accepts)."""


@dataclass(frozen=True, slots=True)
class PostOutcome:
    """What happened to one drop post.

    Attributes:
        drop_id: the drop.
        message_id: the message in the channel when posted, else None.
        failure: the reason recorded when the drop was marked failed, else None.
        retry: True when left ``posting`` for the next tick (a transient Discord error).
    """

    drop_id: int
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
        self._task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()

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
        """One pass: post every due drop, then reveal every closed one.

        Returns:
            The outcome of each post attempted in this pass.
        """
        async with self._lock:
            services = self.bot.services
            now = services.clock()
            outcomes = []
            for drop in await services.drops.claim_due(now, self.bot.settings.drop_grace):
                try:
                    outcomes.append(await self.post(drop))
                except Exception:
                    log.exception("posting drop %s failed; it stays claimed", drop.drop_id)
            for reveal in await services.drops.due_reveals(now):
                try:
                    await self.reveal(reveal)
                except Exception:
                    log.exception("revealing drop %s failed; retrying next tick", reveal.drop_id)
            return outcomes

    async def post(self, drop: DropToPost) -> PostOutcome:
        """Send one claimed drop to its channel and record the result in the store."""
        services = self.bot.services
        drops = services.drops
        now = services.clock()
        if now - drop.claimed_at > NONCE_WINDOW:
            reason = (
                f"interrupted while posting at {drop.claimed_at:%H:%M} UTC; not re-sent so it "
                "cannot appear twice"
            )
            await drops.mark_failed(drop.drop_id, reason)
            log.warning("drop %s: %s", drop.drop_id, reason)
            return PostOutcome(drop.drop_id, failure=reason)
        item = services.bank.get(drop.item_id)
        if item is None:
            reason = f"item {drop.item_id} is no longer in the question bank"
            await drops.mark_failed(drop.drop_id, reason)
            return PostOutcome(drop.drop_id, failure=reason)
        channel = self.bot.get_partial_messageable(drop.channel_id, guild_id=drop.guild_id)
        try:
            message = await channel.send(
                embed=question_embed(item, closes_at=drop.closes_at, drop_id=drop.drop_id),
                view=answer_view(item, drop.drop_id),
                nonce=drop.nonce,
            )
        except discord.Forbidden as exc:
            reason = _forbidden_reason(exc, "post in the channel")
        except discord.NotFound:
            reason = "the channel no longer exists, or the bot cannot see it"
        except discord.HTTPException as exc:
            log.warning("drop %s: Discord error %s; retrying next tick", drop.drop_id, exc.status)
            return PostOutcome(drop.drop_id, retry=True)
        else:
            await drops.mark_open(drop.drop_id, message.id)
            log.info("drop %s posted in %s as %s", drop.drop_id, drop.channel_id, message.id)
            return PostOutcome(drop.drop_id, message_id=message.id)
        await drops.mark_failed(drop.drop_id, reason)
        log.warning("drop %s failed: %s", drop.drop_id, reason)
        return PostOutcome(drop.drop_id, failure=reason)

    async def _real_output(self, reveal: DropToReveal) -> SnippetRun | None:
        item = self.bot.services.bank.get(reveal.item_id)
        if item is None:
            return None
        try:
            return await self.bot.services.sandbox.run_curated(item)
        except SandboxUnavailable as exc:
            log.warning("reveal of drop %s without a live run: %s", reveal.drop_id, exc.reason)
            return None

    async def reveal(self, reveal: DropToReveal) -> None:
        """Close a drop and post its reveal in a thread on the drop message.

        Falls back to a message in the channel when a thread cannot be used; marks the drop
        failed with the reason when neither works. A 5xx from Discord propagates and the drop
        stays ``closed``, so the next tick tries again (``due_reveals`` returns it).
        """
        services = self.bot.services
        item = services.bank.get(reveal.item_id)
        summary = await services.drops.close(reveal.drop_id)
        if item is None:
            await services.drops.mark_failed(
                reveal.drop_id, f"item {reveal.item_id} is no longer in the question bank"
            )
            return
        embeds = reveal_embeds(item, summary, await self._real_output(reveal))
        channel = self.bot.get_partial_messageable(reveal.channel_id, guild_id=reveal.guild_id)
        drop_message = channel.get_partial_message(reveal.message_id)
        targets: list[tuple[discord.abc.Messageable, str | None]] = []
        try:
            thread = await drop_message.create_thread(
                name=clip(f"Reveal: {item.id}", THREAD_NAME),
                auto_archive_duration=THREAD_ARCHIVE_MINUTES,
            )
        except discord.NotFound:
            await services.drops.mark_failed(
                reveal.drop_id, "the drop message or its channel was deleted before the reveal"
            )
            return
        except discord.HTTPException as exc:
            if exc.status >= 500:
                raise
            log.info(
                "drop %s: no thread (%s); revealing in the channel", reveal.drop_id, exc.status
            )
        except ValueError:
            # discord.py needs the guild in its cache to create a thread (it is, once READY).
            log.info("drop %s: guild not cached; revealing in the channel", reveal.drop_id)
        else:
            targets.append((thread, None))
        targets.append((channel, f"Reveal of {drop_message.jump_url}"))
        forbidden: discord.HTTPException | None = None
        for target, content in targets:
            try:
                sent = await target.send(
                    content=content, embeds=embeds, view=graph_view(item.id, reveal.drop_id)
                )
            except discord.Forbidden as exc:
                forbidden = exc
                continue
            except discord.NotFound:
                await services.drops.mark_failed(
                    reveal.drop_id, "the channel no longer exists, or the bot cannot see it"
                )
                return
            await services.drops.mark_revealed(reveal.drop_id, sent.id)
            log.info("drop %s revealed as %s", reveal.drop_id, sent.id)
            return
        if forbidden is not None:
            reason = _forbidden_reason(forbidden, "post the reveal")
            await services.drops.mark_failed(reveal.drop_id, reason)
