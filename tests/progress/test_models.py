"""Validation at the store's boundary: time zones, guild schedules, attempt limits."""

from __future__ import annotations

from datetime import time

import pytest
from pydantic import ValidationError

from bot.progress.models import GuildSettings, LearnerProfile
from tests.progress.conftest import ALICE, GUILD, attempt


def test_unknown_time_zone_is_refused_by_name() -> None:
    with pytest.raises(ValidationError, match="unknown IANA time zone 'Europe/Berln'"):
        LearnerProfile(learner_id=ALICE, time_zone="Europe/Berln")


def test_time_zone_path_tricks_are_refused() -> None:
    with pytest.raises(ValidationError, match="unknown IANA time zone"):
        LearnerProfile(learner_id=ALICE, time_zone="../../etc/passwd")


def test_enabling_drops_needs_a_channel_and_a_time() -> None:
    with pytest.raises(ValidationError, match="needs both drop_channel_id and drop_time"):
        GuildSettings(guild_id=GUILD, drops_enabled=True, drop_time=time(9, 0))


def test_drop_time_is_a_wall_clock_minute() -> None:
    with pytest.raises(ValidationError, match="without seconds"):
        GuildSettings(guild_id=GUILD, drop_time=time(9, 0, 30))


def test_reveal_delay_is_bounded() -> None:
    with pytest.raises(ValidationError, match="reveal_after_hours"):
        GuildSettings(guild_id=GUILD, reveal_after_hours=0)


def test_an_attempt_on_a_drop_needs_its_guild() -> None:
    with pytest.raises(ValidationError, match="needs the drop's guild_id"):
        attempt(guild_id=None, drop_id=3)


def test_answer_text_longer_than_a_discord_modal_is_refused() -> None:
    with pytest.raises(ValidationError, match="answer_text"):
        attempt(answer_text="x" * 4001)


def test_a_discord_id_must_be_positive() -> None:
    with pytest.raises(ValidationError, match="learner_id"):
        attempt(learner_id=0)
