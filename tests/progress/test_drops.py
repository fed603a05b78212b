"""Daily drops in the store: exactly once per channel and local date, across restarts."""

from __future__ import annotations

import asyncio
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path

import pytest

from bot.content.models import Kind, Label
from bot.progress.errors import DropAlreadyExists, DropsNotConfigured, DropStateError
from bot.progress.models import Drop, DropState
from bot.progress.store import ProgressStore
from tests.progress.conftest import (
    ALICE,
    BOB,
    CAROL,
    GUILD,
    ITEMS,
    FakeClock,
    attempt,
    guild_settings,
    open_drop,
    wrong,
)

NINE_BERLIN = datetime(2025, 3, 4, 8, 0, tzinfo=UTC)
"""09:00 in Berlin (CET) on Tuesday 2025-03-04."""


async def configure(store: ProgressStore, clock: FakeClock, **fields: object) -> None:
    clock.set(datetime(2025, 3, 3, 12, 0, tzinfo=UTC))
    await store.save_guild_settings(guild_settings(**fields))


async def post(store: ProgressStore, drop_id: int, message_id: int = 5) -> None:
    await store.begin_posting(drop_id)
    await store.mark_open(drop_id, message_id)


async def test_ticks_create_todays_drop_once(store: ProgressStore, clock: FakeClock) -> None:
    await configure(store, clock)
    clock.set(NINE_BERLIN)
    handed_out = []
    for _ in range(5):
        handed_out += [d.drop_id for d in (await store.tick_drops(ITEMS)).to_post]
        clock.advance(seconds=20)
    assert len(set(handed_out)) == 1


async def test_drop_is_not_created_before_its_time(store: ProgressStore, clock: FakeClock) -> None:
    await configure(store, clock)
    clock.set(NINE_BERLIN - timedelta(seconds=1))
    assert (await store.tick_drops(ITEMS)).to_post == []


async def start_posting_then_die(db_path: Path, clock: FakeClock, *, open_it: bool) -> Drop:
    """A bot process that takes today's drop, begins posting it (and, if ``open_it``,
    records the posted message), then stops; return the drop as it was left."""
    async with ProgressStore(db_path, clock=clock) as before:
        await configure(before, clock)
        clock.set(NINE_BERLIN)
        (drop,) = (await before.tick_drops(ITEMS)).to_post
        left = await before.begin_posting(drop.drop_id)
        if open_it:
            left = await before.mark_open(drop.drop_id, 5)
    return left


async def test_restart_after_posting_never_posts_the_drop_again(
    db_path: Path, clock: FakeClock
) -> None:
    await start_posting_then_die(db_path, clock, open_it=True)
    clock.advance(minutes=1)
    async with ProgressStore(db_path, clock=clock) as after:
        assert (await after.tick_drops(ITEMS)).to_post == []


async def test_restart_mid_post_retries_with_the_same_nonce(
    db_path: Path, clock: FakeClock
) -> None:
    started = await start_posting_then_die(db_path, clock, open_it=False)
    clock.advance(seconds=40)
    async with ProgressStore(db_path, clock=clock) as after:
        (retry,) = (await after.tick_drops(ITEMS)).to_post
    assert (retry.drop_id, retry.state, retry.nonce) == (
        started.drop_id,
        DropState.POSTING,
        started.nonce,
    )


async def test_restart_mid_post_past_the_nonce_window_gives_the_drop_up(
    db_path: Path, clock: FakeClock
) -> None:
    started = await start_posting_then_die(db_path, clock, open_it=False)
    clock.advance(minutes=10)
    async with ProgressStore(db_path, clock=clock) as after:
        tick = await after.tick_drops(ITEMS)
        failures = await after.drop_failures(GUILD)
    assert (tick.to_post, [d.drop_id for d in tick.failed]) == ([], [started.drop_id])
    assert "never posted twice" in failures[0].reason


async def test_drop_missed_by_downtime_is_posted_late_within_grace(
    store: ProgressStore, clock: FakeClock
) -> None:
    await configure(store, clock)
    clock.set(NINE_BERLIN + timedelta(minutes=90))
    (drop,) = (await store.tick_drops(ITEMS, grace=timedelta(hours=2))).to_post
    await post(store, drop.drop_id)
    opened = await store.get_drop(drop.drop_id)
    assert opened.late_by_s == 90 * 60


async def test_drop_missed_past_grace_is_skipped_and_reported(
    store: ProgressStore, clock: FakeClock
) -> None:
    await configure(store, clock)
    clock.set(NINE_BERLIN + timedelta(hours=3))
    tick = await store.tick_drops(ITEMS, grace=timedelta(hours=2))
    failures = await store.drop_failures(GUILD)
    assert (tick.to_post, [d.local_date for d in tick.skipped]) == ([], [date(2025, 3, 4)])
    assert [(f.state, f.local_date) for f in failures] == [(DropState.SKIPPED, date(2025, 3, 4))]


async def test_skipped_drop_is_never_posted_later(store: ProgressStore, clock: FakeClock) -> None:
    await configure(store, clock)
    clock.set(NINE_BERLIN + timedelta(hours=3))
    await store.tick_drops(ITEMS, grace=timedelta(hours=2))
    clock.advance(minutes=5)
    assert (await store.tick_drops(ITEMS, grace=timedelta(days=1))).to_post == []


async def test_two_bots_ticking_at_once_share_one_drop(db_path: Path, clock: FakeClock) -> None:
    async with (
        ProgressStore(db_path, clock=clock) as one,
        ProgressStore(db_path, clock=clock) as two,
    ):
        await configure(one, clock)
        clock.set(NINE_BERLIN)
        ticks = await asyncio.gather(one.tick_drops(ITEMS), two.tick_drops(ITEMS))
    assert {d.drop_id for t in ticks for d in t.to_post} == {1}


async def test_opening_sets_the_reveal_time_from_guild_settings(
    store: ProgressStore, clock: FakeClock
) -> None:
    await configure(store, clock, reveal_after_hours=6.0)
    clock.set(NINE_BERLIN)
    (drop,) = (await store.tick_drops(ITEMS)).to_post
    await store.begin_posting(drop.drop_id)
    opened = await store.mark_open(drop.drop_id, 77)
    assert (opened.state, opened.message_id, opened.closes_at) == (
        DropState.OPEN,
        77,
        NINE_BERLIN + timedelta(hours=6),
    )


async def test_open_drop_is_closed_and_handed_out_for_its_reveal(
    store: ProgressStore, clock: FakeClock
) -> None:
    drop = await open_drop(store, clock)
    clock.set(drop.closes_at)
    (closing,) = (await store.tick_drops(ITEMS)).to_reveal
    assert (closing.drop_id, closing.state) == (drop.drop_id, DropState.CLOSED)


async def test_revealed_drop_is_not_handed_out_again(
    store: ProgressStore, clock: FakeClock
) -> None:
    drop = await open_drop(store, clock)
    clock.set(drop.closes_at)
    await store.tick_drops(ITEMS)
    await store.begin_reveal(drop.drop_id)
    await store.mark_revealed(drop.drop_id, 99)
    clock.advance(seconds=30)
    assert (await store.tick_drops(ITEMS)).to_reveal == []


async def test_reveal_interrupted_past_the_nonce_window_is_given_up(
    store: ProgressStore, clock: FakeClock
) -> None:
    drop = await open_drop(store, clock)
    clock.set(drop.closes_at)
    await store.tick_drops(ITEMS)
    await store.begin_reveal(drop.drop_id)
    clock.advance(minutes=10)
    tick = await store.tick_drops(ITEMS)
    assert [d.drop_id for d in tick.failed] == [drop.drop_id]


async def test_failure_reason_is_shown_in_the_failures(
    store: ProgressStore, clock: FakeClock
) -> None:
    await configure(store, clock)
    clock.set(NINE_BERLIN)
    (drop,) = (await store.tick_drops(ITEMS)).to_post
    await store.begin_posting(drop.drop_id)
    await store.mark_failed(drop.drop_id, "Missing Access: the channel was deleted")
    (failure,) = await store.drop_failures(GUILD)
    assert (failure.state, failure.reason) == (
        DropState.FAILED,
        "Missing Access: the channel was deleted",
    )


async def test_failed_drop_cannot_be_opened(store: ProgressStore, clock: FakeClock) -> None:
    await configure(store, clock)
    clock.set(NINE_BERLIN)
    (drop,) = (await store.tick_drops(ITEMS)).to_post
    await store.mark_failed(drop.drop_id, "403 Forbidden")
    with pytest.raises(DropStateError):
        await store.mark_open(drop.drop_id, 5)


async def test_kinds_filter_matching_no_item_fails_the_drop_with_a_reason(
    store: ProgressStore, clock: FakeClock
) -> None:
    await configure(store, clock, kinds=[Kind.WHY])
    clock.set(NINE_BERLIN)
    tick = await store.tick_drops([i for i in ITEMS if i.kind is not Kind.WHY])
    assert (tick.to_post, tick.failed[0].failure_reason) == (
        [],
        "no item in the bank matches the kinds filter (why)",
    )


async def test_drops_honour_the_kinds_filter(store: ProgressStore, clock: FakeClock) -> None:
    await configure(store, clock, kinds=[Kind.TRUE_FALSE])
    clock.set(NINE_BERLIN)
    items = []
    for _ in range(4):
        (drop,) = (await store.tick_drops(ITEMS)).to_post
        await post(store, drop.drop_id)
        items.append(drop.item_id)
        clock.advance(days=1)
    assert sorted(items) == ["TF1", "TF1", "TF2", "TF2"]


async def test_rotation_asks_every_item_before_repeating_one(
    store: ProgressStore, clock: FakeClock
) -> None:
    await configure(store, clock)
    clock.set(NINE_BERLIN)
    items = []
    for _ in range(len(ITEMS)):
        (drop,) = (await store.tick_drops(ITEMS)).to_post
        await post(store, drop.drop_id)
        items.append(drop.item_id)
        clock.advance(days=1)
    assert sorted(items) == sorted(i.item_id for i in ITEMS)


async def test_a_day_of_ticks_across_the_dst_change_posts_one_drop_per_day(
    store: ProgressStore, clock: FakeClock
) -> None:
    # Berlin moves to CEST in the night of 2025-03-30; drop time 02:30 falls in the gap.
    clock.set(datetime(2025, 3, 28, 12, 0, tzinfo=UTC))
    await store.save_guild_settings(guild_settings(drop_time=time(2, 30)))
    posted: dict[date, datetime] = {}
    while clock.now < datetime(2025, 4, 1, 0, 0, tzinfo=UTC):
        for drop in (await store.tick_drops(ITEMS)).to_post:
            assert drop.local_date not in posted
            await post(store, drop.drop_id)
            posted[drop.local_date] = clock.now
        clock.advance(minutes=10)
    assert sorted(posted) == [date(2025, 3, d) for d in (29, 30, 31)]


async def test_manual_drop_takes_todays_slot(store: ProgressStore, clock: FakeClock) -> None:
    await configure(store, clock)
    clock.set(NINE_BERLIN - timedelta(hours=2))  # 07:00 in Berlin
    manual = await store.create_manual_drop(GUILD, ITEMS)
    await post(store, manual.drop_id)
    clock.set(NINE_BERLIN)
    assert (manual.local_date, (await store.tick_drops(ITEMS)).to_post) == (date(2025, 3, 4), [])


async def test_second_manual_drop_on_the_same_day_is_refused(
    store: ProgressStore, clock: FakeClock
) -> None:
    await configure(store, clock)
    first = await store.create_manual_drop(GUILD, ITEMS)
    with pytest.raises(DropAlreadyExists) as refused:
        await store.create_manual_drop(GUILD, ITEMS)
    assert refused.value.drop_id == first.drop_id


async def test_manual_drop_needs_a_drop_channel(store: ProgressStore) -> None:
    with pytest.raises(DropsNotConfigured):
        await store.create_manual_drop(GUILD, ITEMS)


async def test_disabling_drops_stops_new_drops(store: ProgressStore, clock: FakeClock) -> None:
    await configure(store, clock)
    await store.save_guild_settings(guild_settings(drops_enabled=False))
    clock.set(NINE_BERLIN)
    assert (await store.tick_drops(ITEMS)).to_post == []


async def test_moving_the_drop_time_earlier_does_not_count_today_as_missed(
    store: ProgressStore, clock: FakeClock
) -> None:
    await configure(store, clock, drop_time=time(18, 0))
    clock.set(NINE_BERLIN + timedelta(hours=3))  # noon in Berlin
    await store.save_guild_settings(guild_settings(drop_time=time(9, 0)))
    tick = await store.tick_drops(ITEMS)
    assert (tick.to_post, tick.skipped) == ([], [])


async def test_drop_summary_counts_answers_by_label(store: ProgressStore, clock: FakeClock) -> None:
    drop = await open_drop(store, clock)
    on_drop = {"drop_id": drop.drop_id, "item_id": drop.item_id}
    await store.record_attempt(attempt(learner_id=ALICE, **on_drop))
    await store.record_attempt(wrong(learner_id=BOB, **on_drop))
    await store.record_attempt(wrong(learner_id=CAROL, **on_drop))
    summary = await store.drop_summary(drop.drop_id)
    shares = {s.label: (s.count, round(s.share, 3)) for s in summary.label_shares}
    assert shares == {
        Label.CORRECT: (1, 0.333),
        Label.PARTIAL: (0, 0.0),
        Label.INCORRECT: (2, 0.667),
    }


async def test_drop_summary_names_the_most_common_misconception(
    store: ProgressStore, clock: FakeClock
) -> None:
    drop = await open_drop(store, clock)
    on_drop = {"drop_id": drop.drop_id, "item_id": drop.item_id}
    await store.record_attempt(wrong(learner_id=ALICE, misconceptions=["overwrites"], **on_drop))
    await store.record_attempt(wrong(learner_id=BOB, misconceptions=["overwrites"], **on_drop))
    await store.record_attempt(wrong(learner_id=CAROL, misconceptions=["resets"], **on_drop))
    summary = await store.drop_summary(drop.drop_id)
    assert summary.most_common_misconception is not None
    assert summary.most_common_misconception.model_dump() == {
        "misconception_id": "overwrites",
        "count": 2,
    }


async def test_drop_top_scorers_are_highest_score_then_earliest(
    store: ProgressStore, clock: FakeClock
) -> None:
    drop = await open_drop(store, clock)
    on_drop = {"drop_id": drop.drop_id, "item_id": drop.item_id}
    await store.record_attempt(attempt(learner_id=ALICE, score=0.5, label=Label.PARTIAL, **on_drop))
    clock.advance(minutes=1)
    await store.record_attempt(attempt(learner_id=BOB, **on_drop))
    clock.advance(minutes=1)
    await store.record_attempt(attempt(learner_id=CAROL, **on_drop))
    summary = await store.drop_summary(drop.drop_id, top=2)
    assert [s.learner_id for s in summary.top_scorers] == [BOB, CAROL]


async def test_drop_nonce_fits_discords_limit(store: ProgressStore, clock: FakeClock) -> None:
    drop = await open_drop(store, clock)
    assert len(drop.nonce) <= 25
    assert len(drop.reveal_nonce) <= 25
    assert drop.nonce != drop.reveal_nonce
