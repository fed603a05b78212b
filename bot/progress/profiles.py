"""Learner profiles and guild settings: read with defaults, saved by upsert.

Functions take the store's ``Database`` and run on its owner thread (see
:mod:`bot.progress.store`); ``now`` is passed in, never read here.
"""

from __future__ import annotations

import json
from datetime import datetime, time
from typing import Any

from bot.content.models import Kind
from bot.progress.db import Database, dumps, ts, write_transaction
from bot.progress.models import GuildSettings, LearnerProfile, LearnerSettings

_SCHEDULE_FIELDS = ("drops_enabled", "drop_channel_id", "drop_time", "time_zone")


def get_learner(db: Database, learner_id: int) -> LearnerProfile:
    """The learner's profile, or the defaults (UTC, visible) if none is stored."""
    row = db.execute(
        "SELECT time_zone, settings FROM learners WHERE learner_id = ?", [learner_id]
    ).fetchone()
    if row is None:
        return LearnerProfile(learner_id=learner_id)
    return LearnerProfile(
        learner_id=learner_id,
        time_zone=row[0],
        settings=LearnerSettings.model_validate_json(row[1]),
    )


def save_learner(db: Database, profile: LearnerProfile, now: datetime) -> LearnerProfile:
    """Create or update a learner's time zone and settings.

    A new time zone applies to attempts from now on; days already counted keep the date
    they had when recorded.
    """
    with write_transaction(db):
        db.execute(
            """
            INSERT INTO learners (learner_id, time_zone, settings, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (learner_id) DO UPDATE SET
                time_zone = excluded.time_zone,
                settings = excluded.settings,
                updated_at = excluded.updated_at
            """,
            [
                profile.learner_id,
                profile.time_zone,
                profile.settings.model_dump_json(),
                ts(now),
                ts(now),
            ],
        )
    return profile


def ensure_learner(db: Database, learner_id: int, now: datetime) -> str:
    """Create the learner with defaults if missing (inside the caller's transaction).

    Returns:
        The learner's IANA time zone.
    """
    row = db.execute("SELECT time_zone FROM learners WHERE learner_id = ?", [learner_id]).fetchone()
    if row is not None:
        return str(row[0])
    db.execute(
        "INSERT INTO learners (learner_id, created_at, updated_at) VALUES (?, ?, ?)",
        [learner_id, ts(now), ts(now)],
    )
    return LearnerProfile(learner_id=learner_id).time_zone


_GUILD_COLUMNS = (
    "time_zone, drops_enabled, drop_channel_id, drop_time, kinds, reveal_after_hours, "
    "run_enabled, drops_since"
)


def _guild_from_row(guild_id: int, row: Any) -> GuildSettings:
    return GuildSettings(
        guild_id=guild_id,
        time_zone=row[0],
        drops_enabled=bool(row[1]),
        drop_channel_id=row[2],
        drop_time=time.fromisoformat(row[3]) if row[3] is not None else None,
        kinds=[Kind(k) for k in json.loads(row[4])],
        reveal_after_hours=row[5],
        run_enabled=bool(row[6]),
    )


def get_guild_settings(db: Database, guild_id: int) -> GuildSettings:
    """The guild's settings, or the defaults (drops off, UTC, /run on) if none are stored."""
    row = db.execute(
        f"SELECT {_GUILD_COLUMNS} FROM guilds WHERE guild_id = ?", [guild_id]
    ).fetchone()
    if row is None:
        return GuildSettings(guild_id=guild_id)
    return _guild_from_row(guild_id, row)


def save_guild_settings(db: Database, settings: GuildSettings, now: datetime) -> GuildSettings:
    """Create or replace a guild's settings.

    When the schedule changes (enabled, channel, time or time zone) it restarts from
    ``now``: a drop time already past today is not counted as missed. A channel keeps at
    most one drop per local date whatever the changes.
    """
    with write_transaction(db):
        old = db.execute(
            f"SELECT {_GUILD_COLUMNS} FROM guilds WHERE guild_id = ?", [settings.guild_id]
        ).fetchone()
        since = ts(now)
        if old is not None and old[7] is not None:
            before = _guild_from_row(settings.guild_id, old)
            unchanged = all(getattr(before, f) == getattr(settings, f) for f in _SCHEDULE_FIELDS)
            if unchanged:
                since = str(old[7])
        db.execute(
            """
            INSERT INTO guilds (guild_id, time_zone, drops_enabled, drop_channel_id, drop_time,
                                kinds, reveal_after_hours, run_enabled, drops_since, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (guild_id) DO UPDATE SET
                time_zone = excluded.time_zone,
                drops_enabled = excluded.drops_enabled,
                drop_channel_id = excluded.drop_channel_id,
                drop_time = excluded.drop_time,
                kinds = excluded.kinds,
                reveal_after_hours = excluded.reveal_after_hours,
                run_enabled = excluded.run_enabled,
                drops_since = excluded.drops_since,
                updated_at = excluded.updated_at
            """,
            [
                settings.guild_id,
                settings.time_zone,
                int(settings.drops_enabled),
                settings.drop_channel_id,
                settings.drop_time.strftime("%H:%M") if settings.drop_time else None,
                dumps([k.value for k in settings.kinds]),
                settings.reveal_after_hours,
                int(settings.run_enabled),
                since,
                ts(now),
            ],
        )
    return settings
