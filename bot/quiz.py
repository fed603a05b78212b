"""The tutoring steps both front ends share: pick an item, grade and record, review, reveal.

Plain domain code over :class:`bot.services.Services` (no discord, no torch). The Discord
cogs and ``tutor play`` call these and only render what they return::

    item = await next_item(services, learner_id, QuizFilter(kind=Kind.TRUE_FALSE))
    outcome = await grade_and_record(
        services, item=item, verdict=False, text="they accumulate",
        learner_id=learner_id, idempotency_key=str(uuid4()),
    )
    shown = await reveal(services, item)   # explanation, snippet, real output
    picture = await item_graph(services, item)   # its autograd graph, drawn by the sandbox
"""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field, field_validator

from bot.content.loader import Bank
from bot.content.models import Item, Kind
from bot.grading import GradeResult, Response
from bot.progress.models import AttemptIn, AttemptRecorded, ReviewQueue
from bot.services import Services
from sandbox.errors import SandboxError
from sandbox.protocol import AutogradGraph, RunResult

log = logging.getLogger(__name__)

RECENT_WINDOW = 20
"""``/quiz`` avoids the learner's last 20 items while other items match the filters."""


class QuizError(Exception):
    """Base of the expected refusals of this module; each carries what explains it."""


class UnknownTopic(QuizError):
    """No item has this tag.

    Attributes:
        topic: the topic as given (untrusted: escape before echoing).
    """

    def __init__(self, topic: str) -> None:
        self.topic = topic
        super().__init__(f"no item is tagged {topic[:48]!r}")


class NoMatchingItem(QuizError):
    """No item matches every filter at once."""

    def __init__(self, filters: QuizFilter) -> None:
        self.filters = filters
        super().__init__(f"no item matches {filters.model_dump(exclude_none=True)}")


class QuizFilter(BaseModel):
    """What the learner asked for; None means any.

    Attributes:
        kind: the kind of question.
        topic: a tag (``leaf-tensor``, ``grad-accumulation``...), in any case: tags are
            lower-case slugs, so ``ABS`` is ``abs`` (every front end builds this filter:
            ``tutor play``'s prompt and script, Discord's ``/quiz topic``).
        difficulty: 1 (easiest) to 3.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Kind | None = None
    topic: str | None = Field(None, min_length=1, max_length=48)
    difficulty: int | None = Field(None, ge=1, le=3)

    @field_validator("topic")
    @classmethod
    def _lower_case(cls, topic: str | None) -> str | None:
        return None if topic is None else topic.lower()


def matching_items(bank: Bank, filters: QuizFilter) -> list[Item]:
    """Every item matching ``filters``, in bank order (validates the filters on their own).

    Raises:
        UnknownTopic: ``filters.topic`` is no item's tag.
        NoMatchingItem: no item matches every filter.
    """
    if filters.topic is not None and filters.topic not in bank.tags():
        raise UnknownTopic(filters.topic)
    matches = bank.select(kind=filters.kind, tag=filters.topic, difficulty=filters.difficulty)
    if not matches:
        raise NoMatchingItem(filters)
    return matches


def choose_item(
    bank: Bank, filters: QuizFilter, *, recent: Sequence[str] = (), rng: random.Random
) -> Item:
    """One item matching ``filters``, at random among those not in ``recent``.

    When every match is recent, the one answered longest ago is asked again (``recent`` is
    ordered newest first).

    Args:
        bank: the question bank.
        filters: kind, topic and difficulty (None: any).
        recent: the learner's recent item ids, newest first.
        rng: the random source (seeded in tests).

    Raises:
        UnknownTopic: ``filters.topic`` is no item's tag.
        NoMatchingItem: no item matches every filter.
    """
    matches = matching_items(bank, filters)
    seen = {item_id: age for age, item_id in enumerate(recent)}
    fresh = [item for item in matches if item.id not in seen]
    if fresh:
        return rng.choice(fresh)
    return max(matches, key=lambda item: seen[item.id])


async def next_item(
    services: Services,
    learner_id: int,
    filters: QuizFilter,
    *,
    rng: random.Random | None = None,
) -> Item:
    """The next quiz item for a learner: :func:`choose_item` over their recent items.

    Raises:
        UnknownTopic, NoMatchingItem: see :func:`choose_item`.
    """
    recent = await services.store.recent_items(learner_id, RECENT_WINDOW)
    return choose_item(
        services.bank,
        filters,
        recent=recent,
        rng=rng or random.Random(),  # noqa: S311 - picking a question, not a secret
    )


class ReviewPlan(BaseModel):
    """What to review, in order: spaced-repetition cards due now, then recently missed items.

    Attributes:
        queue: the store's queue (due dates, lapses, last labels).
        items: the queue's items still in the bank, due ones first, each once.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    queue: ReviewQueue
    items: list[Item]


def review_items(queue: ReviewQueue, bank: Bank) -> list[Item]:
    """The queue's items in review order (due, then missed), skipping ids no longer in the bank."""
    ordered: dict[str, Item] = {}
    for entry in [*queue.due, *queue.missed]:
        item = bank.get(entry.item_id)
        if item is not None:
            ordered.setdefault(item.id, item)
    return list(ordered.values())


async def review_plan(services: Services, learner_id: int, limit: int = 10) -> ReviewPlan:
    """The learner's review: at most ``limit`` due cards and ``limit`` missed items."""
    queue = await services.store.review_queue(learner_id, limit)
    return ReviewPlan(queue=queue, items=review_items(queue, services.bank))


class AnswerOutcome(BaseModel):
    """A graded, recorded answer.

    Attributes:
        response: what was graded (verdict and text).
        grade: the grader's result; ``grade.feedback`` holds every sentence to show.
        recorded: what the store did (``duplicate`` when the key was already recorded:
            the grade shown is this submit's, the stored attempt is the first one).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    response: Response
    grade: GradeResult
    recorded: AttemptRecorded


async def grade_and_record(
    services: Services,
    *,
    item: Item,
    verdict: bool | None,
    text: str,
    learner_id: int,
    idempotency_key: str,
    guild_id: int | None = None,
    drop_id: int | None = None,
    duration_ms: int | None = None,
    hint_used: bool = False,
) -> AnswerOutcome:
    """Grade a learner's answer to ``item`` and record it once per ``idempotency_key``.

    Args:
        item: the item answered.
        verdict: the True/False button (true/false items), else None.
        text: the justification, at most 4,000 characters.
        learner_id: the Discord user id (or ``tutor play``'s local id).
        idempotency_key: the same key twice records once (the Discord interaction that
            opened the modal; a UUID per question in ``tutor play``).
        guild_id: the guild, or None (DMs, ``tutor play``: no leaderboard points).
        drop_id: the daily drop answered, or None.
        duration_ms: milliseconds the learner took, if known (a fast first correct answer
            rates the review card Easy).
        hint_used: the learner saw the hint first.

    Raises:
        AnswerTooLong: ``text`` is over 4,000 characters.
        EmptyAnswer: ``text`` is empty after normalisation (blank, only a code fence...):
            nothing is graded or recorded.
        AlreadyAnswered: the learner already answered this drop (the first answer stands).
        DropClosed, UnknownDrop, DropMismatch: the drop does not accept this answer.
    """
    response = services.grader.response(item.id, verdict, text)
    grade = services.grader.grade(response)
    recorded = await services.store.record_attempt(
        AttemptIn.from_grade(
            item=item,
            grade=grade,
            # The response's text: lone surrogates already replaced (SQLite refuses them).
            answer_text=response.text,
            learner_id=learner_id,
            idempotency_key=idempotency_key,
            guild_id=guild_id,
            drop_id=drop_id,
            duration_ms=duration_ms,
            hint_used=hint_used,
        )
    )
    return AnswerOutcome(response=response, grade=grade, recorded=recorded)


class Reveal(BaseModel):
    """What a reveal shows: the answer, the explanation, the snippet and its output.

    Attributes:
        item: the item revealed (answer, explanation, snippet, recorded output).
        run: the snippet's real run in the sandbox (live or cached), or None when the
            sandbox could not give one: show ``item.expected_output``, recorded with
            ``item.torch_version`` by ``tutor content verify``, and say so.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    item: Item
    run: RunResult | None

    @property
    def output(self) -> str:
        """The output to show: the run's stdout then stderr, else the recorded output."""
        if self.run is None:
            return self.item.expected_output
        return self.run.stdout + (("\n" + self.run.stderr) if self.run.stderr else "")


async def reveal(services: Services, item: Item) -> Reveal:
    """The reveal of ``item``: its real output from the sandbox (cached after the first run).

    Never raises for the sandbox: when it is down, busy, too slow or refuses, the reveal
    carries no run (logged) and the front end shows the recorded output.
    """
    try:
        run = await services.snippets.run_curated(item)
    except SandboxError as exc:
        log.warning("reveal of %s without a live run: %s", item.id, exc)
        run = None
    return Reveal(item=item, run=run)


class NoGraph(QuizError):
    """The sandbox ran the snippet but read no graph from it.

    Attributes:
        item_id: the item whose snippet ran.
        reason: the sandbox's words (``RunResult.graph_error``), e.g. "the snippet ended
            before its graph was written"; they may quote the job, so escape before echoing.
    """

    def __init__(self, item_id: str, reason: str) -> None:
        self.item_id = item_id
        self.reason = reason
        super().__init__(f"no graph for {item_id}: {reason}")


class GraphPicture(BaseModel):
    """An autograd graph and its picture.

    Attributes:
        graph: the graph the snippet left (validated by the sandbox; its text is untrusted).
        title: what it is the graph of (an item id, "your snippet").
        png: the PNG drawn by the sandbox worker (about 1,100 px wide), or None when the
            graph is empty: no tensor in scope has autograd history (say so in words;
            ``graph.untracked`` names the tensors without history).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    graph: AutogradGraph
    title: str
    png: bytes | None


async def draw_graph(services: Services, graph: AutogradGraph, *, title: str) -> GraphPicture:
    """The picture of ``graph``, drawn by the sandbox worker (no picture for an empty graph).

    Args:
        graph: e.g. ``RunResult.graph`` of ``Snippets.run_learner(code, graph=True)``.
        title: what it is the graph of, at most 60 printable characters.

    Raises:
        SandboxRejected: code ``unsupported`` when the worker cannot draw.
        SandboxUnavailable: the worker is down, busy or too slow.
    """
    png = None if graph.empty else await services.snippets.render_graph(graph, title=title)
    return GraphPicture(graph=graph, title=title, png=png)


async def item_graph(services: Services, item: Item) -> GraphPicture:
    """The autograd graph ``item``'s snippet builds, and its picture.

    The graph comes from the same cached run as the reveal's output
    (``Snippets.run_curated(item, graph=True)``), so after a reveal only the drawing waits.

    Raises:
        NoGraph: the run gave no graph (the sandbox says why).
        SandboxRejected: the worker cannot draw (``unsupported``) or refused the snippet.
        SandboxUnavailable: the worker is down, busy or too slow (and no run is cached).
    """
    run = await services.snippets.run_curated(item, graph=True)
    if run.graph is None:
        raise NoGraph(item.id, run.graph_error or "the sandbox returned none")
    return await draw_graph(services, run.graph, title=item.id)


__all__ = [
    "RECENT_WINDOW",
    "AnswerOutcome",
    "GraphPicture",
    "NoGraph",
    "NoMatchingItem",
    "QuizError",
    "QuizFilter",
    "Reveal",
    "ReviewPlan",
    "UnknownTopic",
    "choose_item",
    "draw_graph",
    "grade_and_record",
    "item_graph",
    "matching_items",
    "next_item",
    "review_items",
    "review_plan",
]
