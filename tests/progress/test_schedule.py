"""The pure drop rules: what is due now (DST-safe), the next step of a drop, item rotation."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Any

import pytest

from bot.content.models import Kind
from bot.progress.models import Drop, DropSchedule, DropState
from bot.progress.schedule import (
    DropStep,
    choose_item,
    drop_instant,
    next_step,
    plan_drops,
)
from tests.progress.conftest import CHANNEL, GUILD, ITEMS

LONG_AGO = datetime(2024, 1, 1, tzinfo=UTC)


def schedule(**fields: Any) -> DropSchedule:
    values: dict[str, Any] = {
        "guild_id": GUILD,
        "channel_id": CHANNEL,
        "drop_time": time(9, 0),
        "time_zone": "Europe/Berlin",
        "since": LONG_AGO,
    }
    values.update(fields)
    return DropSchedule(**values)


def drop(**fields: Any) -> Drop:
    values: dict[str, Any] = {
        "drop_id": 1,
        "guild_id": GUILD,
        "channel_id": CHANNEL,
        "local_date": date(2025, 3, 3),
        "item_id": "TF1",
        "state": DropState.SCHEDULED,
        "nonce": "0123456789abcdef",
        "reveal_nonce": "0123456789abcdefr",
        "scheduled_for": datetime(2025, 3, 3, 8, 0, tzinfo=UTC),
        "updated_at": datetime(2025, 3, 3, 8, 0, tzinfo=UTC),
    }
    values.update(fields)
    return Drop(**values)


# --- what is due now ---------------------------------------------------------------------


def test_drop_is_due_once_its_local_time_has_passed() -> None:
    now = datetime(2025, 3, 3, 8, 0, 30, tzinfo=UTC)  # 09:00:30 in Berlin (CET, +1)
    plan = plan_drops([schedule()], now)
    assert [(d.local_date, d.scheduled_for) for d in plan.post] == [
        (date(2025, 3, 3), datetime(2025, 3, 3, 8, 0, tzinfo=UTC))
    ]


def test_drop_is_not_due_before_its_local_time() -> None:
    now = datetime(2025, 3, 3, 7, 59, tzinfo=UTC)
    plan = plan_drops([schedule(since=datetime(2025, 3, 3, 0, 0, tzinfo=UTC))], now)
    assert plan.post == []
    assert plan.skip == []


def test_a_date_already_taken_is_never_due_again() -> None:
    now = datetime(2025, 3, 3, 8, 5, tzinfo=UTC)
    taken = frozenset({date(2025, 3, 2), date(2025, 3, 3)})
    assert plan_drops([schedule(taken_dates=taken)], now).post == []


def test_drop_missed_within_the_grace_window_is_posted_late() -> None:
    now = datetime(2025, 3, 3, 9, 30, tzinfo=UTC)
    plan = plan_drops([schedule(taken_dates={date(2025, 3, 2)})], now, grace=timedelta(hours=2))
    assert [d.late_by_s for d in plan.post] == [5400.0]


def test_drop_missed_beyond_the_grace_window_is_skipped() -> None:
    now = datetime(2025, 3, 3, 11, 0, tzinfo=UTC)
    plan = plan_drops([schedule(taken_dates={date(2025, 3, 2)})], now, grace=timedelta(hours=2))
    assert plan.post == []
    assert [d.local_date for d in plan.skip] == [date(2025, 3, 3)]


def test_drop_time_before_the_schedule_existed_is_neither_posted_nor_skipped() -> None:
    configured = datetime(2025, 3, 3, 10, 0, tzinfo=UTC)  # 11:00 Berlin, after 09:00
    plan = plan_drops([schedule(since=configured)], configured + timedelta(minutes=1))
    assert plan.post == []
    assert plan.skip == []


def test_drop_missed_just_before_midnight_is_posted_after_midnight() -> None:
    late = schedule(drop_time=time(23, 50), time_zone="UTC", taken_dates={date(2025, 3, 2)})
    now = datetime(2025, 3, 4, 0, 20, tzinfo=UTC)
    plan = plan_drops([late], now, grace=timedelta(hours=1))
    assert [d.local_date for d in plan.post] == [date(2025, 3, 3)]


def test_drop_follows_local_wall_clock_across_the_dst_change() -> None:
    # Berlin switches to CEST (+2) on 2025-03-30: 09:00 local moves from 08:00 to 07:00 UTC.
    before = drop_instant(date(2025, 3, 29), time(9, 0), "Europe/Berlin")
    after = drop_instant(date(2025, 3, 31), time(9, 0), "Europe/Berlin")
    assert (before.hour, after.hour) == (8, 7)


def test_drop_time_in_the_spring_forward_gap_comes_at_the_shifted_instant() -> None:
    # New York skips 02:00-03:00 on 2025-03-09; 02:30 is read with EST (-5): 07:30 UTC,
    # which is 03:30 EDT.
    at = drop_instant(date(2025, 3, 9), time(2, 30), "America/New_York")
    assert at == datetime(2025, 3, 9, 7, 30, tzinfo=UTC)


def test_drop_time_repeated_by_fall_back_is_its_first_occurrence() -> None:
    # New York repeats 01:00-02:00 on 2025-11-02; 01:30 EDT (-4) is 05:30 UTC.
    at = drop_instant(date(2025, 11, 2), time(1, 30), "America/New_York")
    assert at == datetime(2025, 11, 2, 5, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("drop_time", "start"),
    [
        (time(2, 30), datetime(2025, 3, 7, 0, 0, tzinfo=UTC)),  # spring forward gap
        (time(1, 30), datetime(2025, 10, 31, 0, 0, tzinfo=UTC)),  # fall back repeat
    ],
)
def test_ticks_across_a_dst_weekend_create_exactly_one_drop_per_local_day(
    drop_time: time, start: datetime
) -> None:
    rule = schedule(drop_time=drop_time, time_zone="America/New_York", since=start)
    created: list[date] = []
    now = start
    while now < start + timedelta(days=4):
        plan = plan_drops([rule], now, grace=timedelta(minutes=30))
        assert plan.skip == []
        created += [due.local_date for due in plan.post]
        rule = rule.model_copy(
            update={"taken_dates": rule.taken_dates | {d.local_date for d in plan.post}}
        )
        now += timedelta(minutes=5)
    first = start.astimezone(UTC).date()
    assert created == [first + timedelta(days=n) for n in range(4)]


# --- the next step of an existing drop ------------------------------------------------------

NOW = datetime(2025, 3, 3, 8, 30, tzinfo=UTC)


def test_scheduled_drop_within_grace_is_posted() -> None:
    assert next_step(drop(), NOW, grace=timedelta(hours=1)) is DropStep.POST


def test_scheduled_drop_past_grace_is_skipped() -> None:
    assert next_step(drop(), NOW, grace=timedelta(minutes=10)) is DropStep.SKIP


def test_interrupted_post_is_retried_inside_the_nonce_window() -> None:
    posting = drop(state=DropState.POSTING, updated_at=NOW - timedelta(seconds=30))
    assert next_step(posting, NOW, nonce_window=timedelta(minutes=2)) is DropStep.POST


def test_interrupted_post_past_the_nonce_window_is_given_up() -> None:
    posting = drop(state=DropState.POSTING, updated_at=NOW - timedelta(minutes=5))
    assert next_step(posting, NOW, nonce_window=timedelta(minutes=2)) is DropStep.GIVE_UP


def test_open_drop_waits_until_it_closes() -> None:
    open_drop = drop(state=DropState.OPEN, closes_at=NOW + timedelta(seconds=1))
    assert next_step(open_drop, NOW) is DropStep.WAIT


def test_open_drop_past_closes_at_is_closed() -> None:
    open_drop = drop(state=DropState.OPEN, closes_at=NOW)
    assert next_step(open_drop, NOW) is DropStep.CLOSE


def test_closed_drop_is_revealed() -> None:
    assert next_step(drop(state=DropState.CLOSED), NOW) is DropStep.REVEAL


def test_interrupted_reveal_past_the_nonce_window_is_given_up() -> None:
    closed = drop(state=DropState.CLOSED, reveal_started_at=NOW - timedelta(minutes=5))
    assert next_step(closed, NOW, nonce_window=timedelta(minutes=2)) is DropStep.GIVE_UP


@pytest.mark.parametrize("state", [DropState.REVEALED, DropState.FAILED, DropState.SKIPPED])
def test_final_states_never_do_anything(state: DropState) -> None:
    assert next_step(drop(state=state), NOW + timedelta(days=30)) is DropStep.WAIT


# --- item rotation -------------------------------------------------------------------------

DAY = date(2025, 3, 3)


def test_rotation_never_repeats_an_item_while_fresh_ones_remain() -> None:
    recent = ["TF1", "TF2", "SE1", "WHY1"]
    picked = choose_item(ITEMS, kinds=[], recent=recent, channel_id=CHANNEL, local_day=DAY)
    assert picked is not None
    assert picked.item_id == "EC1"


def test_rotation_brings_back_the_least_recently_asked_item() -> None:
    recent = ["EC1", "WHY1", "TF2", "SE1", "TF1", "EC1"]
    picked = choose_item(ITEMS, kinds=[], recent=recent, channel_id=CHANNEL, local_day=DAY)
    assert picked is not None
    assert picked.item_id == "TF1"


def test_rotation_honours_the_kinds_filter() -> None:
    picked = [
        choose_item(
            ITEMS, kinds=[Kind.WHY], recent=[], channel_id=CHANNEL, local_day=DAY + timedelta(n)
        )
        for n in range(10)
    ]
    assert {item.item_id for item in picked if item} == {"WHY1"}


def test_rotation_finds_nothing_when_no_item_has_an_allowed_kind() -> None:
    only_tf = [ITEMS[0]]
    assert (
        choose_item(only_tf, kinds=[Kind.WHY], recent=[], channel_id=CHANNEL, local_day=DAY) is None
    )


def test_rotation_spreads_first_picks_over_days() -> None:
    picks = {
        choose_item(ITEMS, kinds=[], recent=[], channel_id=CHANNEL, local_day=DAY + timedelta(n))
        for n in range(20)
    }
    assert len(picks) > 1
