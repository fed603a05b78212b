"""One learner's ``tutor play`` session: runs protocol commands over the shared services.

Both front ends (the interactive terminal and the line protocol) hand commands to
:meth:`PlaySession.handle` and render the events it returns; the tutoring itself is
:mod:`bot.quiz` (choose, grade and record, review, reveal) over :mod:`bot.services`, the
same steps the Discord bot takes. Nothing here prints, and nothing imports discord or torch.
"""

from __future__ import annotations

import asyncio
import logging
import random
import sqlite3
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict
from rapidfuzz import fuzz, process

from bot import quiz
from bot.content.models import Item, Kind
from bot.grading import AnswerTooLong, EmptyAnswer, render_feedback
from bot.grading.models import MAX_ANSWER_CHARS
from bot.play.protocol import (
    Answer,
    AskItem,
    Command,
    Ended,
    ErrorCode,
    ErrorEvent,
    Event,
    Graded,
    Graph,
    GraphSaved,
    Hint,
    HintShown,
    NothingToReview,
    Question,
    Quit,
    Quiz,
    Revealed,
    Review,
    SetVerdict,
    Skip,
    Skipped,
    Stats,
    StatsShown,
    TopicCount,
    Topics,
    TopicsShown,
    VerdictSet,
)
from bot.progress.models import LearnerStats
from bot.progress.stats import describe_concepts
from bot.services import Services
from bot.settings import blocking_file, not_a_directory
from sandbox.errors import SandboxError, SandboxRejected

log = logging.getLogger(__name__)


class CommandWords(BaseModel):
    """How a front end's learner asks for things, so the session's refusals name the right
    command (``topics`` in a script, ``?`` at the interactive Topic prompt).

    Attributes:
        topics: how to list the topic tags.
        skip: how to drop the open question.
        ask: how to ask for a question.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    topics: str
    skip: str
    ask: str


SCRIPT_WORDS = CommandWords(topics="`topics`", skip="`skip`", ask="`quiz`, `item ID` or `review`")
"""The line protocol's commands (:mod:`bot.play.protocol`)."""

INTERACTIVE_WORDS = CommandWords(
    topics="? at the Topic prompt", skip="/skip", ask="n or r at the menu"
)
"""The interactive prompts' keys (:mod:`bot.play.keys`)."""

REVIEW_LIMIT = 10
"""The review queue is read 10 cards (and 10 misses) at a time, as ``/review`` does."""

GraphSaver = Callable[[Item, Path], Awaitable[Path]]
"""Writes the autograd graph picture of an item's snippet as a PNG under a directory and
returns the file written (default: :meth:`PlaySession.save_graph`, drawn by the sandbox
worker)."""


@dataclass(slots=True)
class OpenQuestion:
    """The question on screen.

    Attributes:
        item: the item asked.
        key: the attempt's idempotency key (one UUID per question shown).
        asked_at: ``time.monotonic()`` when it was shown, in seconds.
        verdict: the verdict given so far (true/false items), or None.
        hint_used: the hint was shown.
        review: it was served from the review queue (``review``).
    """

    item: Item
    key: str
    asked_at: float
    verdict: bool | None = None
    hint_used: bool = False
    review: bool = False


MIN_SUGGEST_CHARS = 3
"""A shorter word (``x``) is close to too many tags to suggest any."""

SUGGEST_CUTOFF = 80
"""rapidfuzz ``WRatio`` (0-100) a tag needs to be suggested: typos and prefixes
(``grad-acumulation``, ``leaf``) pass; a letter shared by chance does not."""


def _suggest(word: str, choices: list[str]) -> str:
    """`` (did you mean a, b?)`` for close matches of ``word`` among ``choices``, else ``""``."""
    if len(word.strip()) < MIN_SUGGEST_CHARS:
        return ""
    close = process.extract(word, choices, scorer=fuzz.WRatio, limit=3, score_cutoff=SUGGEST_CUTOFF)
    if not close:
        return ""
    return " (did you mean " + ", ".join(name for name, _, _ in close) + "?)"


def _error(code: ErrorCode, message: str) -> list[Event]:
    return [ErrorEvent(code=code, message=message)]


class PlaySession:
    """The state of one terminal learner and the commands that change it.

    Args:
        services: the opened services (bank, grader, store, sandbox).
        learner_id: the local learner's id (``TUTOR_PLAY_LEARNER_ID``; a Discord user id
            to share progress with the bot's database).
        measure_time: pass the seconds a learner took to the store (an answer within 60 s,
            right the first time, rates the review card Easy). Scripts answer in
            microseconds, so the line protocol turns it off.
        graph_saver: writes graph pictures (default: :meth:`save_graph`).
        rng: the random source for choosing items (seeded in tests).
        words: how the front end's learner types commands, for refusals
            (:data:`SCRIPT_WORDS`, the default, or :data:`INTERACTIVE_WORDS`).
    """

    def __init__(
        self,
        services: Services,
        learner_id: int,
        *,
        measure_time: bool = True,
        graph_saver: GraphSaver | None = None,
        rng: random.Random | None = None,
        words: CommandWords = SCRIPT_WORDS,
    ) -> None:
        self.services = services
        self.learner_id = learner_id
        self.measure_time = measure_time
        self.graph_saver = graph_saver
        self.rng = rng or random.Random()  # noqa: S311 - picking a question, not a secret
        self.words = words
        self.open: OpenQuestion | None = None
        self.last_revealed: Item | None = None
        self.reviewed: set[str] = set()
        """Review questions answered in this session: not served again by ``review``."""
        self.review_skipped: list[str] = []
        """Review questions skipped in this session, in order: not served again by
        ``review`` until the next session (``item ID`` still asks one)."""

    async def handle(self, command: Command) -> list[Event]:
        """Run one command.

        Returns:
            The events to show, in order. Refusals are :class:`ErrorEvent` s, never
            exceptions: a refused command changes nothing stored. ``quit`` returns no event
            (the front end calls :meth:`end`).
        """
        match command:
            case Quiz():
                return await self._quiz(command)
            case AskItem():
                return self._ask_item(command.item_id)
            case Review():
                return await self._review()
            case Hint():
                return self._hint()
            case SetVerdict():
                return self._verdict(command.verdict)
            case Answer():
                return await self._answer(command.text)
            case Skip():
                return self._skip()
            case Stats():
                return [StatsShown(stats=await self.stats())]
            case Topics():
                return self._topics(command.kind, command.difficulty)
            case Graph():
                return await self._graph(command.directory)
            case Quit():
                return []
        raise AssertionError(f"unhandled command {command!r}")  # pragma: no cover

    async def stats(self) -> LearnerStats:
        """The learner's stats over every attempt (``tutor play`` records no guild).

        Raises:
            sqlite3.Error: the database cannot be read.
        """
        stats = await self.services.store.learner_stats(self.learner_id)
        return describe_concepts(stats, self.services.bank.concept_descriptions())

    async def end(self, reason: str) -> Ended:
        """Close the session: the open question is dropped (nothing recorded for it).

        Args:
            reason: ``quit``, ``eof`` or ``interrupted``.

        Returns:
            The closing event, with the final stats when the database can still be read.
        """
        unanswered = self.open.item.id if self.open is not None else None
        self.open = None
        try:
            stats: LearnerStats | None = await self.stats()
        except sqlite3.Error as exc:
            log.warning("final stats unavailable: %s", exc)
            stats = None
        return Ended.model_validate({"reason": reason, "unanswered": unanswered, "stats": stats})

    # --- asking -------------------------------------------------------------------------

    def _busy(self) -> list[Event] | None:
        if self.open is None:
            return None
        item_id = self.open.item.id
        return _error(
            "question_open", f"{item_id} is still open: answer it, or {self.words.skip} it first"
        )

    def _ask(
        self,
        item: Item,
        source: str,
        review_left: int | None = None,
        matching: int | None = None,
    ) -> list[Event]:
        self.open = OpenQuestion(
            item=item, key=str(uuid.uuid4()), asked_at=time.monotonic(), review=source == "review"
        )
        question = Question.model_validate(
            {
                "item_id": item.id,
                "kind": item.kind,
                "prompt": item.prompt,
                "difficulty": item.difficulty,
                "tags": list(item.tags),
                "needs_verdict": item.kind is Kind.TRUE_FALSE,
                "source": source,
                "review_left": review_left,
                "matching": matching,
            }
        )
        return [question]

    async def _quiz(self, command: Quiz) -> list[Event]:
        if busy := self._busy():
            return busy
        filters = quiz.QuizFilter(
            kind=command.kind, topic=command.topic, difficulty=command.difficulty
        )
        try:
            item = await quiz.next_item(self.services, self.learner_id, filters, rng=self.rng)
        except quiz.UnknownTopic as exc:
            hint = _suggest(exc.topic, self.services.bank.tags())
            return _error(
                "unknown_topic",
                f"no item is tagged {exc.topic[:48]!r}{hint}; {self.words.topics} lists them",
            )
        except quiz.NoMatchingItem:
            asked = ", ".join(
                f"{k}={v}" for k, v in command.model_dump(exclude={"command"}).items() if v
            )
            return _error("no_match", f"no item matches {asked}; drop a filter")
        matching = len(quiz.matching_items(self.services.bank, filters))
        return self._ask(item, "quiz", matching=matching)

    def _ask_item(self, item_id: str) -> list[Event]:
        if busy := self._busy():
            return busy
        item = self.services.bank.get(item_id)
        if item is None:
            hint = _suggest(item_id, list(self.services.bank.items))
            return _error("unknown_item", f"no item {item_id[:16]!r} in the bank{hint}")
        return self._ask(item, "item")

    async def _review(self) -> list[Event]:
        if busy := self._busy():
            return busy
        set_aside = self.reviewed | set(self.review_skipped)
        limit = REVIEW_LIMIT + len(set_aside)  # so what was set aside hides nothing else
        plan = await quiz.review_plan(self.services, self.learner_id, limit)
        queued = [item for item in plan.items if item.id not in set_aside][:REVIEW_LIMIT]
        if not queued:
            return [NothingToReview(skipped=list(self.review_skipped))]
        return self._ask(queued[0], "review", review_left=len(queued) - 1)

    # --- answering ----------------------------------------------------------------------

    def _need_open(self, what: str) -> OpenQuestion | list[Event]:
        if self.open is None:
            return _error(
                "no_question", f"no open question to {what}: ask one with {self.words.ask}"
            )
        return self.open

    def _hint(self) -> list[Event]:
        current = self._need_open("hint")
        if isinstance(current, list):
            return current
        current.hint_used = True
        return [HintShown(item_id=current.item.id, hint=current.item.hint)]

    def _verdict(self, verdict: bool) -> list[Event]:
        current = self._need_open("give a verdict for")
        if isinstance(current, list):
            return current
        if current.item.kind is not Kind.TRUE_FALSE:
            return _error(
                "not_true_false",
                f"{current.item.id} is not a true/false question: answer it in words",
            )
        current.verdict = verdict
        return [VerdictSet(item_id=current.item.id, verdict=verdict)]

    def _skip(self) -> list[Event]:
        current = self._need_open("skip")
        if isinstance(current, list):
            return current
        self.open = None
        if current.review and current.item.id not in self.review_skipped:
            self.review_skipped.append(current.item.id)
        return [Skipped(item_id=current.item.id)]

    async def _answer(self, text: str) -> list[Event]:
        current = self._need_open("answer")
        if isinstance(current, list):
            return current
        item = current.item
        text = text.strip()
        if len(text) > MAX_ANSWER_CHARS:
            return _error(
                "answer_too_long",
                f"your answer has {len(text):,} characters; at most {MAX_ANSWER_CHARS:,}. "
                f"{item.id} is still open",
            )
        duration_ms = None
        if self.measure_time:
            duration_ms = int((time.monotonic() - current.asked_at) * 1000)
        try:
            outcome = await quiz.grade_and_record(
                self.services,
                item=item,
                verdict=current.verdict,
                text=text,
                learner_id=self.learner_id,
                idempotency_key=current.key,
                duration_ms=duration_ms,
                hint_used=current.hint_used,
            )
        except AnswerTooLong:  # the grader's own limit; same words as above
            return _error("answer_too_long", f"at most {MAX_ANSWER_CHARS:,} characters")
        except EmptyAnswer as exc:  # blank, or only markup: the grader's check, for all
            return _error("empty_answer", f"{exc} (or {self.words.skip} to drop {item.id})")
        except sqlite3.OperationalError as exc:
            log.warning("recording an answer to %s failed: %s", item.id, exc)
            return _error(
                "not_recorded",
                f"the database refused the write ({exc}); nothing was recorded and "
                f"{item.id} is still open: answer again",
            )
        self.open = None
        if current.review:
            self.reviewed.add(item.id)
        graded = Graded(
            item_id=item.id,
            label=outcome.grade.label,
            score=outcome.grade.score,
            feedback=render_feedback(outcome.grade, item, flavour="plain"),
            grade=outcome.grade,
            attempt_id=outcome.recorded.attempt_id,
            duplicate=outcome.recorded.duplicate,
        )
        return [graded, await self.reveal(item)]

    async def reveal(self, item: Item) -> Revealed:
        """The explanation, the snippet and its real output (the sandbox's, else recorded)."""
        shown = await quiz.reveal(self.services, item)
        self.last_revealed = item
        run = shown.run
        if run is None:
            source, status, torch, duration = "recorded", None, item.torch_version, None
        else:
            source = "cache" if run.cached else "sandbox"
            status, torch = run.status, run.torch_version
            duration = None if run.cached else run.duration_ms
        return Revealed.model_validate(
            {
                "item_id": item.id,
                "answer": item.answer.text,
                "explanation": item.explanation,
                "snippet": item.snippet,
                "output": shown.output,
                "source": source,
                "status": status,
                "torch_version": torch,
                "duration_ms": duration,
                "sandbox_off": run is None
                and getattr(self.services.snippets.runner, "turned_off", False),
            }
        )

    # --- browsing -----------------------------------------------------------------------

    def _topics(self, kind: Kind | None, difficulty: int | None) -> list[Event]:
        items = self.services.bank.select(kind=kind, difficulty=difficulty)
        tags = Counter(tag for item in items for tag in item.tags)
        kinds = Counter(item.kind.value for item in items)
        return [
            TopicsShown(
                topics=[TopicCount(name=t, items=n) for t, n in sorted(tags.items())],
                kinds=[
                    TopicCount(name=k.value, items=kinds[k.value]) for k in Kind if kinds[k.value]
                ],
            )
        ]

    async def _graph(self, directory: Path) -> list[Event]:
        item = self.last_revealed
        if item is None:
            return _error("no_question", "no snippet revealed yet: answer a question first")
        # the picture's own path: a file at `directory` itself blocks as one above it does
        # A path that cannot take the picture is `bad_path`; `graph_unavailable` is kept for
        # a sandbox that is off, down or cannot draw, and a snippet with no graph.
        if (file := blocking_file(directory / "graph.png")) is not None:  # a few stats
            return _error(
                "bad_path",
                f"cannot write the picture under {directory}: {not_a_directory(file)}",
            )
        if not directory.is_dir() and not directory.parent.is_dir():  # noqa: ASYNC240 - two stats, microseconds
            return _error(
                "bad_path",
                f"the directory {str(directory.parent)!r} does not exist: create it or fix "
                f"the path (only the last directory, {str(directory)!r}, is created, so a "
                "mistyped path never scatters pictures elsewhere)",
            )
        saver = self.graph_saver or self.save_graph
        try:
            path = await saver(item, directory)
        except OSError as exc:
            why = exc.strerror or type(exc).__name__  # not "[Errno 13] ..." (fresh12 #8)
            return _error("bad_path", f"cannot write under {directory}: {why}")
        except quiz.NoGraph as exc:
            return _error("graph_unavailable", f"no graph of {item.id}: {exc.reason}")
        except SandboxRejected as exc:
            if exc.code == "unsupported":
                return _error("graph_unavailable", "this sandbox worker cannot draw graphs")
            return _error("graph_unavailable", f"the sandbox refused the picture: {exc}")
        except SandboxError as exc:
            return _error("graph_unavailable", f"no graph picture without the sandbox: {exc}")
        return [GraphSaved(item_id=item.id, path=str(path))]

    async def save_graph(self, item: Item, directory: Path) -> Path:
        """Write the autograd graph of ``item``'s snippet as ``directory/<id>-graph.png``.

        The graph comes from the snippet's cached run and the picture from the sandbox
        worker (:func:`bot.quiz.item_graph`), as on Discord; nothing is drawn in this
        process. ``directory`` is created when missing (not its parent).

        Returns:
            The file written.

        Raises:
            NoGraph: the run gave no graph, or its snippet leaves nothing with autograd
                history (nothing to draw).
            SandboxRejected: the worker cannot draw (``unsupported``) or refused.
            SandboxUnavailable: the sandbox is off, down or too slow.
            OSError: the file cannot be written.
        """
        picture = await quiz.item_graph(self.services, item)
        if picture.png is None:
            reason = "its snippet leaves no tensor with autograd history: nothing to draw"
            raise quiz.NoGraph(item.id, reason)
        path = directory / f"{item.id}-graph.png"
        await asyncio.to_thread(_write_file, path, picture.png)
        return path


def _write_file(path: Path, data: bytes) -> None:
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(data)


__all__ = [
    "INTERACTIVE_WORDS",
    "REVIEW_LIMIT",
    "SCRIPT_WORDS",
    "CommandWords",
    "GraphSaver",
    "OpenQuestion",
    "PlaySession",
]
