"""Daily drops end to end: schedule -> post -> answer -> grade -> close -> reveal.

The real progress store decides what is due (a fresh SQLite file per test); time is the
services' clock; the scheduler is ticked by hand. Discord is the fake REST API, which
honours ``enforce_nonce`` and refuses a second thread on one message, as Discord does.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from bot.progress.models import Drop, DropState, ItemRef
from tests.discord_app.harness import Harness
from tests.discord_app.helpers import attempts_of, custom_ids, field_values
from tests.fake_sandbox import Clock, FakeSandboxRunner

POST = "POST /channels/{id}/messages"


async def _schedule(harness: Harness, *, at: str = "09:00", tz: str = "UTC", **extra: Any) -> None:
    await harness.slash(
        "tutor-admin drops set", harness.admin, channel=harness.place, time=at, timezone=tz, **extra
    )


def _posts(harness: Harness) -> list[Any]:
    return harness.fake.routes(POST)


async def _drop(harness: Harness, drop_id: int = 1) -> Drop:
    return await harness.services.store.get_drop(drop_id)


async def _post_drop(harness: Harness, clock: Clock) -> dict[str, Any]:
    """Schedule 09:00 UTC (WHY questions), move to 09:00:30 and tick: the drop message."""
    await _schedule(harness, kinds="why")
    clock.advance(timedelta(hours=1, seconds=30))
    await harness.bot.scheduler.tick()
    [message] = harness.fake.channel_messages(harness.place.channel_id)
    return message


async def test_drops_follow_the_guilds_own_time_zone(harness: Harness, clock: Clock) -> None:
    await _schedule(harness, at="10:00", tz="Europe/Paris")  # 10:00 in Paris is 09:00 UTC
    clock.advance(timedelta(minutes=59))
    assert await harness.bot.scheduler.tick() == []
    clock.advance(timedelta(minutes=1))
    [outcome] = await harness.bot.scheduler.tick()
    assert outcome.message_id is not None


async def test_a_due_drop_is_posted_with_its_nonce_and_answer_buttons(
    harness: Harness, clock: Clock
) -> None:
    message = await _post_drop(harness, clock)
    drop = await _drop(harness)
    [post] = _posts(harness)
    assert post.body["nonce"] == drop.nonce
    assert post.body["enforce_nonce"] is True
    assert post.body["allowed_mentions"] == {"parse": []}
    embed = post.body["embeds"][0]
    assert embed["title"] == "Why? · WHY1"
    assert embed["footer"] == {"text": "daily drop #1 · difficulty 2/3 · graph-lifetime"}
    assert drop.closes_at is not None
    assert f"Answers close <t:{int(drop.closes_at.timestamp())}:R>" in embed["description"]
    assert custom_ids(message) == ["tutor:answer:WHY1:x:1"]
    assert drop.state is DropState.OPEN
    assert drop.message_id == int(message["id"])


async def test_the_full_drop_answer_grade_reveal_cycle(harness: Harness, clock: Clock) -> None:
    message = await _post_drop(harness, clock)
    for who, text in ((harness.learner, "the graph is freed"), (harness.other, "it resets grads")):
        click = await harness.click(message, "tutor:answer:WHY1:x:1", who)
        submit = await harness.submit(click.modal, text, who=who)
        assert submit.reply["flags"] & 64  # feedback is private: nothing leaks before the reveal
    for who in (harness.learner, harness.other):
        assert [a.drop_id for a in await attempts_of(harness, who.id)] == [1]

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
    assert reveal.body["nonce"] == (await _drop(harness)).reveal_nonce
    summary, explanation, snippet = reveal.body["embeds"]
    assert summary["title"] == "Reveal · WHY1"
    assert summary["description"] == "2 answers: correct 50%, partly right 0%, not yet 50%."
    assert summary["fields"][0] == {
        "name": "Most common misconception",
        "value": "believing backward resets the gradients (1 answer)",
        "inline": False,
    }
    assert summary["fields"][1]["value"].startswith(f"• <@{harness.learner.id}> 100%\n• <@")
    assert explanation["fields"][1]["value"].startswith("||backward() frees")  # spoilered
    assert snippet["fields"][0]["value"] == "```\ntensor([2.])\n```"  # the real output
    assert (await _drop(harness)).state is DropState.REVEALED


async def test_a_second_answer_to_the_same_drop_is_refused(harness: Harness, clock: Clock) -> None:
    message = await _post_drop(harness, clock)
    for text in ("the graph is freed", "something else entirely"):
        click = await harness.click(message, "tutor:answer:WHY1:x:1")
        submit = await harness.submit(click.modal, text)
    assert submit.reply["content"] == (
        "You already answered this drop; your first answer (correct) counts."
    )
    [attempt] = await attempts_of(harness, harness.learner.id)
    assert attempt.answer_text == "the graph is freed"


async def test_an_answer_after_the_close_is_refused(harness: Harness, clock: Clock) -> None:
    message = await _post_drop(harness, clock)
    click = await harness.click(message, "tutor:answer:WHY1:x:1")
    clock.advance(timedelta(hours=25))
    await harness.bot.scheduler.tick()
    submit = await harness.submit(click.modal, "the graph is freed")
    assert submit.reply["content"] == "This drop is closed. The reveal is in its thread."
    assert await attempts_of(harness, harness.learner.id) == []


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
    harness: Harness, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _schedule(harness, kinds="why")
    clock.advance(timedelta(hours=1, seconds=30))

    async def crash(drop_id: int, message_id: int) -> None:
        raise SystemExit("killed")  # the process dies right after Discord created the message

    monkeypatch.setattr(harness.services.store, "mark_open", crash)
    with pytest.raises(SystemExit):
        await harness.bot.scheduler.tick()
    await harness.restart()  # a new process: the store is reopened on the same file
    clock.advance(timedelta(seconds=40))
    await harness.bot.scheduler.tick()
    assert len(_posts(harness)) == 2  # re-sent once, with the same nonce...
    assert len(harness.fake.channel_messages(harness.place.channel_id)) == 1  # ...so one message
    assert (await _drop(harness)).state is DropState.OPEN


async def test_a_drop_left_posting_beyond_the_nonce_window_is_failed_not_resent(
    harness: Harness, clock: Clock
) -> None:
    await _schedule(harness, kinds="why")
    clock.advance(timedelta(hours=1, seconds=30))
    store = harness.services.store
    [due] = (await store.tick_drops(ItemRef.from_items(list(harness.services.bank)))).to_post
    await store.begin_posting(due.drop_id)  # claimed, then the process died before sending
    clock.advance(timedelta(minutes=10))
    await harness.restart()
    await harness.bot.scheduler.tick()
    assert _posts(harness) == []
    drop = await _drop(harness)
    assert drop.state is DropState.FAILED
    assert drop.failure_reason == (
        "interrupted while posting; not retried, so it is never posted twice"
    )


async def test_a_drop_missed_during_downtime_is_posted_once_late_within_the_grace_window(
    harness: Harness, clock: Clock
) -> None:
    await _schedule(harness)
    clock.advance(timedelta(hours=3, minutes=30))  # back at 11:30, 2.5 h late (grace 3 h)
    await harness.bot.scheduler.tick()
    await harness.bot.scheduler.tick()
    assert len(_posts(harness)) == 1
    assert (await _drop(harness)).late_by_s == 2.5 * 3600


async def test_a_drop_missed_beyond_the_grace_window_is_skipped_and_shown_in_settings(
    harness: Harness, clock: Clock
) -> None:
    await _schedule(harness)
    clock.advance(timedelta(hours=5))  # back at 13:00, 4 h late
    await harness.bot.scheduler.tick()
    assert _posts(harness) == []
    assert (await _drop(harness)).state is DropState.SKIPPED
    settings = await harness.slash("tutor-admin settings", harness.admin)
    assert field_values(settings.reply)["Last drop failures"] == (
        f"• #1 2025-03-03 in <#{harness.place.channel_id}> (skipped): missed by 4.0 h "
        "(the bot was offline past the grace window)"
    )


async def test_a_missing_permission_fails_the_drop_with_the_reason_shown_in_settings(
    harness: Harness, clock: Clock
) -> None:
    await _schedule(harness)
    harness.fake.fail("POST", r"^/channels/\d+/messages$", 403)
    clock.advance(timedelta(hours=1))
    [outcome] = await harness.bot.scheduler.tick()
    assert outcome.failure is not None
    assert outcome.failure.startswith("missing permission to post in the channel (Discord 403")
    await harness.bot.scheduler.tick()  # never retried: no crash loop
    assert len(_posts(harness)) == 1
    settings = await harness.slash("tutor-admin settings", harness.admin)
    failures = field_values(settings.reply)["Last drop failures"]
    assert failures.startswith(
        f"• #1 2025-03-03 in <#{harness.place.channel_id}>: missing permission"
    )


async def test_a_deleted_channel_fails_the_drop(harness: Harness, clock: Clock) -> None:
    await _schedule(harness)
    del harness.fake.channels[harness.place.channel_id]
    clock.advance(timedelta(hours=1))
    await harness.bot.scheduler.tick()
    drop = await _drop(harness)
    assert drop.state is DropState.FAILED
    assert drop.failure_reason == "the channel no longer exists, or the bot cannot see it"


async def test_a_rate_limited_post_is_retried_and_posted_once(
    harness: Harness, clock: Clock
) -> None:
    await _schedule(harness)
    harness.fake.fail("POST", r"^/channels/\d+/messages$", 429, retry_after=0.05)
    clock.advance(timedelta(hours=1))
    await harness.bot.scheduler.tick()
    assert [r.status for r in _posts(harness)] == [429, 200]
    assert len(harness.fake.channel_messages(harness.place.channel_id)) == 1
    assert (await _drop(harness)).state is DropState.OPEN


async def test_a_500_after_discord_created_the_message_still_posts_once(
    harness: Harness, clock: Clock
) -> None:
    await _schedule(harness)
    harness.fake.fail("POST", r"^/channels/\d+/messages$", 500, apply=True)
    clock.advance(timedelta(hours=1))
    await harness.bot.scheduler.tick()  # discord.py waits 1 s, then retries with the nonce
    assert [r.status for r in _posts(harness)] == [500, 200]
    assert len(harness.fake.channel_messages(harness.place.channel_id)) == 1
    assert (await _drop(harness)).state is DropState.OPEN


async def test_the_reveal_falls_back_to_the_channel_without_thread_permission(
    harness: Harness, clock: Clock
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
    assert (await _drop(harness)).state is DropState.REVEALED


async def test_a_reveal_interrupted_by_a_crash_is_posted_once_in_the_same_thread(
    harness: Harness, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    message = await _post_drop(harness, clock)
    clock.advance(timedelta(hours=24))

    async def crash(drop_id: int, message_id: int) -> None:
        raise SystemExit("killed")  # the reveal is in the thread; the store never heard

    monkeypatch.setattr(harness.services.store, "mark_revealed", crash)
    with pytest.raises(SystemExit):
        await harness.bot.scheduler.tick()
    await harness.restart()
    clock.advance(timedelta(seconds=30))
    await harness.bot.scheduler.tick()
    threads = harness.fake.routes("POST /channels/{id}/messages/{id}/threads")
    assert [r.status for r in threads] == [201, 400]  # the second finds the thread made
    assert len(harness.fake.channel_messages(int(message["id"]))) == 1  # one reveal in it
    assert (await _drop(harness)).state is DropState.REVEALED


async def test_drops_now_posts_todays_drop_at_once(harness: Harness) -> None:
    await _schedule(harness)
    now = await harness.slash("tutor-admin drops now", harness.admin)
    assert now.reply["content"] == f"Posted drop #1 in <#{harness.place.channel_id}>."
    again = await harness.slash("tutor-admin drops now", harness.admin)
    assert again.reply["content"] == (
        f"Today's drop in <#{harness.place.channel_id}> already exists (#1)."
    )
    assert len(_posts(harness)) == 1


async def test_drops_now_while_drops_are_off_says_how_to_turn_them_on(harness: Harness) -> None:
    now = await harness.slash("tutor-admin drops now", harness.admin)
    assert now.reply["content"] == (
        "Daily drops are off here; set them up with `/tutor-admin drops set`."
    )
    assert _posts(harness) == []


async def test_a_manual_drop_takes_the_days_slot(harness: Harness, clock: Clock) -> None:
    await _schedule(harness)  # 09:00 UTC; it is 08:00
    await harness.slash("tutor-admin drops now", harness.admin)
    clock.advance(timedelta(hours=2))
    await harness.bot.scheduler.tick()
    assert len(_posts(harness)) == 1


async def test_a_reveal_with_the_sandbox_down_shows_the_recorded_output(
    harness: Harness, clock: Clock, sandbox: FakeSandboxRunner
) -> None:
    await _post_drop(harness, clock)
    sandbox.mode = "down"
    clock.advance(timedelta(hours=24))
    await harness.bot.scheduler.tick()
    snippet = _posts(harness)[-1].body["embeds"][2]
    assert snippet["fields"][0] == {
        "name": "Output recorded with torch 2.13.0",
        "value": "```\ntensor([2.])\n```",
        "inline": False,
    }
    assert (await _drop(harness)).state is DropState.REVEALED


async def test_answer_texts_past_the_retention_period_are_removed_daily(
    harness: Harness, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    message = await _post_drop(harness, clock)
    click = await harness.click(message, "tutor:answer:WHY1:x:1")
    await harness.submit(click.modal, "the graph is freed")
    monkeypatch.setattr(harness.services.store, "answer_retention_days", 1)
    clock.advance(timedelta(hours=23))
    await harness.bot.scheduler.tick()
    [kept] = await attempts_of(harness, harness.learner.id)
    assert kept.answer_text == "the graph is freed"  # not a day since the last purge yet
    clock.advance(timedelta(days=2))
    await harness.bot.scheduler.tick()
    [purged] = await attempts_of(harness, harness.learner.id)
    assert purged.answer_text is None
    assert purged.label == "correct"  # the grade stays
