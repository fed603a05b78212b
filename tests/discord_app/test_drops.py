"""Daily drops end to end: schedule -> post -> answer -> grade -> close -> reveal.

Time is the fake store's clock; the scheduler is ticked by hand. Discord is the fake REST
API, which honours ``enforce_nonce`` as Discord does.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from tests.discord_app.fakes import Clock, FakeStore
from tests.discord_app.harness import Harness
from tests.discord_app.helpers import custom_ids, field_values

POST = "POST /channels/{id}/messages"


async def _schedule(harness: Harness, *, at: str = "09:00", tz: str = "UTC", **extra: Any) -> None:
    await harness.slash(
        "tutor drops set", harness.admin, channel=harness.place, time=at, timezone=tz, **extra
    )


def _posts(harness: Harness) -> list[Any]:
    return harness.fake.routes(POST)


async def _post_drop(harness: Harness, clock: Clock) -> dict[str, Any]:
    """Schedule 09:00 UTC, move to 09:00:30 and tick: returns the drop message."""
    await _schedule(harness, kinds="why")
    clock.advance(timedelta(hours=1, seconds=30))
    await harness.bot.scheduler.tick()
    [message] = harness.fake.channel_messages(harness.place.channel_id)
    return message


async def test_drops_follow_the_guilds_own_time_zone(harness: Harness, clock: Clock) -> None:
    await _schedule(harness, at="09:00", tz="Europe/Paris")  # 09:00 in Paris is 08:00 UTC
    clock.advance(timedelta(minutes=-1))
    assert await harness.bot.scheduler.tick() == []
    clock.advance(timedelta(minutes=1))
    [outcome] = await harness.bot.scheduler.tick()
    assert outcome.message_id is not None


async def test_a_due_drop_is_posted_with_its_nonce_and_answer_buttons(
    harness: Harness, clock: Clock, store: FakeStore
) -> None:
    message = await _post_drop(harness, clock)
    [post] = _posts(harness)
    assert post.body["nonce"] == "drop-1"
    assert post.body["enforce_nonce"] is True
    assert post.body["allowed_mentions"] == {"parse": []}
    embed = post.body["embeds"][0]
    assert embed["title"] == "Why? · WHY1"
    assert embed["footer"] == {"text": "daily drop #1 · difficulty 2/3 · graph-lifetime"}
    closes = int(store.drops[1].closes_at.timestamp())
    assert f"Answers close <t:{closes}:R>" in embed["description"]
    assert custom_ids(message) == ["tutor:answer:WHY1:x:1"]
    assert store.drops[1].state == "open"
    assert store.drops[1].message_id == int(message["id"])


async def test_the_full_drop_answer_grade_reveal_cycle(
    harness: Harness, clock: Clock, store: FakeStore
) -> None:
    message = await _post_drop(harness, clock)
    for who, text in ((harness.learner, "the graph is freed"), (harness.other, "it resets grads")):
        click = await harness.click(message, "tutor:answer:WHY1:x:1", who)
        submit = await harness.submit(click.modal, text, who=who)
        assert submit.reply["flags"] & 64  # feedback is private: nothing leaks before the reveal
    assert [a.drop_id for a in store.attempts] == [1, 1]

    clock.advance(timedelta(hours=24))
    await harness.bot.scheduler.tick()

    [thread] = harness.fake.routes("POST /channels/{id}/messages/{id}/threads")
    assert thread.path == f"/channels/{harness.place.channel_id}/messages/{message['id']}/threads"
    assert thread.body == {
        "name": "Reveal: WHY1",
        "auto_archive_duration": 1440,
        "rate_limit_per_user": None,
    }
    reveal = _posts(harness)[-1]
    assert reveal.path == f"/channels/{message['id']}/messages"  # the thread's id is the message's
    summary, explanation, snippet = reveal.body["embeds"]
    assert summary["title"] == "Reveal · WHY1"
    assert summary["description"] == "2 answers: correct 50%, partly right 0%, not yet 50%."
    assert summary["fields"][0] == {
        "name": "Most common misconception",
        "value": "grads-reset",
        "inline": False,
    }
    assert summary["fields"][1]["value"] == (
        f"• <@{harness.learner.id}> 100%\n• <@{harness.other.id}> 0%"
    )
    assert explanation["fields"][1]["value"].startswith("||backward() frees")  # spoilered
    assert snippet["fields"][0]["value"] == "```\ntensor([2.])\n```"  # the real output
    assert store.drops[1].state == "revealed"


async def test_a_second_answer_to_the_same_drop_is_refused(harness: Harness, clock: Clock) -> None:
    message = await _post_drop(harness, clock)
    for _ in range(2):
        click = await harness.click(message, "tutor:answer:WHY1:x:1")
        submit = await harness.submit(click.modal, "the graph is freed")
    assert submit.reply["content"] == "You already answered this drop; your first answer counts."


async def test_an_answer_after_the_close_is_refused(harness: Harness, clock: Clock) -> None:
    message = await _post_drop(harness, clock)
    click = await harness.click(message, "tutor:answer:WHY1:x:1")
    clock.advance(timedelta(hours=25))
    await harness.bot.scheduler.tick()
    submit = await harness.submit(click.modal, "the graph is freed")
    assert submit.reply["content"] == "This drop is closed. The reveal is in its thread."


async def test_ticking_again_and_restarting_never_posts_a_drop_twice(
    harness: Harness, clock: Clock
) -> None:
    await _post_drop(harness, clock)
    await harness.bot.scheduler.tick()
    await harness.restart()
    clock.advance(timedelta(minutes=5))
    await harness.bot.scheduler.tick()
    assert len(_posts(harness)) == 1
    assert len(harness.fake.channel_messages(harness.place.channel_id)) == 1


async def test_a_crash_between_post_and_record_does_not_duplicate_the_drop(
    harness: Harness, clock: Clock, store: FakeStore
) -> None:
    await _schedule(harness, kinds="why")
    clock.advance(timedelta(hours=1, seconds=30))

    async def crash(drop_id: int, message_id: int) -> None:
        raise SystemExit("killed")  # the process dies right after Discord created the message

    store.mark_open = crash  # type: ignore[method-assign]
    with pytest.raises(SystemExit):
        await harness.bot.scheduler.post((await store.claim_due(clock(), timedelta(hours=3)))[0])
    del store.mark_open  # the restarted process has a working store again
    await harness.restart()
    clock.advance(timedelta(seconds=40))
    await harness.bot.scheduler.tick()
    assert len(_posts(harness)) == 2  # re-sent once, with the same nonce...
    assert len(harness.fake.channel_messages(harness.place.channel_id)) == 1  # ...so one message
    assert store.drops[1].state == "open"


async def test_a_drop_left_posting_beyond_the_nonce_window_is_failed_not_resent(
    harness: Harness, clock: Clock, store: FakeStore
) -> None:
    await _schedule(harness, kinds="why")
    clock.advance(timedelta(hours=1, seconds=30))
    await store.claim_due(clock(), timedelta(hours=3))  # claimed, then the process died
    clock.advance(timedelta(minutes=10))
    await harness.restart()
    await harness.bot.scheduler.tick()
    assert _posts(harness) == []
    assert store.drops[1].state == "failed"
    assert "not re-sent so it cannot appear twice" in (store.drops[1].reason or "")


async def test_a_drop_missed_during_downtime_is_posted_once_late_within_the_grace_window(
    harness: Harness, clock: Clock
) -> None:
    await _schedule(harness)
    clock.advance(timedelta(hours=3, minutes=30))  # back at 11:30, 2.5 h late (grace 3 h)
    await harness.bot.scheduler.tick()
    await harness.bot.scheduler.tick()
    assert len(_posts(harness)) == 1


async def test_a_drop_missed_beyond_the_grace_window_is_skipped(
    harness: Harness, clock: Clock, store: FakeStore
) -> None:
    await _schedule(harness)
    clock.advance(timedelta(hours=5))  # back at 13:00, 4 h late
    await harness.bot.scheduler.tick()
    assert _posts(harness) == []
    assert store.skipped == [(harness.place.channel_id, clock().date())]


async def test_a_missing_permission_fails_the_drop_with_the_reason_shown_in_settings(
    harness: Harness, clock: Clock, store: FakeStore
) -> None:
    await _schedule(harness)
    harness.fake.fail("POST", r"^/channels/\d+/messages$", 403)
    clock.advance(timedelta(hours=1))
    [outcome] = await harness.bot.scheduler.tick()
    assert outcome.failure is not None
    assert outcome.failure.startswith("missing permission to post in the channel (Discord 403")
    await harness.bot.scheduler.tick()  # never retried: no crash loop
    assert len(_posts(harness)) == 1
    settings = await harness.slash("tutor settings", harness.admin)
    failures = field_values(settings.reply)["Last drop failures"]
    assert failures.startswith(
        f"• #1 2025-03-03 in <#{harness.place.channel_id}>: missing permission"
    )


async def test_a_deleted_channel_fails_the_drop(
    harness: Harness, clock: Clock, store: FakeStore
) -> None:
    await _schedule(harness)
    del harness.fake.channels[harness.place.channel_id]
    clock.advance(timedelta(hours=1))
    await harness.bot.scheduler.tick()
    assert store.drops[1].state == "failed"
    assert store.drops[1].reason == "the channel no longer exists, or the bot cannot see it"


async def test_a_rate_limited_post_is_retried_and_posted_once(
    harness: Harness, clock: Clock, store: FakeStore
) -> None:
    await _schedule(harness)
    harness.fake.fail("POST", r"^/channels/\d+/messages$", 429, retry_after=0.05)
    clock.advance(timedelta(hours=1))
    await harness.bot.scheduler.tick()
    assert [r.status for r in _posts(harness)] == [429, 200]
    assert len(harness.fake.channel_messages(harness.place.channel_id)) == 1
    assert store.drops[1].state == "open"


async def test_a_500_after_discord_created_the_message_still_posts_once(
    harness: Harness, clock: Clock, store: FakeStore
) -> None:
    await _schedule(harness)
    harness.fake.fail("POST", r"^/channels/\d+/messages$", 500, apply=True)
    clock.advance(timedelta(hours=1))
    await harness.bot.scheduler.tick()  # discord.py waits 1 s, then retries with the nonce
    assert [r.status for r in _posts(harness)] == [500, 200]
    assert len(harness.fake.channel_messages(harness.place.channel_id)) == 1
    assert store.drops[1].state == "open"


async def test_the_reveal_falls_back_to_the_channel_without_thread_permission(
    harness: Harness, clock: Clock, store: FakeStore
) -> None:
    message = await _post_drop(harness, clock)
    harness.fake.fail("POST", r"/threads$", 403)
    clock.advance(timedelta(hours=24))
    await harness.bot.scheduler.tick()
    reveal = _posts(harness)[-1]
    assert reveal.path == f"/channels/{harness.place.channel_id}/messages"
    assert reveal.body["content"] == (
        f"Reveal of https://discord.com/channels/{harness.guild_id}/"
        f"{harness.place.channel_id}/{message['id']}"
    )
    assert store.drops[1].state == "revealed"


async def test_drops_now_posts_todays_drop_at_once(harness: Harness, store: FakeStore) -> None:
    await _schedule(harness)
    now = await harness.slash("tutor drops now", harness.admin)
    assert now.reply["content"] == f"Posted drop #1 in <#{harness.place.channel_id}>."
    again = await harness.slash("tutor drops now", harness.admin)
    assert again.reply["content"] == "Today's drop in that channel already exists."
    assert len(_posts(harness)) == 1
