"""The progress rules as pure functions: points, FSRS ratings, lapses, local days, streaks.

Nothing here reads a clock or a database; the store passes ``now`` and the stored facts in.
``docs/PROGRESS.md`` states the same rules for people.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from fsrs import Rating, Scheduler, State

from bot.content.models import Label
from bot.progress.models import ReviewRating, Streaks

POINTS_PER_DIFFICULTY = 10
"""A fully correct answer is worth 10 points per difficulty level (10, 20 or 30)."""

EASY_MAX_MS = 60_000
"""A correct first try without the hint within this many milliseconds rates Easy.

Our choice: a minute is enough to read a trap question and write one sentence of why
without looking anything up.
"""

LEECH_LAPSES = 8
"""Lapses that make a card a leech (Anki's default "leech threshold")."""

REVIEW_STEP = timedelta(days=1)
"""Learning and relearning step of the tutor's FSRS scheduler.

fsrs defaults to steps of 1 and 10 minutes, made for a flashcard session; the tutor meets
its learners about once a day, so a missed item comes back the next day.
"""

_TO_FSRS = {
    ReviewRating.AGAIN: Rating.Again,
    ReviewRating.HARD: Rating.Hard,
    ReviewRating.GOOD: Rating.Good,
    ReviewRating.EASY: Rating.Easy,
}
_FROM_FSRS = {v: k for k, v in _TO_FSRS.items()}


def item_value(score: float, difficulty: int) -> int:
    """The most points one attempt at an item can be worth.

    Args:
        score: the grade's score, 0.0-1.0.
        difficulty: the item's difficulty, 1-3.

    Returns:
        ``round(score * 10 * difficulty)``, rounding halves up: 0-30.
    """
    return int(score * POINTS_PER_DIFFICULTY * difficulty + 0.5)


def points_gained(value: int, best_before: int) -> int:
    """Points an attempt earns: only what it adds over the learner's best on that item.

    A learner's points for an item in a guild never exceed the item's best value, so
    repeating an item (or a review) cannot farm points, while improving from partial to
    correct earns the difference.

    Args:
        value: :func:`item_value` of this attempt.
        best_before: points already earned on this item in this guild.
    """
    return max(0, value - best_before)


def review_rating(
    *,
    label: Label,
    verdict_correct: bool | None,
    first_try: bool,
    hint_used: bool,
    duration_ms: int | None,
) -> ReviewRating:
    """The FSRS rating a graded attempt gives the item's review card (issue 5 mapping).

    A wrong verdict or an incorrect label is Again; partial is Hard; correct is Good, or
    Easy when it is the learner's first try at the item, without the hint, and within
    :data:`EASY_MAX_MS` (an unknown duration is never quick).
    """
    if verdict_correct is False or label is Label.INCORRECT:
        return ReviewRating.AGAIN
    if label is Label.PARTIAL:
        return ReviewRating.HARD
    quick = duration_ms is not None and duration_ms <= EASY_MAX_MS
    if first_try and not hint_used and quick:
        return ReviewRating.EASY
    return ReviewRating.GOOD


def to_fsrs(rating: ReviewRating) -> Rating:
    """The fsrs ``Rating`` for a review rating."""
    return _TO_FSRS[rating]


def from_fsrs(rating: int) -> ReviewRating:
    """The review rating for an fsrs ``Rating`` value (1-4)."""
    return _FROM_FSRS[Rating(rating)]


def is_lapse(state_before: State, rating: ReviewRating) -> bool:
    """Whether a review is a lapse: a learnt (Review-state) card rated Again (Anki's rule)."""
    return state_before is State.Review and rating is ReviewRating.AGAIN


def tutor_scheduler(*, enable_fuzzing: bool = True) -> Scheduler:
    """The FSRS scheduler the tutor uses: fsrs defaults with one-day (re)learning steps.

    Args:
        enable_fuzzing: spread review intervals of >= 2.5 days by a few percent, as Anki
            does, so items learnt together do not all come back on the same day; tests turn
            it off to get exact dates.
    """
    return Scheduler(
        learning_steps=(REVIEW_STEP,),
        relearning_steps=(REVIEW_STEP,),
        enable_fuzzing=enable_fuzzing,
    )


def local_date(instant: datetime, time_zone: str) -> date:
    """The calendar date of an aware instant in an IANA time zone."""
    return instant.astimezone(ZoneInfo(time_zone)).date()


def iso_week(instant: datetime, time_zone: str) -> str:
    """The ISO week (``2025-W07``, weeks start on Monday) of an instant in a time zone."""
    year, week, _ = local_date(instant, time_zone).isocalendar()
    return f"{year}-W{week:02d}"


def streaks(days: Iterable[date], today: date) -> Streaks:
    """Current and best daily streaks from the local dates a learner answered on.

    Args:
        days: local dates with at least one attempt (any order, duplicates allowed).
        today: the learner's local date now.

    Returns:
        ``best`` is the longest run of consecutive dates; ``current`` is the run ending
        today, or yesterday when nothing was answered today yet (0 otherwise).
    """
    ordered = sorted(set(days))
    best = run = 0
    previous: date | None = None
    for day in ordered:
        run = run + 1 if previous is not None and day - previous == timedelta(days=1) else 1
        best = max(best, run)
        previous = day
    current = 0
    if previous is not None and today - previous <= timedelta(days=1) and previous <= today:
        current = run
    return Streaks(current=current, best=best)


def utc(instant: datetime) -> datetime:
    """The same instant with ``tzinfo=datetime.UTC`` (fsrs refuses any other tzinfo).

    Raises:
        ValueError: ``instant`` is naive.
    """
    if instant.tzinfo is None or instant.utcoffset() is None:
        raise ValueError(f"naive datetime {instant!r}: pass an aware UTC datetime")
    return instant.astimezone(UTC)
