"""Configuration of the progress store, from ``TUTOR_*`` environment variables, then ``.env``.

Built once by the composition root (``tutor bot``, ``tutor play``, ``tutor stats``) and
passed to :meth:`bot.progress.store.ProgressStore.from_settings`; never read at import time.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, field_validator

from bot.progress.options import DEFAULT_BUSY_TIMEOUT_S, Synchronous
from bot.settings import TUTOR_ENV, TutorBaseSettings, check_database_path, refuse_empty_path


class ProgressSettings(TutorBaseSettings):
    """Where the progress database lives and how long answer texts are kept.

    Attributes:
        database_path: the SQLite file (``TUTOR_DATABASE_PATH``, default ``data/tutor.db``).
        answer_retention_days: days a learner's free-text answer is kept before it is
            removed (scores stay); 0 stores no answer text at all
            (``TUTOR_ANSWER_RETENTION_DAYS``, default 90).
        db_busy_timeout_s: seconds a write waits for another process's lock
            (``TUTOR_DB_BUSY_TIMEOUT_S``, default 5).
        db_synchronous: ``NORMAL`` (a killed process loses nothing acknowledged) or ``FULL``
            (also survives power loss, slower) (``TUTOR_DB_SYNCHRONOUS``).
    """

    # The same sources as every TUTOR_* settings class (environment, then .env: the
    # environment wins even when empty), so `tutor stats` reads the database `tutor play`
    # and the bot write (fresh6 #2: it ignored .env; fresh22 #9: an empty variable).
    model_config = TUTOR_ENV

    database_path: Path = Path("data/tutor.db")
    answer_retention_days: int = Field(90, ge=0, le=36500)
    db_busy_timeout_s: float = Field(DEFAULT_BUSY_TIMEOUT_S, ge=0, le=600)
    db_synchronous: Synchronous = "NORMAL"

    @field_validator("database_path", mode="before")
    @classmethod
    def _not_empty(cls, value: object) -> object:
        return refuse_empty_path(value)

    @field_validator("database_path")
    @classmethod
    def _usable_path(cls, value: Path) -> Path:
        return check_database_path(value)
