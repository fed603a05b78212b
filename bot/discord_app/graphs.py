"""The "Show graph" buttons: the autograd graph a snippet built, as a private PNG attachment.

Two persistent buttons (:class:`discord.ui.DynamicItem`), registered at startup::

    tutor:graph:TF5:12       an item's snippet (drop 12; 0 outside drops): under the answer
                             feedback, the "Run the snippet" result and a drop's reveal
    tutor:rungraph:<id>      a learner's ``/run``: <id> is the submit interaction's id

An item's graph comes from the sandbox (``Snippets.run_curated(item, graph=True)``, the
same store cache entry as its output), so the button works on a reveal posted days ago. A
``/run`` graph is kept in memory by :class:`GraphShelf` (the code is not stored anywhere): a
click after a restart or after :data:`SHELF_TTL_S` says so and suggests running it again.

Every click is deferred first (the sandbox and the renderer may take a moment), the PNG is
drawn in a worker thread by :func:`bot.graph_render.render_graph_png` (never on the event
loop), and sent ephemeral.
"""

from __future__ import annotations

import asyncio
import io
import re
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Self

import discord

from bot.discord_app import limits
from bot.discord_app.answer import DROP_ID, ITEM_ID, bot_of, item_or_error
from bot.discord_app.errors import TutorView, UserFacingError, report
from bot.discord_app.render import escape_learner, graph_caption
from sandbox.protocol import AutogradGraph

Interaction = discord.Interaction[Any]

SHELF_SIZE = 100
"""``/run`` graphs kept for their "Show graph" button (the oldest goes first). A graph at
every cap of ``sandbox.protocol`` takes about 200 KiB as objects; typical ones a few KiB."""

SHELF_TTL_S = 3600.0
"""Seconds a ``/run`` graph stays available after the run."""

GRAPH_FILENAME = "autograd-graph.png"

NO_RENDERER = "Graph pictures are not available on this bot: its renderer is not installed."


class GraphShelf:
    """Recent ``/run`` graphs by key, bounded in count and age.

    Args:
        size: graphs kept; adding one more drops the oldest.
        ttl_s: seconds a graph stays available.
        clock: a monotonic clock in seconds (``time.monotonic`` by default).
    """

    def __init__(
        self,
        size: int = SHELF_SIZE,
        ttl_s: float = SHELF_TTL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.size = size
        self.ttl_s = ttl_s
        self.clock = clock
        self._items: OrderedDict[int, tuple[float, AutogradGraph]] = OrderedDict()

    def put(self, key: int, graph: AutogradGraph) -> None:
        """Keep ``graph`` under ``key`` (a Discord snowflake)."""
        self._items[key] = (self.clock(), graph)
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)

    def get(self, key: int) -> AutogradGraph | None:
        """The graph under ``key``, or None when unknown or older than ``ttl_s``."""
        entry = self._items.get(key)
        if entry is None:
            return None
        stored_at, graph = entry
        if self.clock() - stored_at > self.ttl_s:
            del self._items[key]
            return None
        return graph

    def __len__(self) -> int:
        return len(self._items)


async def send_graph(interaction: Interaction, graph: AutogradGraph, *, title: str) -> None:
    """Draw ``graph`` off the event loop and send it as a private attachment.

    The interaction must already be deferred.

    Raises:
        UserFacingError: nothing to draw, no renderer, or a picture over the upload limit.
    """
    if graph.empty:
        raise UserFacingError(graph_caption(graph, title))
    try:
        from bot.graph_render import RendererUnavailable, render_graph_png
    except ImportError as exc:  # pragma: no cover - the module ships with the bot
        raise UserFacingError(NO_RENDERER) from exc
    try:
        png = await asyncio.to_thread(render_graph_png, graph, title=title)
    except RendererUnavailable as exc:
        raise UserFacingError(NO_RENDERER) from exc
    if len(png) > limits.ATTACHMENT_BYTES:
        raise UserFacingError("This graph is too large to send as a picture.")
    file = discord.File(
        io.BytesIO(png), filename=GRAPH_FILENAME, description=f"Autograd graph: {title}"
    )
    await interaction.followup.send(graph_caption(graph, title), file=file, ephemeral=True)


def _graph_or_error(graph: AutogradGraph | None, error: str | None) -> AutogradGraph:
    if graph is None:
        why = escape_learner(error or "the sandbox returned none", 300)
        raise UserFacingError(f"No graph could be read from this run: {why}.")
    return graph


class GraphButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"tutor:graph:(?P<item>{ITEM_ID}):(?P<drop>{DROP_ID})",
):
    """ "Show graph" for an item's snippet.

    Args:
        item_id: the item.
        drop_id: the drop it was shown for, or None (kept so the custom_id says where).
    """

    def __init__(self, item_id: str, drop_id: int | None) -> None:
        self.item_id = item_id
        custom_id = f"tutor:graph:{item_id}:{drop_id or 0}"
        super().__init__(
            discord.ui.Button(
                label="Show graph", style=discord.ButtonStyle.secondary, custom_id=custom_id
            )
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Self:
        """Rebuild the button from its custom_id."""
        return cls(match["item"], int(match["drop"]) or None)

    async def callback(self, interaction: Interaction) -> None:
        """Defer, get the snippet's graph from the sandbox, draw it, send it privately."""
        try:
            bot = bot_of(interaction)
            item = item_or_error(bot, self.item_id)
            await interaction.response.defer(ephemeral=True, thinking=True)
            run = await bot.services.snippets.run_curated(item, graph=True)
            graph = _graph_or_error(run.graph, run.graph_error)
            await send_graph(interaction, graph, title=item.id)
        except Exception as exc:
            await report(interaction, exc, where="tutor:graph")


class RunGraphButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"tutor:rungraph:(?P<key>[0-9]{1,20})",
):
    """ "Show graph" under a ``/run`` result.

    Args:
        key: the id of the submit interaction that ran the code (the shelf's key).
    """

    def __init__(self, key: int) -> None:
        self.key = key
        super().__init__(
            discord.ui.Button(
                label="Show graph",
                style=discord.ButtonStyle.secondary,
                custom_id=f"tutor:rungraph:{key}",
            )
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Self:
        """Rebuild the button from its custom_id."""
        return cls(int(match["key"]))

    async def callback(self, interaction: Interaction) -> None:
        """Defer, take the graph from the shelf, draw it, send it privately."""
        try:
            bot = bot_of(interaction)
            await interaction.response.defer(ephemeral=True, thinking=True)
            graph = bot.graph_shelf.get(self.key)
            if graph is None:
                hours = SHELF_TTL_S / 3600
                raise UserFacingError(
                    f"That graph is no longer kept (graphs of `/run` last {hours:g} hour and "
                    "do not survive a restart of the bot). Run the snippet again with `/run`."
                )
            await send_graph(interaction, graph, title="your snippet")
        except Exception as exc:
            await report(interaction, exc, where="tutor:rungraph")


def graph_view(item_id: str, drop_id: int | None) -> TutorView:
    """A view with one "Show graph" button for an item's snippet (e.g. under a reveal)."""
    view = TutorView(timeout=None)
    view.add_item(GraphButton(item_id, drop_id))
    return view


def run_graph_view(key: int) -> TutorView:
    """A view with one "Show graph" button for a ``/run`` result kept under ``key``."""
    view = TutorView(timeout=None)
    view.add_item(RunGraphButton(key))
    return view


GRAPH_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (GraphButton, RunGraphButton)
"""Registered with ``Client.add_dynamic_items`` at startup, next to the answer buttons."""
