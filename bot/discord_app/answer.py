"""The answer flow: verdict buttons -> justification modal -> grade -> private feedback.

Buttons are :class:`discord.ui.DynamicItem` s whose custom_id carries everything needed to
act on a click (item id, verdict, drop id; never user text), so a question posted days ago
still answers after any number of restarts. Templates::

    tutor:answer:TF3:f:12      verdict button (t/f) or "Answer" (x) of item TF3, drop 12
    tutor:answer:WHY2:x:0      drop 0 means /quiz or /review (not a drop)
    tutor:explain:TF3:12       "Explanation" under the feedback
    tutor:snippet:TF3:12       "Run the snippet" under the feedback
    tutor:graph:TF3:12         "Show graph" under the feedback and the snippet's output
                               (bot/discord_app/graphs.py)

The first response to an answer click is the modal (a modal cannot follow a defer); the
submit is deferred at once, because recording the attempt may wait on the database. Grading,
recording and the reveal are the shared steps of :mod:`bot.quiz`; this module only renders.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import TYPE_CHECKING, Any, Self

import discord

from bot import quiz
from bot.content.models import Item, Kind
from bot.discord_app import limits
from bot.discord_app.errors import TutorModal, TutorView, UserFacingError, report
from bot.discord_app.render import clip, explanation_embed, feedback_embed, snippet_embed
from bot.grading.models import MAX_ANSWER_CHARS

if TYPE_CHECKING:
    from bot.discord_app.app import TutorBot

ITEM_ID = r"(?:TF|SE|WHY|EC)[1-9][0-9]{0,5}"
DROP_ID = r"[0-9]{1,18}"

_VERDICT_CODE: dict[bool | None, str] = {True: "t", False: "f", None: "x"}
_CODE_VERDICT: dict[str, bool | None] = {v: k for k, v in _VERDICT_CODE.items()}

Interaction = discord.Interaction[Any]

MAX_DURATION_MS = 7 * 24 * 3600 * 1000
"""The store accepts answer durations up to a week (a modal left open longer is capped)."""


def bot_of(interaction: Interaction) -> TutorBot:
    """The bot that received ``interaction`` (its services hang off it; no globals)."""
    return interaction.client  # type: ignore[no-any-return]


def item_or_error(bot: TutorBot, item_id: str) -> Item:
    """The bank item ``item_id``.

    Raises:
        UserFacingError: the item was removed from the bank since the message was posted.
    """
    item = bot.services.bank.get(item_id)
    if item is None:
        raise UserFacingError(f"Question {item_id} is no longer in the question bank.")
    return item


def drop_part(drop_id: int | None) -> str:
    """The drop field of a custom_id: the drop's id, or ``0`` for a /quiz item."""
    return str(drop_id or 0)


def drop_of(match: re.Match[str]) -> int | None:
    """The drop id a custom_id's ``drop`` group names, or None for ``0`` (a /quiz item)."""
    return int(match["drop"]) or None


class AnswerButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"tutor:answer:(?P<item>{ITEM_ID}):(?P<verdict>[tfx]):(?P<drop>{DROP_ID})",
):
    """A verdict button (True / False) or the "Answer" button of other kinds.

    Args:
        item_id: the item answered.
        verdict: True / False for the verdict buttons, None for "Answer".
        drop_id: the drop, or None for ``/quiz`` and ``/review``.
    """

    def __init__(self, item_id: str, verdict: bool | None, drop_id: int | None) -> None:
        self.item_id = item_id
        self.verdict = verdict
        self.drop_id = drop_id
        label, style = {
            True: ("True", discord.ButtonStyle.success),
            False: ("False", discord.ButtonStyle.danger),
            None: ("Answer", discord.ButtonStyle.primary),
        }[verdict]
        custom_id = f"tutor:answer:{item_id}:{_VERDICT_CODE[verdict]}:{drop_part(drop_id)}"
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=custom_id))

    @classmethod
    async def from_custom_id(
        cls, interaction: Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Self:
        """Rebuild the button from its custom_id (called by discord.py on every click)."""
        return cls(match["item"], _CODE_VERDICT[match["verdict"]], drop_of(match))

    async def callback(self, interaction: Interaction) -> None:
        """Open the justification modal as the first response to the click."""
        try:
            bot = bot_of(interaction)
            item = item_or_error(bot, self.item_id)
            modal = AnswerModal(
                item,
                self.verdict,
                self.drop_id,
                opened_by=interaction.id,
                opened_at=bot.services.clock(),
            )
            await interaction.response.send_modal(modal)
        except Exception as exc:
            await report(interaction, exc, where="tutor:answer")


class AnswerModal(TutorModal):
    """The justification modal; its submit grades, records and shows the feedback.

    Args:
        item: the item answered.
        verdict: the button pressed (True / False) or None.
        drop_id: the drop, or None.
        opened_by: the id of the click interaction that opened this modal; it is the
            attempt's idempotency key, so a modal submitted twice records once.
        opened_at: when the modal opened (aware); the time to the submit is the answer's
            duration (a fast first correct answer rates the review card Easy).
    """

    def __init__(
        self,
        item: Item,
        verdict: bool | None,
        drop_id: int | None,
        *,
        opened_by: int,
        opened_at: datetime,
    ) -> None:
        verdict_word = {True: "True", False: "False", None: None}[verdict]
        title = (
            f"{item.id}: you said {verdict_word}" if verdict_word else f"Your answer to {item.id}"
        )
        super().__init__(
            title=clip(title, limits.MODAL_TITLE),
            custom_id=f"tutor:modal:answer:{opened_by}",
            timeout=30 * 60,
        )
        self.item = item
        self.verdict = verdict
        self.drop_id = drop_id
        self.opened_by = opened_by
        self.opened_at = opened_at
        self.justification: discord.ui.TextInput[Self] = discord.ui.TextInput(
            label="Why? Justify your verdict" if verdict_word else "Your answer, with the reason",
            style=discord.TextStyle.paragraph,
            placeholder=clip(
                "One or two sentences: what happens, and why.", limits.TEXT_INPUT_PLACEHOLDER
            ),
            max_length=MAX_ANSWER_CHARS,
            required=True,  # a verdict alone is not an answer: play and tutor grade agree
        )
        self.add_item(self.justification)

    async def on_submit(self, interaction: Interaction) -> None:
        """Defer, grade, record (once per idempotency key), then send the feedback."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        services = bot_of(interaction).services
        elapsed_ms = (services.clock() - self.opened_at).total_seconds() * 1000
        outcome = await quiz.grade_and_record(
            services,
            item=self.item,
            verdict=self.verdict,
            text=self.justification.value,
            learner_id=interaction.user.id,
            idempotency_key=f"answer:{self.opened_by}",
            guild_id=interaction.guild_id,
            drop_id=self.drop_id,
            duration_ms=round(min(max(elapsed_ms, 0.0), MAX_DURATION_MS)),
        )
        await interaction.followup.send(
            embed=feedback_embed(
                self.item, outcome.response, outcome.grade, duplicate=outcome.recorded.duplicate
            ),
            view=feedback_view(self.item.id, self.drop_id),
            ephemeral=True,
        )


class ExplainButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"tutor:explain:(?P<item>{ITEM_ID}):(?P<drop>{DROP_ID})",
):
    """ "Explanation": the answer key and explanation, privately."""

    def __init__(self, item_id: str, drop_id: int | None) -> None:
        self.item_id = item_id
        custom_id = f"tutor:explain:{item_id}:{drop_part(drop_id)}"
        super().__init__(
            discord.ui.Button(
                label="Explanation", style=discord.ButtonStyle.secondary, custom_id=custom_id
            )
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Self:
        """Rebuild the button from its custom_id."""
        return cls(match["item"], drop_of(match))

    async def callback(self, interaction: Interaction) -> None:
        """Answer with the explanation (a bank lookup: no defer needed)."""
        try:
            item = item_or_error(bot_of(interaction), self.item_id)
            await interaction.response.send_message(embed=explanation_embed(item), ephemeral=True)
        except Exception as exc:
            await report(interaction, exc, where="tutor:explain")


class SnippetButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"tutor:snippet:(?P<item>{ITEM_ID}):(?P<drop>{DROP_ID})",
):
    """ "Run the snippet": the item's snippet and its real output from the sandbox."""

    def __init__(self, item_id: str, drop_id: int | None) -> None:
        self.item_id = item_id
        self.drop_id = drop_id
        custom_id = f"tutor:snippet:{item_id}:{drop_part(drop_id)}"
        super().__init__(
            discord.ui.Button(
                label="Run the snippet", style=discord.ButtonStyle.secondary, custom_id=custom_id
            )
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Self:
        """Rebuild the button from its custom_id."""
        return cls(match["item"], drop_of(match))

    async def callback(self, interaction: Interaction) -> None:
        """Defer (the sandbox may be slow), run (or read the cached run), show the output.

        When the sandbox is unavailable the output recorded by ``tutor content verify`` is
        shown instead, labelled as such (:func:`bot.quiz.reveal`).
        """
        try:
            bot = bot_of(interaction)
            item = item_or_error(bot, self.item_id)
            await interaction.response.defer(ephemeral=True, thinking=True)
            shown = await quiz.reveal(bot.services, item)
            await interaction.followup.send(
                embed=snippet_embed(shown),
                view=_graph_view(self.item_id, self.drop_id),
                ephemeral=True,
            )
        except Exception as exc:
            await report(interaction, exc, where="tutor:snippet")


def answer_view(item: Item, drop_id: int | None) -> TutorView:
    """The buttons under a question: True / False for true/false items, else Answer."""
    view = TutorView(timeout=None)
    verdicts: list[bool | None] = [True, False] if item.kind is Kind.TRUE_FALSE else [None]
    for verdict in verdicts:
        view.add_item(AnswerButton(item.id, verdict, drop_id))
    return view


def feedback_view(item_id: str, drop_id: int | None) -> TutorView:
    """The buttons under the feedback: Explanation, Run the snippet and Show graph."""
    from bot.discord_app.graphs import GraphButton  # graphs imports this module

    view = TutorView(timeout=None)
    view.add_item(ExplainButton(item_id, drop_id))
    view.add_item(SnippetButton(item_id, drop_id))
    view.add_item(GraphButton(item_id, drop_id))
    return view


def _graph_view(item_id: str, drop_id: int | None) -> TutorView:
    from bot.discord_app.graphs import graph_view  # graphs imports this module

    return graph_view(item_id, drop_id)


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    AnswerButton,
    ExplainButton,
    SnippetButton,
)
"""Registered with ``Client.add_dynamic_items`` at startup, so old messages keep working."""
