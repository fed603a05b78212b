"""Every value that crosses the progress store's boundary, as pydantic models.

The Discord bot, ``tutor play`` and ``tutor stats`` only ever see these models; rows and SQL
stay inside ``bot.progress``. Timestamps are timezone-aware and in UTC; local dates (streak
days, drop dates) are plain :class:`datetime.date` values in the time zone named next to
them. Discord ids are snowflakes: positive 64-bit integers.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, time
from enum import StrEnum
from typing import Annotated, Literal, Self
from zoneinfo import ZoneInfo

from pydantic import AfterValidator, AwareDatetime, BaseModel, ConfigDict, Field, model_validator

from bot.content.models import Item, Kind, Label
from bot.grading.models import MAX_ANSWER_CHARS, GradeResult

Snowflake = Annotated[int, Field(gt=0, lt=2**63)]
"""A Discord id (user, guild, channel, message): a positive signed 64-bit integer."""

MAX_IDEMPOTENCY_KEY_CHARS = 100
"""Idempotency keys are short ids (an interaction id, a UUID), never user text."""


def _known_time_zone(name: str) -> str:
    """Accept an IANA time zone name that zoneinfo can load, e.g. ``Europe/Berlin``."""
    if not name or len(name) > 64:
        raise ValueError("time zone must be an IANA name such as 'Europe/Berlin'")
    try:
        ZoneInfo(name)
    # ZoneInfoNotFoundError is a KeyError; malformed keys raise ValueError; a directory
    # such as "Europe" raises an OSError.
    except (KeyError, ValueError, OSError):
        raise ValueError(f"unknown IANA time zone {name!r} (e.g. 'Europe/Berlin', 'UTC')") from None
    return name


TimeZoneName = Annotated[str, AfterValidator(_known_time_zone)]
"""An IANA time zone name that this machine's zoneinfo database knows."""


class Frozen(BaseModel):
    """Base for the store's models: unknown fields are errors and values are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)


# --- learners and guilds -------------------------------------------------------------------


class LearnerSettings(Frozen):
    """A learner's own choices.

    Attributes:
        leaderboard_visible: False hides the learner from every leaderboard (they still
            earn points and see their own rank).
    """

    leaderboard_visible: bool = True


class LearnerProfile(Frozen):
    """A learner: a Discord user (or a local ``tutor play`` player) and their settings.

    Attributes:
        learner_id: the Discord user id.
        time_zone: IANA name; streak days are counted in it (default UTC).
        settings: the learner's choices.
    """

    learner_id: Snowflake
    time_zone: TimeZoneName = "UTC"
    settings: LearnerSettings = LearnerSettings()


class GuildSettings(Frozen):
    """A guild's tutor configuration (``/tutor-admin drops set``, ``/tutor-admin settings``).

    Attributes:
        guild_id: the Discord guild id.
        time_zone: IANA name; the daily drop time and the weekly leaderboard's weeks are
            local to it.
        drops_enabled: whether a daily drop is posted.
        drop_channel_id: where drops are posted; required when drops are enabled.
        drop_time: local wall-clock time of the daily drop (HH:MM); required when enabled.
        kinds: item kinds drops may use; empty means every kind.
        reveal_after_hours: hours from posting to the reveal (0.25 to 168).
        run_enabled: whether learners may use ``/run`` in this guild.
    """

    guild_id: Snowflake
    time_zone: TimeZoneName = "UTC"
    drops_enabled: bool = False
    drop_channel_id: Snowflake | None = None
    drop_time: time | None = None
    kinds: list[Kind] = Field(default_factory=list)
    reveal_after_hours: float = Field(24.0, ge=0.25, le=168.0)
    run_enabled: bool = True

    @model_validator(mode="after")
    def _complete_schedule(self) -> Self:
        if self.drops_enabled and (self.drop_channel_id is None or self.drop_time is None):
            raise ValueError("drops_enabled needs both drop_channel_id and drop_time")
        if self.drop_time is not None and (self.drop_time.second or self.drop_time.microsecond):
            raise ValueError("drop_time is a wall-clock minute (HH:MM), without seconds")
        if self.drop_time is not None and self.drop_time.tzinfo is not None:
            raise ValueError("drop_time is local to time_zone; give it without an offset")
        return self


# --- drops ---------------------------------------------------------------------------------


class DropState(StrEnum):
    """Where a daily drop is in its life.

    ``scheduled -> posting -> open -> closed -> revealed``; ``failed`` (with a reason) from
    any state before ``revealed``; ``skipped`` when the drop was missed by more than the grace
    window (it is never posted). See ``docs/PROGRESS.md`` for the diagram.
    """

    SCHEDULED = "scheduled"
    POSTING = "posting"
    OPEN = "open"
    CLOSED = "closed"
    REVEALED = "revealed"
    FAILED = "failed"
    SKIPPED = "skipped"


class ItemRef(Frozen):
    """The part of a content item that drop rotation needs."""

    item_id: str = Field(min_length=1, max_length=16)
    kind: Kind

    @classmethod
    def from_item(cls, item: Item) -> ItemRef:
        """The reference to a loaded content item."""
        return cls(item_id=item.id, kind=item.kind)

    @classmethod
    def from_items(cls, items: Sequence[Item]) -> list[ItemRef]:
        """References to every item, in order (e.g. ``ItemRef.from_items(list(bank))``)."""
        return [cls.from_item(item) for item in items]


class DropSchedule(Frozen):
    """One guild's daily drop, as the pure "what is due now" rule sees it.

    Attributes:
        guild_id: the guild.
        channel_id: the drop channel.
        drop_time: local wall-clock time of the drop.
        time_zone: IANA name the drop time is local to.
        since: when this schedule was configured (UTC); drops scheduled before it are
            neither posted nor counted as missed.
        taken_dates: local dates that already have a drop row for this channel (any
            state): those dates are never due again.
    """

    guild_id: Snowflake
    channel_id: Snowflake
    drop_time: time
    time_zone: TimeZoneName
    since: AwareDatetime
    taken_dates: frozenset[date] = frozenset()


class DueDrop(Frozen):
    """A drop the schedule says should exist now.

    Attributes:
        guild_id: the guild.
        channel_id: the drop channel.
        local_date: the drop's date in the guild's time zone (one drop per channel per date).
        scheduled_for: the instant the drop was due (UTC).
        late_by_s: seconds between ``scheduled_for`` and the moment it was found due.
        manual: True for ``/tutor-admin drops now`` (posted early, on request).
    """

    guild_id: Snowflake
    channel_id: Snowflake
    local_date: date
    scheduled_for: AwareDatetime
    late_by_s: float = Field(ge=0.0)
    manual: bool = False


class DropPlan(Frozen):
    """What the schedule rule decided for one tick.

    Attributes:
        post: drops to create now (within the grace window).
        skip: drops missed by more than the grace window: recorded as ``skipped``.
    """

    post: list[DueDrop] = Field(default_factory=list)
    skip: list[DueDrop] = Field(default_factory=list)


class Drop(Frozen):
    """A daily drop as stored.

    Attributes:
        drop_id: the store's id (put it in the drop's custom_ids).
        guild_id: the guild.
        channel_id: the channel it is (or was to be) posted in.
        local_date: its date in the guild's time zone.
        item_id: the item asked; None for skipped drops and drops that found no item.
        state: see :class:`DropState`.
        nonce: pass as the message ``nonce`` with ``enforce_nonce`` when posting, so a
            retried post returns the first message instead of posting again (<= 25 chars,
            Discord's limit).
        reveal_nonce: the same for the reveal message.
        message_id: the posted message, once open.
        reveal_message_id: the reveal message, once revealed.
        scheduled_for: when it was due (UTC).
        opens_at: when it was posted (UTC).
        closes_at: when answers stop being accepted and the reveal is due (UTC).
        reveal_started_at: when posting the reveal began (UTC), once begun.
        failure_reason: why it failed or was skipped, in words for ``/tutor-admin settings``.
        updated_at: the last state change (UTC).
    """

    drop_id: int
    guild_id: Snowflake
    channel_id: Snowflake
    local_date: date
    item_id: str | None
    state: DropState
    nonce: str = Field(max_length=25)
    reveal_nonce: str = Field(max_length=25)
    message_id: Snowflake | None = None
    reveal_message_id: Snowflake | None = None
    scheduled_for: AwareDatetime
    opens_at: AwareDatetime | None = None
    closes_at: AwareDatetime | None = None
    reveal_started_at: AwareDatetime | None = None
    failure_reason: str | None = None
    updated_at: AwareDatetime

    @property
    def late_by_s(self) -> float:
        """Seconds between when the drop was due and when it was posted (0 if not posted)."""
        if self.opens_at is None:
            return 0.0
        return max(0.0, (self.opens_at - self.scheduled_for).total_seconds())


class DropTick(Frozen):
    """The result of one scheduler tick (:meth:`ProgressStore.tick_drops`).

    Attributes:
        to_post: drops to post now; call ``begin_posting``, send with ``nonce``, then
            ``mark_open`` (or ``mark_failed``).
        to_reveal: closed drops whose reveal is due; call ``begin_reveal``, send with
            ``reveal_nonce``, then ``mark_revealed``.
        skipped: drops recorded as skipped during this tick (log them).
        failed: drops marked failed during this tick (log them).
    """

    to_post: list[Drop] = Field(default_factory=list)
    to_reveal: list[Drop] = Field(default_factory=list)
    skipped: list[Drop] = Field(default_factory=list)
    failed: list[Drop] = Field(default_factory=list)


class DropFailure(Frozen):
    """A failed or skipped drop, for ``/tutor-admin settings``."""

    drop_id: int
    channel_id: Snowflake
    local_date: date
    state: Literal[DropState.FAILED, DropState.SKIPPED]
    reason: str
    at: AwareDatetime


# --- attempts ------------------------------------------------------------------------------


class ReviewRating(StrEnum):
    """The FSRS rating an attempt gives its review card (fsrs ``Rating`` 1-4)."""

    AGAIN = "again"
    HARD = "hard"
    GOOD = "good"
    EASY = "easy"


class AttemptIn(Frozen):
    """One graded answer to record.

    Build it with :meth:`from_grade`, which takes the item's kind, tags and difficulty from
    the content item and the grade fields from the grader's :class:`GradeResult`.

    Attributes:
        idempotency_key: unique per submission: the Discord interaction id of the modal
            submit, or a UUID for ``tutor play``. A second call with the same key records
            nothing and returns the first result.
        learner_id: who answered.
        guild_id: where (None: a DM or ``tutor play``; such attempts earn no points).
        drop_id: the daily drop answered, or None for a quiz or review attempt.
        item_id: the item answered.
        kind: the item's kind.
        tags: the item's tags (topics).
        difficulty: the item's difficulty, 1-3.
        verdict: the verdict graded (true/false items), or None.
        verdict_correct: whether the verdict matched the key; None for other kinds.
        answer_text: the learner's justification (<= 4,000 characters).
        score: the grade's score, 0.0-1.0.
        label: correct / partial / incorrect.
        concepts_hit: rubric concept ids credited.
        concepts_missing: the item's key concept ids the answer lacked (see
            :func:`concepts_to_learn`): what per-concept mastery counts as a miss.
        misconceptions: misconception ids found.
        duration_ms: milliseconds from showing the item to the submit, if known.
        hint_used: whether the learner opened the hint first.
    """

    idempotency_key: str = Field(min_length=1, max_length=MAX_IDEMPOTENCY_KEY_CHARS)
    learner_id: Snowflake
    guild_id: Snowflake | None = None
    drop_id: int | None = Field(None, gt=0)
    item_id: str = Field(min_length=1, max_length=16)
    kind: Kind
    tags: list[str] = Field(default_factory=list, max_length=32)
    difficulty: int = Field(ge=1, le=3)
    verdict: bool | None = None
    verdict_correct: bool | None = None
    answer_text: str = Field(max_length=MAX_ANSWER_CHARS)
    score: float = Field(ge=0.0, le=1.0)
    label: Label
    concepts_hit: list[str] = Field(default_factory=list, max_length=64)
    concepts_missing: list[str] = Field(default_factory=list, max_length=64)
    misconceptions: list[str] = Field(default_factory=list, max_length=64)
    duration_ms: int | None = Field(None, ge=0, le=7 * 24 * 3600 * 1000)
    hint_used: bool = False

    @model_validator(mode="after")
    def _drop_needs_guild(self) -> Self:
        if self.drop_id is not None and self.guild_id is None:
            raise ValueError("an attempt on a drop needs the drop's guild_id")
        return self

    @classmethod
    def from_grade(
        cls,
        *,
        item: Item,
        grade: GradeResult,
        answer_text: str,
        learner_id: int,
        idempotency_key: str,
        guild_id: int | None = None,
        drop_id: int | None = None,
        duration_ms: int | None = None,
        hint_used: bool = False,
    ) -> AttemptIn:
        """An attempt from the content item and the grader's result.

        Raises:
            ValueError: the grade is for another item (``grade.item_id != item.id``), or a
                field is out of range (pydantic ``ValidationError``, a ``ValueError``).
        """
        if grade.item_id != item.id:
            raise ValueError(f"grade is for item {grade.item_id!r}, not {item.id!r}")
        return cls(
            idempotency_key=idempotency_key,
            learner_id=learner_id,
            guild_id=guild_id,
            drop_id=drop_id,
            item_id=item.id,
            kind=item.kind,
            tags=list(item.tags),
            difficulty=item.difficulty,
            verdict=grade.verdict,
            verdict_correct=grade.verdict_correct,
            answer_text=answer_text,
            score=grade.score,
            label=grade.label,
            concepts_hit=concepts_learnt(item, grade),
            concepts_missing=concepts_to_learn(item, grade),
            misconceptions=list(grade.misconceptions),
            duration_ms=duration_ms,
            hint_used=hint_used,
        )


def concepts_learnt(item: Item, grade: GradeResult) -> list[str]:
    """The concepts an answer counts as hits for mastery: those of ``grade.concepts_hit``
    the learner was praised for (a ✓ line, ``grade.feedback.right``).

    The grader credits a concept for the score even when its only words sit in a sentence
    that states a misconception it caps ("the activations are not dropped, they are kept",
    WHY9), and then shows no ✓ for it (docs/GRADING.md, *Feedback*): fresh26 saw such a
    concept in ``concepts_hit``. Mastery counts it as known only where the learner was told
    it was right; the attempt's score and label are the grader's, unchanged.
    """
    praised = set(grade.feedback.right)
    descriptions = {c.id: c.description for c in item.rubric.concepts}
    return [c for c in grade.concepts_hit if descriptions.get(c) in praised]


def concepts_to_learn(item: Item, grade: GradeResult) -> list[str]:
    """The concepts an answer counts as missed for mastery: none when it was graded correct,
    else the item's key concepts it lacked (the rubric's ``required`` ones and its
    ``required_any`` groups with no member credited; without either, the concepts of the
    highest weight), in rubric order.

    A side remark the rubric also rewards ("it is about efficiency") is not a weakness of a
    learner who left it out, and a correct answer has nothing to work on: a tester whose
    answer was graded correct saw its optional concept under "to work on" in ``tutor stats``.
    """
    if grade.label is Label.CORRECT:
        return []
    rubric = item.rubric
    hit = set(grade.concepts_hit)
    key = set(rubric.key_concepts())
    for group in rubric.required_any:
        if not hit.isdisjoint(group):
            key.difference_update(group)  # the group is answered by its credited member
    missing = set(grade.concepts_missing)
    return [c.id for c in rubric.concepts if c.id in key and c.id in missing]


class AttemptRecorded(Frozen):
    """What recording an attempt did.

    Attributes:
        attempt_id: the stored attempt.
        duplicate: True when this idempotency key was already recorded: nothing new was
            written and the fields describe the first recording.
        points: leaderboard points this attempt earned (see docs/PROGRESS.md).
        first_try: the learner's first attempt at this item (anywhere).
        rating: the FSRS rating given to the item's review card.
        review_due: when the item is next due for review (UTC).
        lapses: times the card was forgotten after being learnt (Anki's lapse count).
        leech: the card has >= 8 lapses (Anki's leech threshold).
        created_at: when the attempt was recorded (UTC).
    """

    attempt_id: int
    duplicate: bool
    points: int = Field(ge=0)
    first_try: bool
    rating: ReviewRating
    review_due: AwareDatetime
    lapses: int = Field(ge=0)
    leech: bool
    created_at: AwareDatetime


# --- stats and leaderboards ----------------------------------------------------------------


class Streaks(Frozen):
    """Daily streaks, in days of the learner's time zone.

    Attributes:
        current: consecutive days with an attempt ending today or yesterday (a streak is
            not broken until a whole local day passes without an attempt).
        best: the longest run ever.
    """

    current: int = Field(ge=0)
    best: int = Field(ge=0)


class Accuracy(Frozen):
    """Accuracy over one group of attempts (a kind or a topic).

    Attributes:
        key: the kind or tag.
        attempts: attempts counted.
        correct: attempts labelled correct.
        accuracy: correct / attempts, 0.0-1.0.
        average_score: mean score, 0.0-1.0.
    """

    key: str
    attempts: int = Field(ge=1)
    correct: int = Field(ge=0)
    accuracy: float = Field(ge=0.0, le=1.0)
    average_score: float = Field(ge=0.0, le=1.0)


class ConceptMastery(Frozen):
    """How often a rubric concept was credited when it was graded.

    Attributes:
        concept_id: the rubric concept id (shared ids across items add up); an author's
            name, never shown to learners.
        hits: attempts that credited it.
        misses: attempts that graded it as missing.
        mastery: hits / (hits + misses), 0.0-1.0.
        description: the concept in learner-facing words (the rubric's ``description``,
            filled by :func:`bot.progress.stats.describe_concepts`); None when the bank does
            not have it (any more), and then it is not shown.
    """

    concept_id: str
    hits: int = Field(ge=0)
    misses: int = Field(ge=0)
    mastery: float = Field(ge=0.0, le=1.0)
    description: str | None = None


class ItemPerformance(Frozen):
    """One item's record for a learner (weakest items)."""

    item_id: str
    kind: Kind
    attempts: int = Field(ge=1)
    average_score: float = Field(ge=0.0, le=1.0)
    last_label: Label
    last_attempt_at: AwareDatetime


class LearnerStats(Frozen):
    """A learner's progress: the ``tutor stats --json`` contract.

    Attributes:
        learner_id: the learner.
        guild_id: the scope: attempts in this guild only, or None for every attempt.
        time_zone: the zone streak days are counted in.
        attempts: attempts recorded.
        items_attempted: distinct items attempted.
        accuracy: share of attempts labelled correct, 0.0-1.0 (0.0 with no attempts).
        average_score: mean score, 0.0-1.0.
        first_try_rate: share of attempted items whose first attempt was correct.
        streaks: current and best daily streak.
        last_active: the local date of the latest attempt, or None.
        points: leaderboard points (in the guild, or summed over every guild).
        reviews_due: review cards due now (every scope: review is per learner).
        reviews_scheduled: review cards not due yet (a missed item's card is due one day
            later: docs/PROGRESS.md, *Review*).
        next_review_in_s: seconds from these stats' instant to the earliest card not due
            yet, or None when there is none.
        missed_to_retry: items whose latest attempt was not correct and whose card is not
            due yet: what ``review`` offers now after the due cards
            (:func:`bot.progress.review.review_queue`'s ``missed``, uncapped).
        by_kind: accuracy per item kind, in kind order.
        by_topic: accuracy per tag, most attempted first.
        concepts: mastery per rubric concept, weakest first.
        weakest_items: up to 5 items with the lowest average score.
    """

    learner_id: Snowflake
    guild_id: Snowflake | None
    time_zone: str
    attempts: int = Field(ge=0)
    items_attempted: int = Field(ge=0)
    accuracy: float = Field(ge=0.0, le=1.0)
    average_score: float = Field(ge=0.0, le=1.0)
    first_try_rate: float = Field(ge=0.0, le=1.0)
    streaks: Streaks
    last_active: date | None
    points: int = Field(ge=0)
    reviews_due: int = Field(ge=0)
    reviews_scheduled: int = Field(0, ge=0)
    next_review_in_s: float | None = Field(None, ge=0)
    missed_to_retry: int = Field(0, ge=0)
    by_kind: list[Accuracy]
    by_topic: list[Accuracy]
    concepts: list[ConceptMastery]
    weakest_items: list[ItemPerformance]


LeaderboardPeriod = Literal["week", "all"]
"""``week``: the current ISO week in the guild's time zone; ``all``: all time."""


class LeaderboardRow(Frozen):
    """One line of a leaderboard; ties share a rank (1, 2, 2, 4)."""

    rank: int = Field(ge=1)
    learner_id: Snowflake
    points: int = Field(ge=0)


class Leaderboard(Frozen):
    """A guild's leaderboard.

    Attributes:
        guild_id: the guild.
        period: ``week`` or ``all``.
        week: the ISO week shown (``2025-W07``), for ``week`` only.
        rows: the top learners, highest first; hidden learners are left out.
        me: the asking learner's row (also when hidden or outside the top), or None when
            they have no points in the period.
    """

    guild_id: Snowflake
    period: LeaderboardPeriod
    week: str | None
    rows: list[LeaderboardRow]
    me: LeaderboardRow | None = None


class LabelShare(Frozen):
    """How many answers got one label."""

    label: Label
    count: int = Field(ge=0)
    share: float = Field(ge=0.0, le=1.0)


class MisconceptionCount(Frozen):
    """A misconception and how many answers stated it."""

    misconception_id: str
    count: int = Field(ge=1)


class TopScorer(Frozen):
    """A learner at the top of a drop: highest score, then earliest answer."""

    learner_id: Snowflake
    score: float = Field(ge=0.0, le=1.0)
    label: Label
    answered_at: AwareDatetime


class DropSummary(Frozen):
    """The numbers shown with a drop's reveal.

    Attributes:
        drop_id: the drop.
        item_id: its item.
        answers: answers recorded.
        label_shares: one entry per label (correct, partial, incorrect), shares sum to 1
            when there are answers.
        most_common_misconception: the misconception stated most often (ties: the id
            first in alphabetical order), or None.
        top_scorers: up to 3 learners.
    """

    drop_id: int
    item_id: str | None
    answers: int = Field(ge=0)
    label_shares: list[LabelShare]
    most_common_misconception: MisconceptionCount | None
    top_scorers: list[TopScorer]


# --- review --------------------------------------------------------------------------------


class ReviewEntry(Frozen):
    """An item in a learner's review queue.

    Attributes:
        item_id: the item.
        due: when its card is due (UTC).
        lapses: Anki's lapse count for the card.
        leech: lapses >= 8.
        last_label: the label of the learner's latest attempt at it.
        last_attempt_at: when that was (UTC).
    """

    item_id: str
    due: AwareDatetime
    lapses: int = Field(ge=0)
    leech: bool
    last_label: Label
    last_attempt_at: AwareDatetime


class ReviewQueue(Frozen):
    """What ``/review`` offers: due cards first, then missed items not yet due.

    Attributes:
        learner_id: the learner.
        due: cards due now, most overdue first.
        missed: items whose latest attempt was not correct and that are not due yet,
            most recently missed first.
    """

    learner_id: Snowflake
    due: list[ReviewEntry]
    missed: list[ReviewEntry]


class Leech(Frozen):
    """An item that keeps being forgotten, for authors.

    Attributes:
        item_id: the item.
        learners: learners whose card for it has >= 8 lapses.
        max_lapses: the highest lapse count among them.
    """

    item_id: str
    learners: int = Field(ge=1)
    max_lapses: int = Field(ge=8)


# --- privacy -------------------------------------------------------------------------------


class AttemptRecord(Frozen):
    """A stored attempt, as exported to its learner."""

    attempt_id: int
    created_at: AwareDatetime
    guild_id: Snowflake | None
    drop_id: int | None
    item_id: str
    kind: Kind
    verdict: bool | None
    answer_text: str | None = Field(
        description="None once removed by the answer-text retention period."
    )
    score: float
    label: Label
    concepts_hit: list[str]
    concepts_missing: list[str]
    misconceptions: list[str]
    duration_ms: int | None
    hint_used: bool
    first_try: bool
    rating: ReviewRating
    points: int


class ReviewCardRecord(Frozen):
    """A learner's review card for one item; ``card`` is the fsrs ``Card.to_dict()`` form."""

    item_id: str
    card: dict[str, int | float | str | None]
    due: AwareDatetime
    lapses: int
    reviews: int


class PointsRecord(Frozen):
    """Points a learner holds in one guild and period."""

    guild_id: Snowflake
    period: str
    points: int


class LearnerExport(Frozen):
    """Everything stored about a learner (``/tutor export``); summaries are derived data.

    Attributes:
        learner_id: the learner.
        exported_at: when (UTC).
        profile: the learner's settings, or None if they never changed or answered anything.
        attempts: every attempt, oldest first.
        review_cards: one per item attempted.
        points: per guild and period.
    """

    learner_id: Snowflake
    exported_at: AwareDatetime
    profile: LearnerProfile | None
    attempts: list[AttemptRecord]
    review_cards: list[ReviewCardRecord]
    points: list[PointsRecord]


class DeletionReport(Frozen):
    """What ``forget_learner`` removed.

    Attributes:
        learner_id: the learner.
        attempts: attempts deleted.
        review_cards: review cards deleted.
        profile: whether a learner row existed (and was deleted).
    """

    learner_id: Snowflake
    attempts: int = Field(ge=0)
    review_cards: int = Field(ge=0)
    profile: bool


class RetentionReport(Frozen):
    """What one answer-text retention pass did.

    Attributes:
        cutoff: answer texts of attempts created before this instant were removed (UTC).
        purged: attempts whose text was removed in this pass.
    """

    cutoff: AwareDatetime
    purged: int = Field(ge=0)


__all__ = [
    "Accuracy",
    "AttemptIn",
    "AttemptRecord",
    "AttemptRecorded",
    "ConceptMastery",
    "DeletionReport",
    "Drop",
    "DropFailure",
    "DropPlan",
    "DropSchedule",
    "DropState",
    "DropSummary",
    "DropTick",
    "DueDrop",
    "GuildSettings",
    "ItemPerformance",
    "ItemRef",
    "LabelShare",
    "Leaderboard",
    "LeaderboardPeriod",
    "LeaderboardRow",
    "LearnerExport",
    "LearnerProfile",
    "LearnerSettings",
    "LearnerStats",
    "Leech",
    "MisconceptionCount",
    "PointsRecord",
    "RetentionReport",
    "ReviewCardRecord",
    "ReviewEntry",
    "ReviewQueue",
    "ReviewRating",
    "Snowflake",
    "Streaks",
    "TimeZoneName",
    "TopScorer",
]
