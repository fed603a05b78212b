"""The daily drop rules as pure functions: what is due now, what to do with each drop, which
item to ask.

Nothing here reads a clock or a database. The store feeds these functions the schedules,
the drops it holds and ``now`` (UTC), and applies their decisions in one transaction; tests
drive them directly across DST transitions and restarts.

Exactly one drop per (channel, local date) is guaranteed by the store's unique constraint;
these rules decide *when* that one drop is posted, late, skipped or given up on.
"""

from __future__ import annotations

import zlib
from collections.abc import Collection, Sequence
from datetime import UTC, date, datetime, time, timedelta
from enum import StrEnum
from zoneinfo import ZoneInfo

from bot.content.models import Kind
from bot.progress.models import Drop, DropPlan, DropSchedule, DropState, DueDrop, ItemRef

DEFAULT_GRACE = timedelta(hours=2)
"""A drop missed (the bot was down) is still posted, late, up to this long after its time."""

NONCE_WINDOW = timedelta(minutes=2)
"""How long a post interrupted mid-flight may be retried with the same nonce.

Discord returns the earlier message instead of posting again when ``enforce_nonce`` is set
and the same author used the nonce "in the past few minutes" (discord.com/developers/docs/
resources/message#create-message). The window is unspecified, so we stay well inside it;
past it the drop is marked failed rather than risk posting twice.
"""


class DropStep(StrEnum):
    """What to do with an existing drop now (:func:`next_step`)."""

    WAIT = "wait"
    """Nothing yet (open and not closing), or nothing ever again (a final state)."""
    POST = "post"
    """Post it (first time, or a retry with the same nonce inside the nonce window)."""
    SKIP = "skip"
    """Scheduled but not posted within the grace window: record it as skipped."""
    GIVE_UP = "give_up"
    """A post or reveal was interrupted longer ago than the nonce window: mark it failed."""
    CLOSE = "close"
    """Open past ``closes_at``: close it to answers; its reveal follows."""
    REVEAL = "reveal"
    """Closed: post the reveal (first time, or a retry inside the nonce window)."""


def drop_instant(local_day: date, drop_time: time, time_zone: str) -> datetime:
    """The UTC instant of a local wall-clock time on a local date.

    DST-safe by zoneinfo's rules (PEP 495): a time that does not exist (in the spring-forward
    gap, e.g. 02:30 when clocks jump from 02:00 to 03:00) is read with the offset before the
    jump, so the drop comes at 03:30 new time; a time that occurs twice (fall back) is its
    first occurrence (``fold=0``). Either way each local date has exactly one instant.

    Args:
        local_day: the date in ``time_zone``.
        drop_time: the local wall-clock time (naive).
        time_zone: an IANA name.

    Returns:
        An aware datetime in UTC.
    """
    local = datetime.combine(local_day, drop_time, tzinfo=ZoneInfo(time_zone))
    return local.astimezone(UTC)


def plan_drops(
    schedules: Sequence[DropSchedule], now: datetime, grace: timedelta = DEFAULT_GRACE
) -> DropPlan:
    """Which drops should exist now and do not yet: to post, or (too late) to skip.

    For each schedule, today's and yesterday's local dates (in the guild's zone) are
    considered, so a drop due just before local midnight and missed during downtime is
    still found after it. A date is due once its drop instant has passed, unless the
    channel already has a drop for it (``taken_dates``) or the instant is before the
    schedule was configured (``since``). Due within ``grace``: post it (late if the bot was
    down); later than that: skip it. Downtime longer than a day records only yesterday's
    skip.

    Args:
        schedules: enabled schedules with the dates already taken.
        now: the current instant (aware).
        grace: how late a drop may still be posted.

    Returns:
        The drops to create, in schedule order, yesterday's before today's.
    """
    post: list[DueDrop] = []
    skip: list[DueDrop] = []
    for schedule in schedules:
        today = now.astimezone(ZoneInfo(schedule.time_zone)).date()
        for day in (today - timedelta(days=1), today):
            if day in schedule.taken_dates:
                continue
            at = drop_instant(day, schedule.drop_time, schedule.time_zone)
            if at > now or at < schedule.since:
                continue
            late = now - at
            due = DueDrop(
                guild_id=schedule.guild_id,
                channel_id=schedule.channel_id,
                local_date=day,
                scheduled_for=at,
                late_by_s=late.total_seconds(),
            )
            (post if late <= grace else skip).append(due)
    return DropPlan(post=post, skip=skip)


def manual_drop(guild_id: int, channel_id: int, time_zone: str, now: datetime) -> DueDrop:
    """Today's drop, due now, for ``/tutor-admin drops now`` (it takes today's one slot).

    Args:
        guild_id: the guild.
        channel_id: its drop channel.
        time_zone: the guild's IANA zone (decides which local date "today" is).
        now: the current instant (aware).
    """
    return DueDrop(
        guild_id=guild_id,
        channel_id=channel_id,
        local_date=now.astimezone(ZoneInfo(time_zone)).date(),
        scheduled_for=now,
        late_by_s=0.0,
        manual=True,
    )


def next_step(
    drop: Drop,
    now: datetime,
    grace: timedelta = DEFAULT_GRACE,
    nonce_window: timedelta = NONCE_WINDOW,
) -> DropStep:
    """What a scheduler tick does with an existing drop, after a restart or in steady state.

    - ``scheduled``: post it while within ``grace`` of its time, else skip it.
    - ``posting`` (a post was started; it may or may not have reached Discord): retry with
      the same nonce inside ``nonce_window`` of the start, else give up (failed) - never
      risk a second message.
    - ``open``: close it once ``closes_at`` has passed.
    - ``closed``: reveal it; a reveal started longer ago than ``nonce_window`` is given up.
    - final states (``revealed``, ``failed``, ``skipped``): wait (nothing, ever).

    Args:
        drop: the stored drop.
        now: the current instant (aware).
        grace: how late a scheduled drop may still be posted.
        nonce_window: how long an interrupted post or reveal may be retried.
    """
    match drop.state:
        case DropState.SCHEDULED:
            return DropStep.POST if now - drop.scheduled_for <= grace else DropStep.SKIP
        case DropState.POSTING:
            return DropStep.POST if now - drop.updated_at <= nonce_window else DropStep.GIVE_UP
        case DropState.OPEN:
            closing = drop.closes_at is not None and drop.closes_at <= now
            return DropStep.CLOSE if closing else DropStep.WAIT
        case DropState.CLOSED:
            started = drop.reveal_started_at
            if started is None or now - started <= nonce_window:
                return DropStep.REVEAL
            return DropStep.GIVE_UP
        case _:
            return DropStep.WAIT


def choose_item(
    items: Sequence[ItemRef],
    *,
    kinds: Collection[Kind],
    recent: Sequence[str],
    channel_id: int,
    local_day: date,
) -> ItemRef | None:
    """Pick the item for a channel's drop: never asked there first, else least recently.

    Among items never dropped in the channel, the pick is spread by a hash of the channel
    and date (stable: the same inputs always give the same item); once every allowed item
    has been asked, the one asked longest ago comes back.

    Args:
        items: the bank's items.
        kinds: allowed kinds; empty allows every kind (the guild's kinds filter).
        recent: item ids of the channel's earlier drops, most recent first.
        channel_id: the channel (spreads the choice).
        local_day: the drop's local date (spreads the choice).

    Returns:
        The item, or None when no item matches the kinds filter.
    """
    pool = [item for item in items if not kinds or item.kind in kinds]
    if not pool:
        return None
    age: dict[str, int] = {}
    for position, item_id in enumerate(recent):
        age.setdefault(item_id, position)
    fresh = [item for item in pool if item.item_id not in age]
    if fresh:
        seed = zlib.crc32(f"{channel_id}:{local_day.isoformat()}".encode())
        return fresh[seed % len(fresh)]
    return max(pool, key=lambda item: age[item.item_id])
