"""Ports: the narrow interfaces the Discord adapter needs from the domain services.

The cogs talk to the grader, the sandbox, the progress store and the drop scheduler only
through the Protocols below, and only with the pydantic models defined here (or the shared
domain models ``Item``, ``Response`` and ``GradeResult``). The composition root
(``tutor bot``) passes real implementations in :class:`~bot.discord_app.app.Services`;
tests pass in-memory fakes.

Shaped after the services being built on the other branches:

* :class:`Grader` is ``bot.grading.Grader.grade`` (issue 4).
* :class:`Sandbox` wraps ``sandbox.client`` plus its result cache (issue 3): curated
  snippets come from the cache, learner code runs isolated or is refused.
* :class:`Progress` and :class:`Drops` are the store of ``bot.progress`` (issue 5): attempts
  with idempotency keys, stats, leaderboards, review queue, privacy, guild settings, and the
  drop state machine ``scheduled -> posting -> open -> closed -> revealed`` (or ``failed``
  with a reason, or ``skipped``), exactly one drop per (channel, local date).

Errors a port raises on purpose are the exception classes below; the adapter turns each
into words in one place (``bot.discord_app.errors``).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Literal, Protocol
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field, field_validator

from bot.content.models import Item, Kind, Label
from bot.grading.models import GradeResult, Response
from sandbox.protocol import AutogradGraph

Snowflake = int
"""A Discord id (64-bit unsigned integer)."""

DISCORD_NONCE_MAX = 25
"""A message nonce is at most 25 characters (discord.com/developers/docs/resources/message,
"Create Message" JSON params)."""


class Model(BaseModel):
    """Base for port models: unknown fields are errors, values are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)


# --- errors a port raises on purpose ---------------------------------------------------


class PortError(Exception):
    """Base of the expected failures of a port; each carries what the learner needs."""


class SandboxUnavailable(PortError):
    """The sandbox worker is down, busy beyond its retries, or slower than the timeout.

    Args:
        reason: what happened, for the logs (never shown raw to learners).
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class LearnerCodeRefused(PortError):
    """The sandbox refuses learner code (it runs without isolation: curated snippets only).

    Args:
        reason: why isolation is unavailable, as the worker reported it.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class AlreadyAnswered(PortError):
    """The learner already answered this drop (one attempt per learner and drop).

    Args:
        drop_id: the drop.
        label: the label of the attempt on record.
    """

    def __init__(self, drop_id: int, label: Label) -> None:
        super().__init__(f"drop {drop_id} already answered ({label})")
        self.drop_id = drop_id
        self.label = label


class DropNotOpen(PortError):
    """The drop is not open for answers (closed, revealed, failed, or unknown).

    Args:
        drop_id: the drop.
        state: its state, or ``"unknown"``.
    """

    def __init__(self, drop_id: int, state: str) -> None:
        super().__init__(f"drop {drop_id} is {state}")
        self.drop_id = drop_id
        self.state = state


class DropConflict(PortError):
    """A drop cannot be created: no schedule set, or today's drop in that channel exists.

    Args:
        reason: a sentence for the admin, e.g. "today's drop was already posted".
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# --- models ----------------------------------------------------------------------------


class SnippetRun(Model):
    """The outcome of one sandbox run, as the bot shows it.

    Mirrors the fields of ``sandbox.protocol.RunResult`` the bot renders; ``status`` is the
    sandbox's one human status line ("ok", "timed out after 5 s", "ran out of memory
    (limit 512 MiB)", "killed by SIGSEGV", "exit code 1").

    Attributes:
        stdout: standard output, already capped by the sandbox (UTF-8, invalid bytes replaced).
        stderr: standard error, capped likewise.
        status: the human status line.
        ok: True when the snippet exited 0 within its limits.
        output_truncated: the sandbox cut the output at its cap.
        duration_ms: wall time of the run in milliseconds.
        cached: the result came from the curated-snippet cache.
        torch_version: the torch release that produced it, e.g. ``2.13.0``.
        graph: when asked (``graph=True``): the autograd graph the snippet left in scope,
            validated by the sandbox (``sandbox.protocol.AutogradGraph``; its text is
            untrusted), or None.
        graph_error: when asked and ``graph`` is None: why, in words from the sandbox.
    """

    stdout: str = ""
    stderr: str = ""
    status: str
    ok: bool
    output_truncated: bool = False
    duration_ms: int = Field(0, ge=0)
    cached: bool = False
    torch_version: str | None = None
    graph: AutogradGraph | None = None
    graph_error: str | None = None


class AttemptIn(Model):
    """One graded answer to record.

    Attributes:
        learner_id: the Discord user id.
        guild_id: the guild, or None in DMs.
        drop_id: the drop answered, or None for ``/quiz`` and ``/review``.
        idempotency_key: the same key twice records once (the bot uses the id of the
            interaction that opened the modal, so a modal submitted twice is one attempt).
        response: the verdict and justification.
        grade: the grader's result.
        answered_at: when the modal was submitted (UTC).
    """

    learner_id: Snowflake
    guild_id: Snowflake | None
    drop_id: int | None
    idempotency_key: str = Field(min_length=1, max_length=64)
    response: Response
    grade: GradeResult
    answered_at: datetime


class AttemptRecorded(Model):
    """What the store did with an attempt.

    Attributes:
        attempt_id: the stored attempt.
        duplicate: True when this idempotency key was already recorded (nothing new stored).
    """

    attempt_id: int
    duplicate: bool = False


class KindStats(Model):
    """Accuracy on one kind of question."""

    kind: Kind
    attempts: int = Field(ge=0)
    accuracy: float = Field(ge=0, le=1)


class ConceptMastery(Model):
    """How often a rubric concept was credited when it was asked for."""

    concept_id: str
    hits: int = Field(ge=0)
    seen: int = Field(ge=0)


class LearnerStats(Model):
    """A learner's progress, in one guild or across all (``guild_id`` None).

    Attributes:
        accuracy: share of attempts labelled correct, 0-1.
        average_score: mean score, 0-1.
        first_try_rate: share of items answered correctly on the first attempt, 0-1.
        current_streak_days / best_streak_days: consecutive local days with an attempt.
        weakest_items: item ids with the lowest scores, worst first.
    """

    learner_id: Snowflake
    guild_id: Snowflake | None
    attempts: int = Field(ge=0)
    accuracy: float = Field(ge=0, le=1)
    average_score: float = Field(ge=0, le=1)
    first_try_rate: float = Field(ge=0, le=1)
    current_streak_days: int = Field(ge=0)
    best_streak_days: int = Field(ge=0)
    per_kind: list[KindStats] = Field(default_factory=list)
    concepts: list[ConceptMastery] = Field(default_factory=list)
    weakest_items: list[str] = Field(default_factory=list)


class LeaderboardRow(Model):
    """One line of a guild leaderboard."""

    rank: int = Field(ge=1)
    learner_id: Snowflake
    points: int = Field(ge=0)
    attempts: int = Field(ge=0)


Period = Literal["weekly", "all"]
"""Leaderboard windows: the current ISO week (UTC) or all time."""


class ReviewQueue(Model):
    """Items to review: spaced-repetition cards due now, then items missed recently."""

    due: list[str] = Field(default_factory=list)
    missed: list[str] = Field(default_factory=list)


class ForgetResult(Model):
    """What ``forget_learner`` deleted."""

    attempts_deleted: int = Field(ge=0)


_HHMM = re.compile(r"^([01][0-9]|2[0-3]):[0-5][0-9]$")


class DropScheduleIn(Model):
    """A guild's daily drop schedule, as an admin sets it with ``/tutor drops set``.

    Attributes:
        channel_id: the text channel to post in.
        local_time: ``HH:MM``, 24-hour, in ``timezone``.
        timezone: an IANA time zone name, e.g. ``Europe/Paris``.
        kinds: kinds of question to drop; empty means every kind.
        reveal_after_hours: hours between the post and the reveal, 1-168.
    """

    channel_id: Snowflake
    local_time: str
    timezone: str
    kinds: list[Kind] = Field(default_factory=list)
    reveal_after_hours: int = Field(24, ge=1, le=168)

    @field_validator("local_time")
    @classmethod
    def _hhmm(cls, value: str) -> str:
        value = value.strip()
        if not _HHMM.match(value):
            raise ValueError("use HH:MM on a 24-hour clock, e.g. 09:30")
        return value

    @field_validator("timezone")
    @classmethod
    def _iana(cls, value: str) -> str:
        value = value.strip()
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError("not an IANA time zone name (e.g. Europe/Paris, UTC)") from None
        return value


class GuildSettings(Model):
    """A guild's tutor configuration.

    Attributes:
        drops: the drop schedule, or None when drops are off.
        run_enabled: whether learners may use ``/run`` in this guild.
    """

    guild_id: Snowflake
    drops: DropScheduleIn | None = None
    run_enabled: bool = True


class DropFailure(Model):
    """A drop that could not be posted or revealed, for ``/tutor settings``."""

    drop_id: int
    channel_id: Snowflake
    local_date: str = Field(description="YYYY-MM-DD in the guild's time zone.")
    reason: str = Field(max_length=300)
    failed_at: datetime


DropState = Literal["scheduled", "posting", "open", "closed", "revealed", "failed", "skipped"]


class DropToPost(Model):
    """A drop the store has claimed for posting (state ``posting``).

    Attributes:
        nonce: passed to Discord's Create Message with ``enforce_nonce`` so a retry within
            Discord's nonce window returns the first message instead of posting twice.
        scheduled_at: when the drop was due (UTC).
        claimed_at: when it entered ``posting`` (UTC); a drop found still ``posting`` after a
            crash carries its original claim time.
        closes_at: when answers close and the reveal is due (UTC).
    """

    drop_id: int
    guild_id: Snowflake
    channel_id: Snowflake
    item_id: str
    nonce: str = Field(min_length=1, max_length=DISCORD_NONCE_MAX)
    scheduled_at: datetime
    claimed_at: datetime
    closes_at: datetime


class DropToReveal(Model):
    """A drop whose answers have closed (``closes_at`` passed) and whose reveal is due."""

    drop_id: int
    guild_id: Snowflake
    channel_id: Snowflake
    message_id: Snowflake
    item_id: str


class DropInfo(Model):
    """A drop's current state."""

    drop_id: int
    guild_id: Snowflake
    channel_id: Snowflake
    item_id: str
    state: DropState
    message_id: Snowflake | None = None
    closes_at: datetime


class ScorerRow(Model):
    """A top scorer of one drop."""

    learner_id: Snowflake
    score: float = Field(ge=0, le=1)


class DropSummary(Model):
    """The channel summary shown at a drop's reveal.

    Attributes:
        answers: attempts recorded for the drop.
        label_shares: share of answers per label, 0-1 each.
        most_common_misconception: the misconception id found most often, if any.
        top_scorers: best answers first (at most 5).
    """

    drop_id: int
    answers: int = Field(ge=0)
    label_shares: dict[Label, float] = Field(default_factory=dict)
    most_common_misconception: str | None = None
    top_scorers: list[ScorerRow] = Field(default_factory=list)


# --- ports -----------------------------------------------------------------------------


class Grader(Protocol):
    """Grades a learner's response (``bot.grading.Grader``). Synchronous: ~1 ms per answer."""

    def grade(self, response: Response) -> GradeResult:
        """Grade one response.

        Raises:
            Exception: the grader's own errors for an unknown item or a text over 4,000
                characters (the bot never sends either: ids come from its own custom_ids and
                the modal caps the text).
        """
        ...


class Sandbox(Protocol):
    """Runs snippets in the sandbox worker."""

    async def run_curated(self, item: Item, *, graph: bool = False) -> SnippetRun:
        """The real output of an item's snippet, from the result cache when present.

        Args:
            item: the item whose snippet runs.
            graph: also return its autograd graph (``SnippetRun.graph``); the sandbox
                answers it from the same cache entry as the output.

        Raises:
            SandboxUnavailable: the worker is down or slower than the timeout.
        """
        ...

    async def run_learner(self, code: str, *, graph: bool = False) -> SnippetRun:
        """Run a learner's own snippet (at most 4,000 characters) in isolation.

        Args:
            code: the learner's snippet.
            graph: also return its autograd graph (``SnippetRun.graph``).

        Raises:
            SandboxUnavailable: the worker is down or slower than the timeout.
            LearnerCodeRefused: the worker has no isolation and serves curated snippets only.
        """
        ...


class Progress(Protocol):
    """The progress store: attempts, stats, leaderboards, review, privacy, guild settings."""

    async def record_attempt(self, attempt: AttemptIn) -> AttemptRecorded:
        """Record a graded attempt once per idempotency key.

        Raises:
            AlreadyAnswered: the learner already answered this drop.
            DropNotOpen: the drop is closed or unknown.
        """
        ...

    async def learner_stats(
        self, learner_id: Snowflake, guild_id: Snowflake | None
    ) -> LearnerStats:
        """A learner's stats in a guild (or everywhere when ``guild_id`` is None)."""
        ...

    async def leaderboard(
        self, guild_id: Snowflake, period: Period, limit: int
    ) -> list[LeaderboardRow]:
        """The guild's top ``limit`` learners by points in ``period``, best first."""
        ...

    async def review_queue(self, learner_id: Snowflake, limit: int) -> ReviewQueue:
        """Items due for review, then missed ones, at most ``limit`` of each."""
        ...

    async def forget_learner(self, learner_id: Snowflake) -> ForgetResult:
        """Delete everything stored about a learner."""
        ...

    async def export_learner(self, learner_id: Snowflake) -> BaseModel:
        """Everything stored about a learner, as a model that serialises to JSON."""
        ...

    async def guild_settings(self, guild_id: Snowflake) -> GuildSettings:
        """The guild's settings (defaults when never configured)."""
        ...

    async def set_drop_schedule(
        self, guild_id: Snowflake, schedule: DropScheduleIn
    ) -> GuildSettings:
        """Turn daily drops on (or change them) for a guild."""
        ...

    async def disable_drops(self, guild_id: Snowflake) -> GuildSettings:
        """Turn daily drops off; open drops still close and reveal."""
        ...

    async def set_run_enabled(self, guild_id: Snowflake, enabled: bool) -> GuildSettings:
        """Allow or forbid learners' ``/run`` in a guild."""
        ...

    async def recent_drop_failures(self, guild_id: Snowflake, limit: int) -> list[DropFailure]:
        """The guild's last ``limit`` failed drops, newest first."""
        ...


class Drops(Protocol):
    """The drop state machine, driven by the bot's scheduler loop."""

    async def claim_due(self, now: datetime, grace: timedelta) -> list[DropToPost]:
        """Claim every drop due at ``now`` (UTC), each guild in its own time zone.

        A drop whose scheduled time passed more than ``grace`` ago is marked ``skipped``
        (and logged) instead. Drops left in ``posting`` by a crash are returned again with
        their original nonce and ``claimed_at``.
        """
        ...

    async def claim_now(self, guild_id: Snowflake, now: datetime) -> DropToPost:
        """Claim today's drop for a guild immediately (``/tutor drops now``).

        Raises:
            DropConflict: drops are off, or today's drop in the channel already exists.
        """
        ...

    async def mark_open(self, drop_id: int, message_id: Snowflake) -> None:
        """``posting -> open``: the message is in the channel."""
        ...

    async def mark_failed(self, drop_id: int, reason: str) -> None:
        """``-> failed`` with a reason shown in ``/tutor settings``; never retried."""
        ...

    async def drop(self, drop_id: int) -> DropInfo | None:
        """A drop by id, or None."""
        ...

    async def due_reveals(self, now: datetime) -> list[DropToReveal]:
        """Drops to reveal at ``now`` (UTC).

        Open drops whose ``closes_at`` is at or before ``now``, and closed drops not yet
        revealed (a reveal interrupted by a Discord error is tried again).
        """
        ...

    async def close(self, drop_id: int) -> DropSummary:
        """``open -> closed`` (idempotent): no more answers; returns the channel summary."""
        ...

    async def mark_revealed(self, drop_id: int, message_id: Snowflake) -> None:
        """``closed -> revealed``: the reveal message (in a thread or the channel) is posted."""
        ...
