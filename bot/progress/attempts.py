"""Recording attempts: idempotent, one per (learner, drop), atomic with every summary.

One call of :func:`record_attempt` is one ``BEGIN IMMEDIATE`` transaction that checks the
idempotency key and the drop, inserts the attempt (the ``attempts_summaries`` trigger
updates the learner's item, concept, day and points rows in the same statement), and
reviews the item's FSRS card. Either all of it is stored or none of it.

Policies (docs/PROGRESS.md):

- the same idempotency key again returns the first result, ``duplicate=True``, and writes
  nothing (a modal submitted twice, a network retry);
- a second answer to the same drop with a new key is **refused** with
  :class:`AlreadyAnswered`: the first answer stands, because a learner who could replace it
  after reading the feedback would be graded on the feedback, not on what they knew.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fsrs import Card, Scheduler, State

from bot.content.models import Label
from bot.progress import rules
from bot.progress.db import Database, dumps, from_ts, ts, write_transaction
from bot.progress.errors import (
    AlreadyAnswered,
    DropClosed,
    DropMismatch,
    IdempotencyConflict,
    UnknownDrop,
)
from bot.progress.models import AttemptIn, AttemptRecorded, DropState, ReviewRating
from bot.progress.profiles import ensure_learner
from bot.progress.schema import EVERYWHERE

_INSERT = """
INSERT INTO attempts (
    idempotency_key, learner_id, guild_id, drop_id, item_id, kind, tags, difficulty,
    verdict, verdict_correct, answer_text, score, label, concepts_hit, concepts_missing,
    misconceptions, duration_ms, hint_used, first_try, rating, points, local_date, week,
    created_at
) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
"""


def _opt_bool(value: bool | None) -> int | None:
    return None if value is None else int(value)


def _duplicate(db: Database, row: Any) -> AttemptRecorded:
    """The result for an attempt recorded earlier under the same idempotency key."""
    attempt_id, learner_id, item_id, first_try, rating, points, created_at = row
    due, lapses = db.execute(
        "SELECT due, lapses FROM review_cards WHERE learner_id = ? AND item_id = ?",
        [learner_id, item_id],
    ).fetchone()
    return AttemptRecorded(
        attempt_id=attempt_id,
        duplicate=True,
        points=points,
        first_try=bool(first_try),
        rating=rules.from_fsrs(rating),
        review_due=from_ts(due),
        lapses=lapses,
        leech=lapses >= rules.LEECH_LAPSES,
        created_at=from_ts(created_at),
    )


def _existing(db: Database, key: str) -> Any:
    return db.execute(
        """
        SELECT attempt_id, learner_id, item_id, first_try, rating, points, created_at
        FROM attempts WHERE idempotency_key = ?
        """,
        [key],
    ).fetchone()


def _check_drop(db: Database, attempt: AttemptIn, now: datetime) -> None:
    """Refuse an answer to a drop that is unknown, closed, another guild's or item's, or
    already answered by this learner."""
    assert attempt.drop_id is not None
    row = db.execute(
        "SELECT guild_id, item_id, state, closes_at FROM drops WHERE drop_id = ?",
        [attempt.drop_id],
    ).fetchone()
    if row is None:
        raise UnknownDrop(attempt.drop_id)
    guild_id, item_id, state, closes_at = row
    if guild_id != attempt.guild_id:
        raise DropMismatch(attempt.drop_id, "guild_id", guild_id, attempt.guild_id)
    if item_id != attempt.item_id:
        raise DropMismatch(attempt.drop_id, "item_id", item_id, attempt.item_id)
    closes = from_ts(closes_at) if closes_at is not None else None
    if state != DropState.OPEN.value or (closes is not None and now >= closes):
        raise DropClosed(attempt.drop_id, DropState(state), closes)
    answered = db.execute(
        "SELECT attempt_id, label FROM attempts WHERE drop_id = ? AND learner_id = ?",
        [attempt.drop_id, attempt.learner_id],
    ).fetchone()
    if answered is not None:
        raise AlreadyAnswered(attempt.drop_id, attempt.learner_id, answered[0], Label(answered[1]))


def _review_card(
    db: Database,
    scheduler: Scheduler,
    attempt: AttemptIn,
    attempt_id: int,
    rating: ReviewRating,
    now: datetime,
) -> tuple[datetime, int]:
    """Review the learner's card for the item (creating it on the first attempt).

    Returns:
        The card's next due instant and its lapse count.
    """
    row = db.execute(
        "SELECT card, reviews, lapses FROM review_cards WHERE learner_id = ? AND item_id = ?",
        [attempt.learner_id, attempt.item_id],
    ).fetchone()
    if row is None:
        card, reviews, lapses = Card(card_id=attempt_id, due=now), 0, 0
    else:
        card, reviews, lapses = Card.from_json(row[0]), row[1], row[2]
    lapses += rules.is_lapse(State(card.state), rating)
    card, _log = scheduler.review_card(card, rules.to_fsrs(rating), now, attempt.duration_ms)
    db.execute(
        """
        INSERT INTO review_cards (learner_id, item_id, card, due, reviews, lapses, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (learner_id, item_id) DO UPDATE SET
            card = excluded.card, due = excluded.due, reviews = excluded.reviews,
            lapses = excluded.lapses, updated_at = excluded.updated_at
        """,
        [
            attempt.learner_id,
            attempt.item_id,
            card.to_json(),
            ts(card.due),
            reviews + 1,
            lapses,
            ts(now),
        ],
    )
    return card.due, lapses


def record_attempt(
    db: Database,
    attempt: AttemptIn,
    now: datetime,
    *,
    scheduler: Scheduler,
    keep_answer_text: bool = True,
) -> AttemptRecorded:
    """Record one graded attempt with its summaries, points and review card, atomically.

    Args:
        attempt: the attempt (see :class:`AttemptIn`).
        now: the instant of the submission (aware).
        scheduler: the FSRS scheduler (:func:`bot.progress.rules.tutor_scheduler`).
        keep_answer_text: False stores no answer text at all (retention of 0 days).

    Returns:
        What was recorded; with ``duplicate=True`` when the idempotency key was seen before.

    Raises:
        IdempotencyConflict: the key was used by another learner.
        UnknownDrop: ``drop_id`` names no drop.
        DropMismatch: the drop belongs to another guild or asks another item.
        DropClosed: the drop is not open, or it closed before ``now``.
        AlreadyAnswered: the learner already answered this drop (refuse policy).
    """
    now = rules.utc(now)
    with write_transaction(db):
        row = _existing(db, attempt.idempotency_key)
        if row is not None:
            if row[1] != attempt.learner_id:
                raise IdempotencyConflict(attempt.idempotency_key)
            return _duplicate(db, row)
        if attempt.drop_id is not None:
            _check_drop(db, attempt, now)

        learner_zone = ensure_learner(db, attempt.learner_id, now)
        week_zone = learner_zone
        if attempt.guild_id is not None:
            guild = db.execute(
                "SELECT time_zone FROM guilds WHERE guild_id = ?", [attempt.guild_id]
            ).fetchone()
            week_zone = guild[0] if guild is not None else "UTC"
        # Points earned so far on this item, everywhere and in this guild (both rows exist
        # once the learner has tried the item there).
        earned = dict(
            db.execute(
                "SELECT scope, points FROM learner_items "
                "WHERE learner_id = ? AND scope IN (?, ?) AND item_id = ?",
                [attempt.learner_id, EVERYWHERE, attempt.guild_id, attempt.item_id],
            ).fetchall()
        )
        first_try = EVERYWHERE not in earned
        points = 0
        if attempt.guild_id is not None:
            value = rules.item_value(attempt.score, attempt.difficulty)
            points = rules.points_gained(value, earned.get(attempt.guild_id, 0))
        rating = rules.review_rating(
            label=attempt.label,
            verdict_correct=attempt.verdict_correct,
            first_try=first_try,
            hint_used=attempt.hint_used,
            duration_ms=attempt.duration_ms,
        )
        cursor = db.execute(
            _INSERT,
            [
                attempt.idempotency_key,
                attempt.learner_id,
                attempt.guild_id,
                attempt.drop_id,
                attempt.item_id,
                attempt.kind.value,
                dumps(attempt.tags),
                attempt.difficulty,
                _opt_bool(attempt.verdict),
                _opt_bool(attempt.verdict_correct),
                attempt.answer_text if keep_answer_text else None,
                attempt.score,
                attempt.label.value,
                dumps(attempt.concepts_hit),
                dumps(attempt.concepts_missing),
                dumps(attempt.misconceptions),
                attempt.duration_ms,
                int(attempt.hint_used),
                int(first_try),
                int(rules.to_fsrs(rating)),
                points,
                rules.local_date(now, learner_zone).isoformat(),
                rules.iso_week(now, week_zone),
                ts(now),
            ],
        )
        attempt_id = int(cursor.lastrowid or 0)
        due, lapses = _review_card(db, scheduler, attempt, attempt_id, rating, now)
    return AttemptRecorded(
        attempt_id=attempt_id,
        duplicate=False,
        points=points,
        first_try=first_try,
        rating=rating,
        review_due=due,
        lapses=lapses,
        leech=lapses >= rules.LEECH_LAPSES,
        created_at=now,
    )
