"""``/tutor``: forget-me, export, and the admin commands (drops set/off/now, settings)."""

from __future__ import annotations

import json

from bot.content.models import Kind
from tests.discord_app.fakes import FakeStore
from tests.discord_app.harness import Harness
from tests.discord_app.helpers import custom_ids, field_values


async def _answer_why(harness: Harness) -> None:
    quiz = await harness.slash("quiz", kind="why")
    click = await harness.click(quiz.reply, "tutor:answer:WHY1:x:0")
    await harness.submit(click.modal, "the graph is freed")


async def test_forget_me_asks_for_confirmation_first(harness: Harness, store: FakeStore) -> None:
    await _answer_why(harness)
    ask = await harness.slash("tutor forget-me")
    data = ask.callback.body["data"]
    assert data["flags"] == 64
    assert [c["label"] for c in data["components"][0]["components"]] == [
        "Delete everything",
        "Cancel",
    ]
    assert len(store.attempts) == 1


async def test_confirming_forget_me_deletes_the_learners_data(
    harness: Harness, store: FakeStore
) -> None:
    await _answer_why(harness)
    ask = await harness.slash("tutor forget-me")
    confirm = await harness.click(ask.reply, custom_ids(ask.reply)[0])
    assert confirm.callback.body == {"type": 6}
    assert store.attempts == []
    edit = confirm.requests[-1]
    assert edit.route == "PATCH /webhooks/{id}/{token}/messages/@original"
    assert edit.body["content"] == "Done: deleted your 1 answers and all your progress."
    assert edit.body["components"] == []


async def test_cancelling_forget_me_keeps_everything(harness: Harness, store: FakeStore) -> None:
    await _answer_why(harness)
    ask = await harness.slash("tutor forget-me")
    cancel = await harness.click(ask.reply, custom_ids(ask.reply)[1])
    assert cancel.callback.body["type"] == 7
    assert cancel.callback.body["data"]["content"] == "Nothing was deleted."
    assert len(store.attempts) == 1


async def test_only_the_learner_who_asked_can_confirm_forget_me(
    harness: Harness, store: FakeStore
) -> None:
    await _answer_why(harness)
    ask = await harness.slash("tutor forget-me")
    other = await harness.click(ask.reply, custom_ids(ask.reply)[0], harness.other)
    assert (
        other.callback.body["data"]["content"] == "These buttons belong to the learner who asked."
    )
    assert len(store.attempts) == 1


async def test_export_sends_the_learners_data_as_a_json_file(harness: Harness) -> None:
    await _answer_why(harness)
    export = await harness.slash("tutor export")
    [(name, data)] = export.followups[0].files
    assert name == f"tutor-export-{harness.learner.id}.json"
    exported = json.loads(data)
    assert exported["learner_id"] == harness.learner.id
    assert [a["response"]["text"] for a in exported["attempts"]] == ["the graph is freed"]


async def test_admin_commands_refuse_members_without_manage_server(harness: Harness) -> None:
    done = await harness.slash("tutor settings")
    assert done.callback.body["data"]["content"] == "You need the Manage Guild permission for this."


async def test_drops_set_stores_the_schedule(harness: Harness, store: FakeStore) -> None:
    done = await harness.slash(
        "tutor drops set",
        harness.admin,
        channel=harness.place,
        time="09:30",
        timezone="Europe/Paris",
        kinds="tf, why",
        reveal_after=12,
    )
    schedule = store.guilds[harness.guild_id].drops
    assert schedule is not None
    assert schedule.channel_id == harness.place.channel_id
    assert (schedule.local_time, schedule.timezone) == ("09:30", "Europe/Paris")
    assert schedule.kinds == [Kind.TRUE_FALSE, Kind.WHY]
    assert schedule.reveal_after_hours == 12
    assert done.reply["content"] == (
        f"Daily drops on: <#{harness.place.channel_id}> at 09:30 (Europe/Paris), "
        "true_false, why, reveal after 12 h."
    )


async def test_drops_set_names_each_bad_field(harness: Harness, store: FakeStore) -> None:
    done = await harness.slash(
        "tutor drops set",
        harness.admin,
        channel=harness.place,
        time="25:00",
        timezone="Mars/Olympus",
    )
    assert done.callback.body["data"]["content"] == (
        "time: use HH:MM on a 24-hour clock, e.g. 09:30\n"
        "timezone: not an IANA time zone name (e.g. Europe/Paris, UTC)"
    )
    assert harness.guild_id not in store.guilds


async def test_drops_set_names_an_unknown_kind(harness: Harness) -> None:
    done = await harness.slash(
        "tutor drops set",
        harness.admin,
        channel=harness.place,
        time="09:00",
        timezone="UTC",
        kinds="why, riddles",
    )
    assert done.callback.body["data"]["content"].startswith("kinds: “riddles” is not a kind")


async def test_timezone_autocomplete_suggests_iana_names(harness: Harness) -> None:
    done = await harness.autocomplete(
        "tutor drops set", "timezone", channel=harness.place, time="09:00", timezone="paris"
    )
    assert done.callback.body["data"]["choices"] == [
        {"name": "Europe/Paris", "value": "Europe/Paris"}
    ]


async def test_drops_off_stops_the_schedule(harness: Harness, store: FakeStore) -> None:
    await harness.slash(
        "tutor drops set", harness.admin, channel=harness.place, time="09:00", timezone="UTC"
    )
    done = await harness.slash("tutor drops off", harness.admin)
    assert store.guilds[harness.guild_id].drops is None
    assert done.reply["content"] == "Daily drops are off."


async def test_settings_shows_the_configuration(harness: Harness) -> None:
    await harness.slash(
        "tutor drops set", harness.admin, channel=harness.place, time="09:00", timezone="UTC"
    )
    done = await harness.slash("tutor settings", harness.admin, learner_run=False)
    fields = field_values(done.reply)
    assert fields["Daily drops"] == (
        f"<#{harness.place.channel_id}> at 09:00 (UTC); all kinds; reveal after 24 h"
    )
    assert fields["Learner /run"] == "disabled"
    assert fields["Last drop failures"] == "none"
