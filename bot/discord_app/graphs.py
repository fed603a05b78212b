"""The "Show graph" buttons: the autograd graph a snippet built, as a private PNG attachment.

Two persistent buttons (:class:`discord.ui.DynamicItem`), registered at startup::

    tutor:graph:TF5:12       an item's snippet (drop 12; 0 outside drops): under the answer
                             feedback, the "Run the snippet" result and a drop's reveal
    tutor:rungraph:<id>      a learner's ``/run``: <id> is the submit interaction's id

An item's graph comes from the sandbox (:func:`bot.quiz.item_graph`: the same store cache
entry as its output), so the button works on a reveal posted days ago. A ``/run`` graph is
kept in memory by :class:`GraphShelf` (the code is not stored anywhere): a click after a
restart or after :data:`SHELF_TTL_S` says so and suggests running it again.

Every click is deferred first (the sandbox may take a moment); the PNG is drawn by the
sandbox worker's render process (``POST /graph.png``), never in the bot, which therefore
never loads matplotlib; it is sent ephemeral.
"""

from __future__ import annotations

import io
import re
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Self

import discord

from bot import quiz
from bot.discord_app import limits
from bot.discord_app.answer import (
    DROP_ID,
    ITEM_ID,
    bot_of,
    drop_of,
    drop_part,
    item_or_error,
)
from bot.discord_app.errors import TutorView, UserFacingError, report
from bot.discord_app.render import graph_caption
from sandbox.protocol import AutogradGraph

Interaction = discord.Interaction[Any]

SHELF_SIZE = 100
"""``/run`` graphs kept for their "Show graph" button (the oldest goes first). A graph at
every cap of ``sandbox.protocol`` takes about 200 KiB as objects; typical ones a few KiB."""

SHELF_TTL_S = 3600.0
"""Seconds a ``/run`` graph stays available after the run."""

GRAPH_FILENAME = "autograd-graph.png"


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


async def send_picture(interaction: Interaction, picture: quiz.GraphPicture) -> None:
    """Send a graph's picture (or, for an empty graph, the words) as a private follow-up.

    The interaction must already be deferred.

    Raises:
        UserFacingError: nothing to draw, or a picture over Discord's upload limit.
    """
    caption = graph_caption(picture.graph, picture.title)
    if picture.png is None:
        raise UserFacingError(caption)
    if len(picture.png) > limits.ATTACHMENT_BYTES:
        raise UserFacingError("This graph is too large to send as a picture.")
    file = discord.File(
        io.BytesIO(picture.png),
        filename=GRAPH_FILENAME,
        description=f"Autograd graph: {picture.title}",
    )
    await interaction.followup.send(caption, file=file, ephemeral=True)


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
        custom_id = f"tutor:graph:{item_id}:{drop_part(drop_id)}"
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
        return cls(match["item"], drop_of(match))

    async def callback(self, interaction: Interaction) -> None:
        """Defer, get the snippet's graph from the sandbox, draw it, send it privately."""
        try:
            bot = bot_of(interaction)
            item = item_or_error(bot, self.item_id)
            await interaction.response.defer(ephemeral=True, thinking=True)
            await send_picture(interaction, await quiz.item_graph(bot.services, item))
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
            picture = await quiz.draw_graph(bot.services, graph, title="your snippet")
            await send_picture(interaction, picture)
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
