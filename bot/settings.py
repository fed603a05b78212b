"""Settings for the bot process, read from the environment (prefix ``TUTOR_``) and ``.env``.

Built once, in the composition root (``tutor bot``), and passed into the bot by constructor;
nothing here is created at import time. Every field is documented in docs/DISCORD.md.

Example ``.env``::

    TUTOR_DISCORD_TOKEN=MTIz...        # the bot token (Developer Portal -> Bot -> Reset Token)
    TUTOR_DEV_GUILD_ID=123456789012345678
    TUTOR_SANDBOX_ADDRESS=unix:/run/tutor-sandbox/sandbox.sock
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR"]


class TutorSettings(BaseSettings):
    """Everything the bot process can be configured with.

    Attributes:
        discord_token: the bot token; required by ``tutor bot``, never logged or shown.
        dev_guild_id: when set, ``tutor bot --sync`` syncs commands to this guild only
            (instant) instead of globally (Discord may take up to an hour to propagate).
        database_path: the SQLite file of the progress store.
        sandbox_address: where the sandbox worker listens: ``unix:/path/to.sock`` or
            ``http://host:port``.
        sandbox_timeout_s: how long the bot waits for one sandbox run, in seconds.
        content_dir: the directory of question packs (``*.yaml``).
        log_level: the root log level.
        drop_grace_minutes: a daily drop missed during downtime is still posted (late) when
            the bot is back within this many minutes of its scheduled time; later it is
            skipped and logged.
        drop_tick_s: how often the drop scheduler asks the store what is due, in seconds.
        run_cooldown_s: seconds a learner waits between two ``/run`` jobs.
    """

    model_config = SettingsConfigDict(
        env_prefix="TUTOR_",
        env_file=".env",
        env_file_encoding="utf-8",
        # The sandbox service reads its own TUTOR_SANDBOX_* variables from the same .env.
        extra="ignore",
        frozen=True,
    )

    discord_token: SecretStr | None = Field(None, description="The bot token.")
    dev_guild_id: int | None = Field(None, gt=0, description="Guild to sync commands to.")
    database_path: Path = Field(Path("data/tutor.db"), description="SQLite file.")
    sandbox_address: str = Field(
        "http://127.0.0.1:8060", description="unix:/path.sock or http://host:port"
    )
    sandbox_timeout_s: float = Field(15.0, gt=0, le=120, description="Seconds per run.")
    content_dir: Path = Field(Path("content"), description="Question packs.")
    log_level: LogLevel = "INFO"
    drop_grace_minutes: int = Field(180, ge=0, le=24 * 60, description="Late-post window.")
    drop_tick_s: float = Field(30.0, ge=1, le=600, description="Scheduler period.")
    run_cooldown_s: float = Field(20.0, ge=0, le=3600, description="Seconds between /run.")

    @field_validator("sandbox_address")
    @classmethod
    def _address_scheme(cls, value: str) -> str:
        if not (value.startswith("unix:") or value.startswith(("http://", "https://"))):
            raise ValueError(
                f"sandbox_address must be unix:/path/to.sock or http://host:port, got {value!r}"
            )
        return value

    @property
    def drop_grace(self) -> timedelta:
        """:attr:`drop_grace_minutes` as a timedelta."""
        return timedelta(minutes=self.drop_grace_minutes)
