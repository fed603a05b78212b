"""Exactly one drop per (channel, local date) over days of restarts, downtime and crashes.

Eight days of a New York study group (across the 9 March 2025 switch to daylight time),
ticked every 30 minutes while the bot is up, restarted every day, with downtime shorter and
longer than the grace window and a crash between Discord creating the message and the
store recording it. Afterwards every local date has exactly one drop: posted once (one
message), or skipped/failed and listed for ``/tutor-admin settings``. None is posted twice
and none is missed silently.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.progress.errors import UnknownDrop
from bot.progress.models import Drop, DropState
from tests.discord_app.harness import Harness
from tests.discord_app.helpers import field_values
from tests.fake_sandbox import Clock

ZONE = ZoneInfo("America/New_York")
FIRST_DAY = date(2025, 3, 6)
DAYS = 8
STEP = timedelta(minutes=30)

# Per day (by index): when the bot is down, in local wall-clock hours, and whether the post
# crashes after Discord created the message.
DOWN_LOCAL_HOURS: dict[int, tuple[float, float]] = {
    1: (8.0, 10.5),  # back 1.5 h late: posted late (grace 3 h)
    2: (8.0, 13.0),  # back 4 h late: skipped
    5: (8.0, 10.5),
    6: (8.0, 13.0),
}
CRASH_DAYS = {3, 7}  # killed between Discord's answer and mark_open; back a minute later
FOOTER = re.compile(r"^daily drop #(\d+) ")


def _local(day: int, hours: float) -> datetime:
    moment = datetime.combine(FIRST_DAY + timedelta(days=day), time(0), tzinfo=ZONE)
    return (moment + timedelta(hours=hours)).astimezone(UTC)


def _down_at(moment: datetime) -> bool:
    for day, (start, end) in DOWN_LOCAL_HOURS.items():
        if _local(day, start) <= moment < _local(day, end):
            return True
    return False


async def _all_drops(harness: Harness) -> list[Drop]:
    drops = []
    for drop_id in range(1, 100):
        try:
            drops.append(await harness.services.store.get_drop(drop_id))
        except UnknownDrop:
            return drops
    raise AssertionError("more drops than days")


async def test_one_drop_per_local_date_across_restarts_downtime_and_crashes(
    harness: Harness, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock.now = _local(-1, 12)  # set up the day before
    await harness.slash(
        "tutor-admin drops set",
        harness.admin,
        channel=harness.place,
        time="09:00",
        timezone="America/New_York",
        reveal_after=12,
    )
    was_down = False
    end = _local(DAYS, 8)  # before the ninth day's drop
    while clock.now < end:
        day = (clock.now.astimezone(ZONE).date() - FIRST_DAY).days
        if _down_at(clock.now):
            was_down = True
        else:
            if was_down or (clock.now.astimezone(ZONE).hour == 15 and clock.now.minute == 0):
                await harness.restart()  # back from downtime, or the daily restart
                was_down = False
            crash_now = day in CRASH_DAYS and _local(day, 9) == clock.now
            if crash_now:

                async def crash(drop_id: int, message_id: int) -> None:
                    raise SystemExit("killed after Discord created the message")

                monkeypatch.setattr(harness.services.store, "mark_open", crash)
                with pytest.raises(SystemExit):
                    await harness.bot.scheduler.tick()
                clock.advance(timedelta(minutes=1))
                await harness.restart()  # the new process ticks as soon as it is up
                await harness.bot.scheduler.tick()
                clock.advance(STEP - timedelta(minutes=1))
                continue
            await harness.bot.scheduler.tick()
        clock.advance(STEP)

    drops = await _all_drops(harness)
    by_date = Counter(d.local_date for d in drops)
    expected_dates = [FIRST_DAY + timedelta(days=n) for n in range(DAYS)]
    assert sorted(by_date) == expected_dates
    assert set(by_date.values()) == {1}  # one drop per local date, whatever happened
    assert {d.scheduled_for.astimezone(ZONE).time() for d in drops} == {time(9)}  # DST-safe

    messages = Counter(
        int(match[1])
        for m in harness.fake.channel_messages(harness.place.channel_id)
        for e in m["embeds"]
        if (match := FOOTER.match((e.get("footer") or {}).get("text", "")))
    )
    posted = [d for d in drops if d.state in (DropState.OPEN, DropState.CLOSED, DropState.REVEALED)]
    assert {d.drop_id: messages[d.drop_id] for d in posted} == {d.drop_id: 1 for d in posted}
    assert sum(messages.values()) == len(posted)  # 0 duplicates

    missed = [d for d in drops if d.state in (DropState.SKIPPED, DropState.FAILED)]
    listed = await harness.services.store.drop_failures(harness.guild_id, limit=25)
    assert {d.drop_id for d in missed} == {f.drop_id for f in listed}  # 0 missed silently
    assert [d.local_date for d in missed] == [FIRST_DAY + timedelta(days=n) for n in (2, 6)]
    late = {d.local_date: round(d.late_by_s / 3600, 1) for d in posted if d.late_by_s > 600}
    assert late == {FIRST_DAY + timedelta(days=1): 1.5, FIRST_DAY + timedelta(days=5): 1.5}
    assert all(d.state is DropState.REVEALED for d in posted[:-1])  # each closed and revealed

    settings = await harness.slash("tutor-admin settings", harness.admin)
    shown = field_values(settings.reply)["Last drop failures"]
    for drop in missed:
        assert f"#{drop.drop_id} {drop.local_date} " in shown
