"""Daily drops in the database: the scheduler tick, state transitions, summaries, failures.

Exactly one drop per (channel, local date): the ``drops`` table's unique constraint, with
every insert and transition inside one ``BEGIN IMMEDIATE`` transaction. Transitions are
compare-and-set (``UPDATE ... WHERE state IN (...)``), so two processes racing on a drop
cannot both move it; the loser gets :class:`DropStateError`.

The life of a drop, as the bot drives it::

    tick = tick_drops(...)                 # creates due drops, closes, skips, gives up
    for drop in tick.to_post:
        drop = begin_posting(drop_id)      # scheduled -> posting
        message = send(nonce=drop.nonce, enforce_nonce=True)
        mark_open(drop_id, message.id)     # posting -> open   (or mark_failed(reason))
    for drop in tick.to_reveal:
        drop = begin_reveal(drop_id)       # records the start of the reveal
        message = send(nonce=drop.reveal_nonce, enforce_nonce=True)
        mark_revealed(drop_id, message.id) # closed -> revealed
"""

from __future__ import annotations

import json
import secrets
from collections import Counter
from collections.abc import Sequence
from datetime import datetime, time, timedelta
from typing import Any

from bot.content.models import Kind, Label
from bot.progress.db import Database, from_date, from_ts, ts, write_transaction
from bot.progress.errors import (
    DropAlreadyExists,
    DropsNotConfigured,
    DropStateError,
    UnknownDrop,
)
from bot.progress.models import (
    Drop,
    DropFailure,
    DropSchedule,
    DropState,
    DropSummary,
    DropTick,
    DueDrop,
    ItemRef,
    LabelShare,
    MisconceptionCount,
    TopScorer,
)
from bot.progress.profiles import get_guild_settings
from bot.progress.schedule import (
    DEFAULT_GRACE,
    NONCE_WINDOW,
    DropStep,
    choose_item,
    manual_drop,
    next_step,
    plan_drops,
)

MAX_REASON_CHARS = 300
"""Failure reasons are cut to this length (they are shown in ``/tutor-admin settings``)."""

ROTATION_MEMORY = 1000
"""How many of a channel's past drops item rotation looks at."""

_DROP_COLUMNS = (
    "drop_id, guild_id, channel_id, local_date, item_id, state, nonce, message_id, "
    "reveal_message_id, scheduled_for, opens_at, closes_at, reveal_started_at, "
    "failure_reason, updated_at"
)

_ACTIVE = (DropState.SCHEDULED, DropState.POSTING, DropState.OPEN, DropState.CLOSED)


def _opt_ts(value: str | None) -> datetime | None:
    return from_ts(value) if value is not None else None


def _drop(row: Any) -> Drop:
    nonce = row[6]
    return Drop(
        drop_id=row[0],
        guild_id=row[1],
        channel_id=row[2],
        local_date=from_date(row[3]),
        item_id=row[4],
        state=DropState(row[5]),
        nonce=nonce,
        reveal_nonce=f"{nonce}r",
        message_id=row[7],
        reveal_message_id=row[8],
        scheduled_for=from_ts(row[9]),
        opens_at=_opt_ts(row[10]),
        closes_at=_opt_ts(row[11]),
        reveal_started_at=_opt_ts(row[12]),
        failure_reason=row[13],
        updated_at=from_ts(row[14]),
    )


def get_drop(db: Database, drop_id: int) -> Drop:
    """The drop with this id.

    Raises:
        UnknownDrop: no such drop.
    """
    row = db.execute(f"SELECT {_DROP_COLUMNS} FROM drops WHERE drop_id = ?", [drop_id]).fetchone()
    if row is None:
        raise UnknownDrop(drop_id)
    return _drop(row)


def _schedules(db: Database, now: datetime) -> list[DropSchedule]:
    """Enabled guild schedules with the local dates their channel already used lately."""
    rows = db.execute(
        """
        SELECT guild_id, drop_channel_id, drop_time, time_zone, drops_since
        FROM guilds WHERE drops_enabled = 1
        """
    ).fetchall()
    # Local dates differ from the UTC date by at most a day; the rule looks back one more.
    oldest = (now.date() - timedelta(days=3)).isoformat()
    schedules = []
    for guild_id, channel_id, drop_time, time_zone, since in rows:
        taken = db.execute(
            "SELECT local_date FROM drops WHERE channel_id = ? AND local_date >= ?",
            [channel_id, oldest],
        ).fetchall()
        schedules.append(
            DropSchedule(
                guild_id=guild_id,
                channel_id=channel_id,
                drop_time=time.fromisoformat(drop_time),
                time_zone=time_zone,
                since=from_ts(since),
                taken_dates=frozenset(from_date(r[0]) for r in taken),
            )
        )
    return schedules


def _insert_drop(
    db: Database,
    due: DueDrop,
    item_id: str | None,
    state: DropState,
    reason: str | None,
    now: datetime,
) -> int:
    """Insert a drop row; return its id, or 0 when the (channel, date) slot is taken."""
    cursor = db.execute(
        """
        INSERT INTO drops (guild_id, channel_id, local_date, item_id, state, nonce,
                           scheduled_for, failure_reason, created_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (channel_id, local_date) DO NOTHING
        """,
        [
            due.guild_id,
            due.channel_id,
            due.local_date.isoformat(),
            item_id,
            state.value,
            secrets.token_hex(8),
            ts(due.scheduled_for),
            reason,
            ts(now),
            ts(now),
        ],
    )
    return int(cursor.lastrowid or 0) if cursor.rowcount == 1 else 0


def _create_due_drop(
    db: Database, due: DueDrop, items: Sequence[ItemRef], now: datetime
) -> Drop | None:
    """Create a ``scheduled`` drop with the item rotation's pick (``failed`` if none fits).

    Returns:
        The new drop, or None when the channel already has a drop for that local date.
    """
    kinds_json = db.execute(
        "SELECT kinds FROM guilds WHERE guild_id = ?", [due.guild_id]
    ).fetchone()
    kinds = [Kind(k) for k in json.loads(kinds_json[0])] if kinds_json else []
    recent = [
        row[0]
        for row in db.execute(
            """
            SELECT item_id FROM drops
            WHERE channel_id = ? AND item_id IS NOT NULL
            ORDER BY local_date DESC LIMIT ?
            """,
            [due.channel_id, ROTATION_MEMORY],
        ).fetchall()
    ]
    item = choose_item(
        items, kinds=kinds, recent=recent, channel_id=due.channel_id, local_day=due.local_date
    )
    if item is None:
        allowed = ", ".join(k.value for k in kinds) or "any"
        reason = f"no item in the bank matches the kinds filter ({allowed})"
        drop_id = _insert_drop(db, due, None, DropState.FAILED, reason, now)
    else:
        drop_id = _insert_drop(db, due, item.item_id, DropState.SCHEDULED, None, now)
    return get_drop(db, drop_id) if drop_id else None


def _set_state(
    db: Database,
    drop_id: int,
    expected: Sequence[DropState],
    new: DropState,
    now: datetime,
    **columns: object,
) -> Drop:
    """Compare-and-set a drop's state (and columns) in the caller's transaction.

    Raises:
        UnknownDrop: no such drop.
        DropStateError: the drop is not in one of ``expected``.
    """
    assignments = "".join(f", {name} = ?" for name in columns)
    marks = ", ".join("?" for _ in expected)
    cursor = db.execute(
        f"UPDATE drops SET state = ?, updated_at = ?{assignments} "
        f"WHERE drop_id = ? AND state IN ({marks})",
        [new.value, ts(now), *columns.values(), drop_id, *(s.value for s in expected)],
    )
    drop = get_drop(db, drop_id)
    if cursor.rowcount != 1:
        raise DropStateError(drop_id, tuple(expected), drop.state)
    return drop


def tick_drops(
    db: Database,
    items: Sequence[ItemRef],
    now: datetime,
    grace: timedelta = DEFAULT_GRACE,
    nonce_window: timedelta = NONCE_WINDOW,
) -> DropTick:
    """One scheduler tick: create due drops, then decide the next step of every live drop.

    In one transaction: the pure rule (:func:`plan_drops`) finds drops that should exist
    and do not; each is created ``scheduled`` with the rotation's item (or ``skipped`` when
    missed by more than ``grace``, or ``failed`` when no item fits the kinds filter). Then
    every live drop gets :func:`next_step`: skips, give-ups and closes are applied here; the
    ones to post or reveal are returned. Safe to call from several processes and after any
    crash: a (channel, local date) slot is taken once, and a drop is handed out for posting
    again only inside the nonce window.

    Args:
        items: the bank's items (rotation picks among them).
        now: the current instant (aware).
        grace: how late a missed drop may still be posted.
        nonce_window: how long an interrupted post or reveal is retried.
    """
    to_post: list[Drop] = []
    to_reveal: list[Drop] = []
    skipped: list[Drop] = []
    failed: list[Drop] = []
    with write_transaction(db):
        plan = plan_drops(_schedules(db, now), now, grace)
        for due in plan.post:
            created = _create_due_drop(db, due, items, now)
            if created is not None and created.state is DropState.FAILED:
                failed.append(created)
        for due in plan.skip:
            late_h = due.late_by_s / 3600
            reason = f"missed by {late_h:.1f} h (the bot was offline past the grace window)"
            drop_id = _insert_drop(db, due, None, DropState.SKIPPED, reason, now)
            if drop_id:
                skipped.append(get_drop(db, drop_id))
        marks = ", ".join("?" for _ in _ACTIVE)
        live = [
            _drop(row)
            for row in db.execute(
                f"SELECT {_DROP_COLUMNS} FROM drops WHERE state IN ({marks}) ORDER BY drop_id",
                [s.value for s in _ACTIVE],
            ).fetchall()
        ]
        for drop in live:
            step = next_step(drop, now, grace, nonce_window)
            if step is DropStep.POST:
                to_post.append(drop)
            elif step is DropStep.REVEAL:
                to_reveal.append(drop)
            elif step is DropStep.CLOSE:
                to_reveal.append(
                    _set_state(db, drop.drop_id, [DropState.OPEN], DropState.CLOSED, now)
                )
            elif step is DropStep.SKIP:
                reason = "not posted within the grace window after it was scheduled"
                skipped.append(
                    _set_state(
                        db,
                        drop.drop_id,
                        [DropState.SCHEDULED],
                        DropState.SKIPPED,
                        now,
                        failure_reason=reason,
                    )
                )
            elif step is DropStep.GIVE_UP:
                what = "posting" if drop.state is DropState.POSTING else "revealing"
                reason = f"interrupted while {what}; not retried, so it is never posted twice"
                failed.append(
                    _set_state(
                        db, drop.drop_id, [drop.state], DropState.FAILED, now, failure_reason=reason
                    )
                )
    return DropTick(to_post=to_post, to_reveal=to_reveal, skipped=skipped, failed=failed)


def create_manual_drop(
    db: Database, guild_id: int, items: Sequence[ItemRef], now: datetime
) -> Drop:
    """Take today's slot for the guild's channel now (``/tutor-admin drops now``).

    Returns:
        The drop, ``scheduled`` (post it as a tick's ``to_post`` drop), or ``failed`` when no
        item fits the kinds filter.

    Raises:
        DropsNotConfigured: the guild has no drop channel.
        DropAlreadyExists: the channel already has a drop for today's local date.
    """
    settings = get_guild_settings(db, guild_id)
    if settings.drop_channel_id is None:
        raise DropsNotConfigured(guild_id)
    due = manual_drop(guild_id, settings.drop_channel_id, settings.time_zone, now)
    with write_transaction(db):
        drop = _create_due_drop(db, due, items, now)
        if drop is None:
            existing = db.execute(
                "SELECT drop_id FROM drops WHERE channel_id = ? AND local_date = ?",
                [due.channel_id, due.local_date.isoformat()],
            ).fetchone()
            raise DropAlreadyExists(existing[0], due.channel_id, due.local_date.isoformat())
        return drop


def begin_posting(db: Database, drop_id: int, now: datetime) -> Drop:
    """Mark a drop as being posted, just before the message is sent.

    ``scheduled -> posting``. A drop already ``posting`` is returned unchanged (a retry
    inside the nonce window keeps the first start time).

    Raises:
        UnknownDrop: no such drop.
        DropStateError: the drop is past posting (open, failed...).
    """
    with write_transaction(db):
        drop = get_drop(db, drop_id)
        if drop.state is DropState.POSTING:
            return drop
        return _set_state(db, drop_id, [DropState.SCHEDULED], DropState.POSTING, now)


def mark_open(db: Database, drop_id: int, message_id: int, now: datetime) -> Drop:
    """Record the posted message: ``posting -> open``, closing after the guild's reveal delay.

    Raises:
        UnknownDrop: no such drop.
        DropStateError: the drop is not ``posting``.
    """
    with write_transaction(db):
        drop = get_drop(db, drop_id)
        hours = get_guild_settings(db, drop.guild_id).reveal_after_hours
        return _set_state(
            db,
            drop_id,
            [DropState.POSTING],
            DropState.OPEN,
            now,
            message_id=message_id,
            opens_at=ts(now),
            closes_at=ts(now + timedelta(hours=hours)),
        )


def begin_reveal(db: Database, drop_id: int, now: datetime) -> Drop:
    """Record that the reveal is being posted (a retry keeps the first start time).

    Raises:
        UnknownDrop: no such drop.
        DropStateError: the drop is not ``closed``.
    """
    with write_transaction(db):
        drop = get_drop(db, drop_id)
        if drop.state is not DropState.CLOSED:
            raise DropStateError(drop_id, (DropState.CLOSED,), drop.state)
        if drop.reveal_started_at is not None:
            return drop
        db.execute(
            "UPDATE drops SET reveal_started_at = ? WHERE drop_id = ? AND state = 'closed'",
            [ts(now), drop_id],
        )
        return get_drop(db, drop_id)


def mark_revealed(db: Database, drop_id: int, reveal_message_id: int, now: datetime) -> Drop:
    """Record the reveal message: ``closed -> revealed``.

    Raises:
        UnknownDrop: no such drop.
        DropStateError: the drop is not ``closed``.
    """
    with write_transaction(db):
        return _set_state(
            db,
            drop_id,
            [DropState.CLOSED],
            DropState.REVEALED,
            now,
            reveal_message_id=reveal_message_id,
        )


def mark_failed(db: Database, drop_id: int, reason: str, now: datetime) -> Drop:
    """Mark a live drop failed with a reason (channel deleted, missing permission...).

    Args:
        reason: words for ``/tutor-admin settings``; cut to 300 characters.

    Raises:
        UnknownDrop: no such drop.
        DropStateError: the drop already reached a final state.
    """
    reason = reason.strip()[:MAX_REASON_CHARS] or "unknown reason"
    with write_transaction(db):
        return _set_state(db, drop_id, _ACTIVE, DropState.FAILED, now, failure_reason=reason)


def drop_failures(db: Database, guild_id: int, limit: int = 5) -> list[DropFailure]:
    """The guild's latest failed or skipped drops, newest first.

    Args:
        limit: at most this many (1-25).
    """
    rows = db.execute(
        """
        SELECT drop_id, channel_id, local_date, state, failure_reason, updated_at FROM drops
        WHERE guild_id = ? AND state IN ('failed', 'skipped')
        ORDER BY updated_at DESC, drop_id DESC LIMIT ?
        """,
        [guild_id, max(1, min(limit, 25))],
    ).fetchall()
    return [
        DropFailure(
            drop_id=row[0],
            channel_id=row[1],
            local_date=from_date(row[2]),
            state=DropState(row[3]),  # type: ignore[arg-type]
            reason=row[4] or "unknown reason",
            at=from_ts(row[5]),
        )
        for row in rows
    ]


def drop_summary(db: Database, drop_id: int, top: int = 3) -> DropSummary:
    """The reveal's numbers: answers, label shares, most common misconception, top scorers.

    Args:
        top: how many top scorers (highest score, then earliest answer).

    Raises:
        UnknownDrop: no such drop.
    """
    drop = get_drop(db, drop_id)
    rows = db.execute(
        """
        SELECT learner_id, score, label, misconceptions, created_at FROM attempts
        WHERE drop_id = ? ORDER BY score DESC, created_at, attempt_id
        """,
        [drop_id],
    ).fetchall()
    labels = Counter(Label(row[2]) for row in rows)
    answers = len(rows)
    shares = [
        LabelShare(
            label=label, count=labels[label], share=labels[label] / answers if answers else 0
        )
        for label in Label
    ]
    stated: Counter[str] = Counter()
    for row in rows:
        stated.update(set(json.loads(row[3])))
    common = None
    if stated:
        best_id, best_count = min(stated.items(), key=lambda kv: (-kv[1], kv[0]))
        common = MisconceptionCount(misconception_id=best_id, count=best_count)
    scorers = [
        TopScorer(learner_id=row[0], score=row[1], label=Label(row[2]), answered_at=from_ts(row[4]))
        for row in rows[:top]
    ]
    return DropSummary(
        drop_id=drop_id,
        item_id=drop.item_id,
        answers=answers,
        label_shares=shares,
        most_common_misconception=common,
        top_scorers=scorers,
    )
