"""Drive the real bot with Discord-shaped payloads and capture everything it sends.

The bot is the one ``tutor bot`` builds (``open_services`` then ``create_bot``), logged in
with discord.py's own ``Client.login`` against :class:`FakeDiscord` on loopback, so
``setup_hook`` runs as in production. A restart closes the bot and the services (the SQLite
file stays) and opens both again. Each payload goes through
``ConnectionState.parsers["INTERACTION_CREATE"]``, exactly where the gateway hands it over,
so discord.py's real ``CommandTree`` and view store dispatch it; the harness then waits for
the tasks that dispatch created and checks the interaction was acknowledged within
Discord's 3 s.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from dataclasses import dataclass, field
from typing import Any

from bot.discord_app.app import TutorBot, create_bot
from bot.services import Services
from bot.settings import TutorSettings
from tests.discord_app.harness import payloads
from tests.discord_app.harness.fake_discord import (
    INTERACTION_DEADLINE_S,
    FakeDiscord,
    InteractionRecord,
    Recorded,
    snowflake,
)
from tests.discord_app.harness.payloads import Person, Place

TOKEN = "fake-token.for.tests"  # noqa: S105 - the fake Discord accepts any token

__all__ = ["TOKEN", "Dispatched", "FakeDiscord", "Harness", "Person", "Place"]


@dataclass
class Dispatched:
    """One interaction fed to the bot, and what the bot sent for it."""

    payload: dict[str, Any]
    record: InteractionRecord
    fake: FakeDiscord
    started: float
    tasks: set[asyncio.Task[Any]] = field(default_factory=set)

    @property
    def requests(self) -> list[Recorded]:
        """Requests made with this interaction's id or token (callback, followups, edits)."""
        keys = (f"/{self.record.id}/", f"/{self.record.token}")
        return [r for r in self.fake.requests if any(k in r.path for k in keys)]

    @property
    def callback(self) -> Recorded:
        """The (first) interaction callback request."""
        found = [r for r in self.requests if r.path.endswith("/callback")]
        assert found, "the bot never responded to the interaction"
        return found[0]

    @property
    def modal(self) -> dict[str, Any]:
        """The modal the bot opened (the callback's ``data``); fails if it was not a modal."""
        body = self.callback.body
        assert body["type"] == 9, f"first response was type {body['type']}, not a modal"
        return dict(body["data"])

    @property
    def followups(self) -> list[Recorded]:
        """Followup messages (``POST /webhooks/{app}/{token}``)."""
        return [r for r in self.requests if r.route == "POST /webhooks/{id}/{token}"]

    @property
    def reply(self) -> dict[str, Any]:
        """The message the user finally sees: the callback's message or, after a defer,
        the loading message as edited by the first followup."""
        assert self.record.original_id is not None, "no message was created for the interaction"
        return self.fake.messages[self.record.original_id]

    @property
    def ack_latency_s(self) -> float:
        assert self.record.acked_at is not None
        return self.record.acked_at - self.started

    async def finish(self, limit_s: float = 10.0) -> None:
        """Wait for the bot's handlers to finish (after a ``wait=False`` dispatch)."""
        if self.tasks:
            await asyncio.wait_for(asyncio.gather(*self.tasks, return_exceptions=True), limit_s)


class Harness:
    """The bot under test, a fake Discord, and a guild with a channel and two members.

    Args:
        fake: the started fake Discord (``Route.BASE`` already points at it).
        open_services: opens the services (called at every boot, so a restart reopens the
            store on the same database file).
    """

    def __init__(
        self,
        fake: FakeDiscord,
        open_services: Callable[[], AbstractAsyncContextManager[Services]],
    ) -> None:
        self.fake = fake
        self.open_services = open_services
        self.services: Services
        self._stack: AsyncExitStack | None = None
        self.guild_id = snowflake()
        channel = fake.add_channel(self.guild_id)
        self.place = Place(channel.id, self.guild_id)
        self.learner = Person(name="ada")
        self.other = Person(name="grace")
        self.admin = Person(
            name="admin", permissions=payloads.MEMBER_PERMISSIONS | payloads.MANAGE_GUILD
        )
        self.bot: TutorBot
        self.dispatched: list[Dispatched] = []

    @property
    def settings(self) -> TutorSettings:
        return self.services.settings

    async def boot(self) -> TutorBot:
        """Open the services and create the bot as ``tutor bot`` does, log it in (runs
        ``setup_hook``), and feed it the GUILD_CREATE the gateway would send."""
        self._stack = AsyncExitStack()
        self.services = await self._stack.enter_async_context(self.open_services())
        self.bot = create_bot(self.services, run_scheduler=False)
        await self.bot.login(TOKEN)
        guild = payloads.guild_create(self.guild_id, [self.place], self.fake.bot_user, self.admin)
        self.bot._connection.parsers["GUILD_CREATE"](guild)
        return self.bot

    async def restart(self) -> TutorBot:
        """Close the bot and the services, then open both again (same fake Discord, same
        database file), as after a process restart."""
        await self.close()
        return await self.boot()

    async def close(self) -> None:
        await self.bot.close()
        if self._stack is not None:
            await self._stack.aclose()
            self._stack = None

    @property
    def app_id(self) -> int:
        return self.fake.application_id

    async def dispatch(
        self, payload: dict[str, Any], *, wait: bool = True, expect_ack: bool = True
    ) -> Dispatched:
        """Feed one INTERACTION_CREATE payload to the bot's connection state.

        Args:
            wait: wait for every handler task dispatch created; when False return as soon as
                the interaction is acknowledged (the handler may still be waiting on a slow
                service; call :meth:`Dispatched.finish`).
            expect_ack: fail unless the interaction was acknowledged within 3 s.
        """
        record = self.fake.register_interaction(payload)
        started = record.created_at
        before = asyncio.all_tasks()
        self.bot._connection.parsers["INTERACTION_CREATE"](payload)
        tasks = asyncio.all_tasks() - before
        result = Dispatched(payload, record, self.fake, started, tasks)
        self.dispatched.append(result)
        if wait:
            await result.finish()
        else:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(record.acked.wait(), INTERACTION_DEADLINE_S + 0.5)
        if expect_ack:
            assert record.acked_at is not None, f"interaction {record.id} was never acknowledged"
            assert result.ack_latency_s <= INTERACTION_DEADLINE_S
        return result

    # --- payload shortcuts -----------------------------------------------------------------

    async def slash(
        self,
        path: str,
        who: Person | None = None,
        where: Place | None = None,
        *,
        wait: bool = True,
        **values: Any,
    ) -> Dispatched:
        payload = payloads.slash(
            self.bot.tree, path, values, who or self.learner, where or self.place, self.app_id
        )
        return await self.dispatch(payload, wait=wait)

    async def autocomplete(self, path: str, option: str, **values: Any) -> Dispatched:
        payload = payloads.slash(
            self.bot.tree, path, values, self.learner, self.place, self.app_id, autocomplete=option
        )
        return await self.dispatch(payload)

    async def click(
        self,
        message: dict[str, Any],
        custom_id: str,
        who: Person | None = None,
        where: Place | None = None,
        *,
        wait: bool = True,
    ) -> Dispatched:
        payload = payloads.click(
            message, custom_id, who or self.learner, where or self.place, self.app_id
        )
        return await self.dispatch(payload, wait=wait)

    async def submit(
        self,
        modal: dict[str, Any],
        *values: str,
        who: Person | None = None,
        where: Place | None = None,
        wait: bool = True,
        expect_ack: bool = True,
    ) -> Dispatched:
        payload = payloads.modal_submit(
            modal, list(values), who or self.learner, where or self.place, self.app_id
        )
        return await self.dispatch(payload, wait=wait, expect_ack=expect_ack)
