"""Opening ``tutor play``: the services on one event loop that the front ends step through.

The front ends read input with blocking calls (``input()``, ``readline()``), so the event
loop runs only while a command is handled: :class:`PlayContext` holds an
:class:`asyncio.Runner` and runs each step with :meth:`PlayContext.run`. A Ctrl-C while
waiting for input is a plain :class:`KeyboardInterrupt`; one during a step cancels the step
(the runner turns it into :class:`KeyboardInterrupt` too). A store write is one
transaction, so an interrupted answer is either recorded whole or not at all.

When the sandbox cannot be had (``--sandbox off``, or a ``local`` worker that cannot start
because this Python has no torch), the session still runs: reveals show the output
recorded with the item's torch version and say so.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Iterator
from contextlib import AsyncExitStack, contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from bot.content.loader import Bank, load_bank
from bot.play.protocol import SandboxState, Started
from bot.services import NoSandbox, SandboxRunner, Services, open_services
from bot.settings import TutorSettings
from sandbox.errors import SandboxUnavailable

T = TypeVar("T")

SANDBOX_OFF = "off"
"""``--sandbox off``: run no snippet; reveals show the recorded output."""


@dataclass(slots=True)
class PlayContext:
    """The opened services and the loop they live on.

    Attributes:
        runner: the event loop's runner; :meth:`run` steps it.
        services: the opened services.
        sandbox: what is known of the sandbox (for the ``started`` event).
    """

    runner: asyncio.Runner
    services: Services
    sandbox: SandboxState

    def run(self, step: Coroutine[Any, Any, T]) -> T:
        """Run one step on the services' loop and return its result.

        Raises:
            KeyboardInterrupt: Ctrl-C while the step ran (the step was cancelled).
        """
        return self.runner.run(step)

    def started(self, learner_id: int) -> Started:
        """The ``started`` event for this session."""
        return Started(
            learner_id=learner_id,
            database=str(self.services.settings.database_path),
            items=len(self.services.bank),
            sandbox=self.sandbox,
        )


def _state(address: str, services: Services, note: str | None) -> SandboxState:
    health = services.snippets.health
    if health is None:
        why = services.snippets.probe_error or "no answer"
        return SandboxState(
            address=address,
            available=False,
            note=note or f"its health check failed: {why}",
        )
    return SandboxState(
        address=address,
        available=health.ready,
        backend=health.backend,
        torch_version=health.torch_version,
        note=None if health.ready else "not ready",
    )


async def _open(
    stack: AsyncExitStack,
    settings: TutorSettings,
    bank: Bank,
    runner: SandboxRunner | None,
    sandbox_off: bool,
) -> tuple[Services, str | None]:
    note: str | None = None
    if sandbox_off:
        note = "turned off with --sandbox off"
        runner = NoSandbox("the sandbox is turned off (--sandbox off)", turned_off=True)
    try:
        services = await stack.enter_async_context(
            open_services(settings, bank=bank, runner=runner, compile_all=False)
        )
    except SandboxUnavailable as exc:
        # Only a local worker is started at open; remote ones are contacted lazily.
        note = str(exc).split("\n", 1)[0]
        services = await stack.enter_async_context(
            open_services(settings, bank=bank, runner=NoSandbox(note), compile_all=False)
        )
    return services, note


@contextmanager
def open_play(
    settings: TutorSettings,
    *,
    sandbox_off: bool = False,
    runner: SandboxRunner | None = None,
    bank: Bank | None = None,
) -> Iterator[PlayContext]:
    """Open the services for ``tutor play``; close them (and stop a local worker) on exit.

    Args:
        settings: the settings (database, sandbox address, content dir, store options).
        sandbox_off: run no snippet (reveals show recorded output).
        runner: a sandbox client to use instead of ``settings.sandbox_address`` (tests).
        bank: an already loaded bank (default: load ``settings.content_dir``).

    Yields:
        The context: the loop runner, the services and the sandbox's state.

    Raises:
        ContentErrors: a pack is invalid.
        sqlite3.Error: the database cannot be opened or migrated.
        KeyboardInterrupt: Ctrl-C while opening (everything opened so far is closed).
    """
    with asyncio.Runner() as loop:
        if bank is None:
            bank = load_bank([settings.content_dir])
        stack = AsyncExitStack()
        try:
            services, note = loop.run(_open(stack, settings, bank, runner, sandbox_off))
            address = SANDBOX_OFF if sandbox_off else settings.sandbox_address
            yield PlayContext(
                runner=loop, services=services, sandbox=_state(address, services, note)
            )
        finally:
            loop.run(stack.aclose())


__all__ = ["SANDBOX_OFF", "NoSandbox", "PlayContext", "open_play"]
