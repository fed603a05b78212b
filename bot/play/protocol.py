"""The line protocol of ``tutor play``: commands in, events out.

``tutor play`` reads one command per line when its standard input is not a terminal (or
with ``--script``), and answers each with one or more events: plain text by default, one
JSON object per line with ``--json``. The interactive front end builds the same commands
from its menus, so both modes run the same code. Blank lines and lines starting with ``#``
are ignored; a command word is case-insensitive; everything after ``answer `` is the text.

=================================  ==========================================================
command                            effect
=================================  ==========================================================
``quiz [kind=K] [topic=T]          ask a question; ``K`` is ``true_false`` (``tf``),
[difficulty=N]``                   ``spot_the_error`` (``se``), ``why`` or ``edge_case``
                                   (``ec``); ``T`` a topic tag; ``N`` 1-3; any may be left out
``item ID``                        ask this item (``TF3``)
``review``                         ask the next review item: due cards, then recent misses
``hint``                           show the open question's hint (recorded as used)
``verdict true|false``             the verdict for a true/false question (``t``/``f`` too)
``answer TEXT``                    grade TEXT (with the verdict, if given), record it once,
                                   then reveal the explanation and the snippet's real output
``skip``                           drop the open question; nothing is recorded
``stats``                          your stats and streak
``topics``                         every topic tag and kind, with item counts
``graph DIR``                      save the last revealed snippet's autograd graph as
                                   ``DIR/<item>-graph.png`` (drawn by the sandbox worker)
``quit``                           end (end of input too); the final stats are printed
=================================  ==========================================================

The terminal's slash keys ``/hint``, ``/skip`` and ``/quit`` are read as ``hint``, ``skip``
and ``quit``; ``/help`` (the terminal's key list) is refused with the list of commands.

Example session (``printf '...' | tutor play --json``)::

    item TF3
    verdict false
    answer .grad accumulates: every backward adds to it until you zero it
    quit

answers with the events ``started``, ``question``, ``verdict``, ``graded``, ``revealed``,
``ended``. A refused command gives an ``error`` event (``code`` and ``message``, the line
number) and the session goes on; the exit status is then 1.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated, Final, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from bot.content.models import Kind, Label, canonical_item_id
from bot.grading.models import MAX_ANSWER_CHARS, GradeResult
from bot.progress.models import LearnerStats

MAX_LINE_CHARS = 16_384
"""A protocol line longer than this (characters) is refused whole (answers are capped at
4,000 characters; the rest is room for the command word)."""

KIND_ALIASES: dict[str, Kind] = {
    **{kind.value: kind for kind in Kind},
    "tf": Kind.TRUE_FALSE,
    "se": Kind.SPOT_THE_ERROR,
    "ec": Kind.EDGE_CASE,
}
"""Every spelling of a kind the protocol and the menus accept."""


ErrorCode = Literal[
    "unknown_command",
    "bad_argument",
    "line_too_long",
    "no_question",
    "question_open",
    "not_true_false",
    "empty_answer",
    "answer_too_long",
    "not_recorded",
    "unknown_item",
    "unknown_topic",
    "no_match",
    "graph_unavailable",
    "bad_path",
    "input_ended",
]
"""Every ``code`` an ``error`` event can carry (:class:`ErrorEvent`, which says when each
is given); README.md's list of them is checked against this one (tests/play/
test_error_codes.py: fresh22 #11 found ``graph``'s ``no_question`` undocumented)."""

ERROR_CODES: Final[frozenset[str]] = frozenset(get_args(ErrorCode))
"""The values of :data:`ErrorCode`."""


class ProtocolError(ValueError):
    """A line that is not a command. The message names what was wrong.

    Attributes:
        code: a stable machine-readable reason (``unknown_command``, ``bad_argument``,
            ``line_too_long``).
    """

    def __init__(self, code: ErrorCode, message: str) -> None:
        self.code = code
        super().__init__(message)


class _Command(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Quiz(_Command):
    """Ask a question matching the filters (None: any)."""

    command: Literal["quiz"] = "quiz"
    kind: Kind | None = None
    topic: str | None = Field(None, min_length=1, max_length=48)
    difficulty: int | None = Field(None, ge=1, le=3)


class AskItem(_Command):
    """Ask one item by id."""

    command: Literal["item"] = "item"
    item_id: str = Field(min_length=1, max_length=16)


class Review(_Command):
    """Ask the next review item."""

    command: Literal["review"] = "review"


class Hint(_Command):
    """Show the open question's hint."""

    command: Literal["hint"] = "hint"


class SetVerdict(_Command):
    """The true/false verdict for the open question."""

    command: Literal["verdict"] = "verdict"
    verdict: bool


class Answer(_Command):
    """The justification: grade, record, reveal. ``text`` is checked by the session (empty,
    over 4,000 characters) so both front ends refuse it with the same words."""

    command: Literal["answer"] = "answer"
    text: str


class Skip(_Command):
    """Drop the open question."""

    command: Literal["skip"] = "skip"


class Stats(_Command):
    """Show the learner's stats."""

    command: Literal["stats"] = "stats"


class Topics(_Command):
    """List topics and kinds, counting only the items of ``kind`` and ``difficulty`` (None:
    any; the interactive Topic prompt passes the ones already chosen)."""

    command: Literal["topics"] = "topics"
    kind: Kind | None = None
    difficulty: int | None = Field(None, ge=1, le=3)


class Graph(_Command):
    """Save the last revealed snippet's autograd graph as a PNG under ``directory``."""

    command: Literal["graph"] = "graph"
    directory: Path


class Quit(_Command):
    """End the session."""

    command: Literal["quit"] = "quit"


Command = Annotated[
    Quiz | AskItem | Review | Hint | SetVerdict | Answer | Skip | Stats | Topics | Graph | Quit,
    Field(discriminator="command"),
]
"""Every command of the protocol."""

_TRUE = {"true", "t", "yes", "y"}
_FALSE = {"false", "f", "no", "n"}
_NO_ARGS: dict[str, Review | Hint | Skip | Stats | Topics] = {
    "review": Review(),
    "hint": Hint(),
    "skip": Skip(),
    "stats": Stats(),
    "topics": Topics(),
}
_QUIT_WORDS = {"quit", "exit", "q"}
_SLASH_KEYS = {"/quit": "quit", "/hint": "hint", "/skip": "skip"}
"""The terminal's slash keys (README: ``/quit`` works anywhere) read as their commands, so a
script written from the README's table runs (fresh26 piped ``/quit`` and got
``unknown_command``); ``/help`` is refused with the list of commands."""
_COMMAND_AS_ANSWER = {"skip": "skip", "hint": "hint", "quit": "quit", "exit": "quit", "q": "quit"}
"""An answer that is only one of these words was meant as the command (as interactively)."""
_COMMAND_DOES = {"skip": "drop the question", "hint": "see the hint", "quit": "end the session"}


def parse_verdict(word: str) -> bool:
    """``true``/``t``/``yes``/``y`` or ``false``/``f``/``no``/``n`` (any case) as a bool.

    Raises:
        ProtocolError: anything else (code ``bad_argument``).
    """
    lowered = word.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ProtocolError("bad_argument", f"verdict must be true or false, not {word[:20]!r}")


def parse_kind(word: str) -> Kind:
    """A kind from any of its spellings (:data:`KIND_ALIASES`).

    Raises:
        ProtocolError: an unknown kind; the message lists the known ones.
    """
    kind = KIND_ALIASES.get(word.strip().lower())
    if kind is None:
        known = ", ".join(f"{k.value} ({a})" for a, k in KIND_ALIASES.items() if a != k.value)
        raise ProtocolError("bad_argument", f"unknown kind {word[:30]!r}; kinds are {known}, why")
    return kind


def _parse_quiz(rest: str) -> Quiz:
    try:
        words = shlex.split(rest)
    except ValueError as exc:
        raise ProtocolError("bad_argument", f"quiz: {exc}") from None
    fields: dict[str, object] = {}
    for word in words:
        key, sep, value = word.partition("=")
        key = key.lower()
        if not sep or not value:
            raise ProtocolError(
                "bad_argument", f"quiz takes kind=K topic=T difficulty=N, not {word[:30]!r}"
            )
        if key in fields:
            raise ProtocolError("bad_argument", f"quiz: {key} is given twice")
        if key == "kind":
            fields["kind"] = parse_kind(value)
        elif key == "topic":
            if len(value) > 48:
                raise ProtocolError("bad_argument", "quiz: a topic has at most 48 characters")
            fields["topic"] = value
        elif key == "difficulty":
            if value not in {"1", "2", "3"}:
                raise ProtocolError(
                    "bad_argument", f"quiz: difficulty is 1, 2 or 3, not {value[:10]!r}"
                )
            fields["difficulty"] = int(value)
        else:
            raise ProtocolError(
                "bad_argument", f"quiz: unknown filter {key[:20]!r} (kind, topic, difficulty)"
            )
    return Quiz.model_validate(fields)


def parse_line(line: str) -> Command | None:
    """Parse one protocol line.

    Args:
        line: the line, with or without its newline.

    Returns:
        The command, or None for a blank line or a ``#`` comment.

    Raises:
        ProtocolError: the line is too long, names no command, or has bad arguments; the
            message says which and how to write it.
    """
    if len(line) > MAX_LINE_CHARS:
        raise ProtocolError(
            "line_too_long", f"the line is longer than {MAX_LINE_CHARS:,} characters"
        )
    stripped = line.strip()
    if not stripped or stripped.startswith("#"):
        return None
    word, _, rest = stripped.partition(" ")
    word = word.lower()
    word = _SLASH_KEYS.get(word, word)
    rest = rest.strip()
    if word in _QUIT_WORDS:
        if rest:
            raise ProtocolError("bad_argument", f"{word} takes no argument")
        return Quit()
    if word in _NO_ARGS:
        if rest:
            raise ProtocolError("bad_argument", f"{word} takes no argument")
        return _NO_ARGS[word]
    if word == "quiz":
        return _parse_quiz(rest)
    if word == "item":
        if not rest or " " in rest or len(rest) > 16:
            raise ProtocolError("bad_argument", "item takes one item id, e.g. `item TF3`")
        return AskItem(item_id=canonical_item_id(rest))
    if word == "verdict":
        return SetVerdict(verdict=parse_verdict(rest))
    if word == "answer":
        # The text is taken as typed (one line); the session refuses empty or long text.
        text = line.strip().partition(" ")[2].strip()
        meant = _COMMAND_AS_ANSWER.get(text.lower())
        if meant is not None:
            raise ProtocolError(
                "bad_argument",
                f"`answer {text[:10]}` was not graded: send `{meant}` on its own line to "
                f"{_COMMAND_DOES[meant]}; to answer, say why in a sentence",
            )
        return Answer(text=text)
    if word == "graph":
        if not rest:
            raise ProtocolError("bad_argument", "graph takes a directory, e.g. `graph out/`")
        return Graph(directory=Path(rest))
    what = (
        "/help lists the terminal's keys; scripted play"
        if word == "/help"
        else f"unknown command {word[:20]!r};"
    )
    raise ProtocolError(
        "unknown_command",
        f"{what} commands: quiz, item, review, hint, verdict, answer, skip, stats, topics, "
        "graph, quit (/hint, /skip and /quit too)",
    )


# --- events -------------------------------------------------------------------------------


class _Event(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SandboxState(BaseModel):
    """What the session knows of the sandbox at start.

    Attributes:
        address: ``local``, ``off``, ``unix:/...`` or ``http://...``.
        available: a worker answered its health check.
        backend: its isolation backend (``namespaces``, ``container``, ``none``), if known.
        torch_version: its torch, if known.
        note: why it is unavailable, when it is.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    address: str
    available: bool
    backend: str | None = None
    torch_version: str | None = None
    note: str | None = None


class Started(_Event):
    """The session is open."""

    event: Literal["started"] = "started"
    learner_id: int
    database: str
    items: int
    sandbox: SandboxState


class Question(_Event):
    """A question to answer.

    Attributes:
        source: how it was chosen (``quiz``, ``item`` or ``review``).
        needs_verdict: true/false items take a verdict (``verdict true|false``).
        review_left: for review questions, how many more are queued after this one
            (questions answered or skipped in this session's review are not counted: they
            are not served again until the next session).
        matching: for quiz questions, how many bank items match the quiz's filters; 1
            means asking again with the same filters serves this item again (the heading
            and the "another like this" choice say so).
    """

    event: Literal["question"] = "question"
    item_id: str
    kind: Kind
    prompt: str
    difficulty: int
    tags: list[str]
    needs_verdict: bool
    source: Literal["quiz", "item", "review"]
    review_left: int | None = None
    matching: int | None = Field(None, ge=1)


class HintShown(_Event):
    """The open question's hint."""

    event: Literal["hint"] = "hint"
    item_id: str
    hint: str


class VerdictSet(_Event):
    """The verdict was noted for the open question."""

    event: Literal["verdict"] = "verdict"
    item_id: str
    verdict: bool


class Graded(_Event):
    """A graded and recorded answer.

    Attributes:
        feedback: :func:`bot.grading.render_feedback`'s plain-text flavour: the words a
            learner sees in every front end, without Discord's markdown.
        grade: the grader's full result.
        attempt_id: the stored attempt.
        duplicate: the attempt was already recorded (never happens within one session).
    """

    event: Literal["graded"] = "graded"
    item_id: str
    label: Label
    score: float
    feedback: str
    grade: GradeResult
    attempt_id: int
    duplicate: bool


class Revealed(_Event):
    """The answer, explanation, snippet and its output.

    Attributes:
        source: ``sandbox`` (ran now), ``cache`` (an earlier real run, kept in the
            database), or ``recorded`` (the sandbox could not run it: the output recorded
            with ``torch_version`` by ``tutor content verify``).
        status: the run's status line (``exit 0``, ``timed out after 5 s``...), None when
            recorded.
        torch_version: the torch that produced ``output``.
        duration_ms: how long the run took, in milliseconds, when it ran now.
        sandbox_off: ``recorded`` because the sandbox was turned off (``--sandbox off``),
            not because it failed.
    """

    event: Literal["revealed"] = "revealed"
    item_id: str
    answer: str
    explanation: str
    snippet: str
    output: str
    source: Literal["sandbox", "cache", "recorded"]
    status: str | None
    torch_version: str
    duration_ms: float | None = None
    sandbox_off: bool = False


class Skipped(_Event):
    """The open question was dropped; nothing was recorded."""

    event: Literal["skipped"] = "skipped"
    item_id: str


class NothingToReview(_Event):
    """Nothing (more) to review in this session.

    No card is due and no recent answer was missed, or every queued one was answered or
    skipped in this session already (``review`` serves each at most once per session).

    Attributes:
        skipped: review questions skipped in this session, in the order skipped; they
            are queued again in the next session (``item ID`` asks one now).
    """

    event: Literal["nothing_to_review"] = "nothing_to_review"
    skipped: list[str] = Field(default_factory=list)


class StatsShown(_Event):
    """The learner's stats (``stats.streaks`` holds the streak)."""

    event: Literal["stats"] = "stats"
    stats: LearnerStats


class TopicCount(BaseModel):
    """One topic tag (or kind) and how many items have it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    items: int


class TopicsShown(_Event):
    """Every topic and kind of the bank."""

    event: Literal["topics"] = "topics"
    topics: list[TopicCount]
    kinds: list[TopicCount]


class GraphSaved(_Event):
    """The graph picture was written."""

    event: Literal["graph"] = "graph"
    item_id: str
    path: str


class ErrorEvent(_Event):
    """A refused command. Nothing stored was changed by it.

    Attributes:
        code: one of :data:`ErrorCode`: ``unknown_command`` (not a command),
            ``bad_argument`` (a command's argument: a verdict, a kind, a filter...),
            ``line_too_long``, ``no_question`` (``verdict``/``hint``/``answer`` with no
            open question; ``graph`` before any snippet was revealed), ``question_open``
            (a new question asked while one is open), ``not_true_false`` (a verdict for
            another kind), ``empty_answer``, ``answer_too_long``, ``not_recorded`` (the
            database refused the answer's write: nothing recorded, the question stays
            open), ``unknown_item``, ``unknown_topic``, ``no_match`` (no item matches
            the filters), ``graph_unavailable`` (the sandbox is off, down or cannot
            draw, or the snippet leaves no graph), ``bad_path`` (``graph DIR``'s path
            cannot take the picture: a missing parent, a file in the way, no
            permission), ``input_ended`` (the input ended with a question open).
        message: one sentence saying what was wrong and what to do.
        line: the input line number (script mode), if known.
    """

    event: Literal["error"] = "error"
    code: ErrorCode
    message: str
    line: int | None = None


class Ended(_Event):
    """The session ended.

    Attributes:
        reason: ``quit``, ``eof`` (end of input) or ``interrupted`` (Ctrl-C).
        unanswered: the question left open, if any (nothing was recorded for it).
        stats: the learner's final stats, when the database could still be read.
    """

    event: Literal["ended"] = "ended"
    reason: Literal["quit", "eof", "interrupted"]
    unanswered: str | None = None
    stats: LearnerStats | None = None


Event = Annotated[
    Started
    | Question
    | HintShown
    | VerdictSet
    | Graded
    | Revealed
    | Skipped
    | NothingToReview
    | StatsShown
    | TopicsShown
    | GraphSaved
    | ErrorEvent
    | Ended,
    Field(discriminator="event"),
]
"""Every event the session emits (``--json`` prints each as one line)."""


EVENTS: TypeAdapter[Event] = TypeAdapter(Event)
"""Reads one ``--json`` output line back: ``EVENTS.validate_json(line)``."""


__all__ = [
    "EVENTS",
    "KIND_ALIASES",
    "MAX_ANSWER_CHARS",
    "MAX_LINE_CHARS",
    "Answer",
    "AskItem",
    "Command",
    "Ended",
    "ErrorEvent",
    "Event",
    "Graded",
    "Graph",
    "GraphSaved",
    "Hint",
    "HintShown",
    "NothingToReview",
    "ProtocolError",
    "Question",
    "Quit",
    "Quiz",
    "Revealed",
    "Review",
    "SandboxState",
    "SetVerdict",
    "Skip",
    "Skipped",
    "Started",
    "Stats",
    "StatsShown",
    "TopicCount",
    "Topics",
    "TopicsShown",
    "parse_kind",
    "parse_line",
    "parse_verdict",
]
