"""``/tutor-admin``: drops set/off/now and settings, for members with Manage Server."""

from __future__ import annotations

from datetime import time

from bot.content.models import Kind
from tests.discord_app.harness import Harness
from tests.discord_app.helpers import field_values


async def _drops_set(harness: Harness, **values: object) -> None:
    await harness.slash(
        "tutor-admin drops set",
        harness.admin,
        channel=harness.place,
        **{"time": "09:00", "timezone": "UTC", **values},
    )


async def test_admin_commands_refuse_members_without_manage_server(harness: Harness) -> None:
    done = await harness.slash("tutor-admin settings")
    assert (
        done.callback.body["data"]["content"] == "You need the Manage Server permission for this."
    )


async def test_drops_set_is_refused_without_manage_server_and_stores_nothing(
    harness: Harness,
) -> None:
    done = await harness.slash(
        "tutor-admin drops set", channel=harness.place, time="09:00", timezone="UTC"
    )
    assert done.callback.body["data"]["flags"] == 64
    assert not (await harness.services.store.get_guild_settings(harness.guild_id)).drops_enabled


async def test_drops_set_stores_the_schedule(harness: Harness) -> None:
    done = await harness.slash(
        "tutor-admin drops set",
        harness.admin,
        channel=harness.place,
        time="09:30",
        timezone="Europe/Paris",
        kinds="tf, why",
        reveal_after=12,
    )
    saved = await harness.services.store.get_guild_settings(harness.guild_id)
    assert saved.drops_enabled
    assert saved.drop_channel_id == harness.place.channel_id
    assert (saved.drop_time, saved.time_zone) == (time(9, 30), "Europe/Paris")
    assert saved.kinds == [Kind.TRUE_FALSE, Kind.WHY]
    assert saved.reveal_after_hours == 12
    assert done.reply["content"] == (
        f"Daily drops on: <#{harness.place.channel_id}> at 09:30 (Europe/Paris), "
        "true_false, why, reveal after 12 h."
    )


async def test_drops_set_names_each_bad_field(harness: Harness) -> None:
    done = await harness.slash(
        "tutor-admin drops set",
        harness.admin,
        channel=harness.place,
        time="25:00",
        timezone="Mars/Olympus",
    )
    assert done.callback.body["data"]["content"] == (
        "time: use HH:MM on a 24-hour clock, e.g. 09:30\n"
        "timezone: unknown IANA time zone 'Mars/Olympus' (e.g. 'Europe/Berlin', 'UTC')"
    )
    assert not (await harness.services.store.get_guild_settings(harness.guild_id)).drops_enabled


async def test_drops_set_names_an_unknown_kind(harness: Harness) -> None:
    done = await harness.slash(
        "tutor-admin drops set",
        harness.admin,
        channel=harness.place,
        time="09:00",
        timezone="UTC",
        kinds="why, riddles",
    )
    assert done.callback.body["data"]["content"].startswith("kinds: “riddles” is not a kind")


async def test_drops_set_keeps_the_learner_run_switch(harness: Harness) -> None:
    await harness.slash("tutor-admin settings", harness.admin, learner_run=False)
    await _drops_set(harness)
    assert not (await harness.services.store.get_guild_settings(harness.guild_id)).run_enabled


async def test_timezone_autocomplete_suggests_iana_names(harness: Harness) -> None:
    done = await harness.autocomplete(
        "tutor-admin drops set", "timezone", channel=harness.place, time="09:00", timezone="paris"
    )
    assert done.callback.body["data"]["choices"] == [
        {"name": "Europe/Paris", "value": "Europe/Paris"}
    ]


async def test_drops_off_stops_the_schedule(harness: Harness) -> None:
    await _drops_set(harness)
    done = await harness.slash("tutor-admin drops off", harness.admin)
    assert not (await harness.services.store.get_guild_settings(harness.guild_id)).drops_enabled
    assert done.reply["content"] == "Daily drops are off."


async def test_settings_shows_the_configuration(harness: Harness) -> None:
    await _drops_set(harness)
    done = await harness.slash("tutor-admin settings", harness.admin, learner_run=False)
    fields = field_values(done.reply)
    assert fields["Daily drops"] == (
        f"<#{harness.place.channel_id}> at 09:00 (UTC); all kinds; reveal after 24 h"
    )
    assert fields["Learner /run"] == "disabled"
    assert fields["Last drop failures"] == "none"
