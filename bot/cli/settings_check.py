"""The one way every ``tutor`` command reads its ``TUTOR_*`` settings and reports bad ones.

Each command reads only the settings class it uses (see :data:`SETTINGS_READ`), through
:func:`read_settings`: a bad value is one line naming the variable (or the flag that gave
it) and what is wrong, and the command exits 2 (fresh8 #6: ``tutor stats`` printed them
differently from ``tutor play``, and ``tutor bot`` without its name).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any, Final, TypeVar

from pydantic import ValidationError
from pydantic_settings import BaseSettings

from bot.settings import error_text, setting_name

S = TypeVar("S", bound=BaseSettings)

SETTINGS_READ: Final[dict[str, str]] = {
    "play, health, bot": "every front-end one (bot.settings.TutorSettings); the worker's "
    "TUTOR_SANDBOX_* ones too when they start a local worker",
    "bot --sync": "TUTOR_DISCORD_TOKEN, TUTOR_DEV_GUILD_ID and TUTOR_LOG_LEVEL only",
    "stats": "TUTOR_DATABASE_PATH, TUTOR_ANSWER_RETENTION_DAYS, TUTOR_DB_*, TUTOR_CONTENT_DIR"
    " and, without --learner, TUTOR_PLAY_LEARNER_ID",
    "content, grade": "TUTOR_CONTENT_DIR only (content verify: TUTOR_SANDBOX_* too)",
    "sandbox": "the worker's TUTOR_SANDBOX_* ones only",
}
"""Which settings each command reads, and so checks (shown by ``tutor --help``): a bad
value of a setting a command does not read does not stop it."""


class SettingsRefused(Exception):
    """A command's settings were refused and each problem already printed (one line each,
    naming the command and the variable): :func:`bot.cli.main` exits 2 on it."""


def settings_problems(
    exc: ValidationError,
    given: Mapping[str, Any],
    flags: Mapping[str, str],
    env_prefix: str = "TUTOR_",
) -> list[str]:
    """One line per bad value of a settings class: ``NAME: message``.

    Args:
        exc: the error raised by the settings class.
        given: the fields that came from flags (the rest came from the environment/.env).
        flags: each such field's flag (``{"database_path": "--db"}``).
        env_prefix: the class's variable prefix (``TUTOR_``).

    Returns:
        Lines such as ``TUTOR_DROP_TICK_S: Input should be greater than or equal to 1`` or
        ``--db: the directory 'x' does not exist: ...`` (pydantic's ``Value error, `` prefix
        stripped: :func:`bot.settings.error_text`).
    """
    named = {field: flag for field, flag in flags.items() if field in given}
    return [
        f"{setting_name(err, named, env_prefix, 'settings')}: {error_text(err)}"
        for err in exc.errors()
    ]


def read_settings(
    cls: type[S],
    prog: str,
    overrides: Mapping[str, Any] | None = None,
    flags: Mapping[str, str] | None = None,
    messages: Mapping[str, str] | None = None,
) -> S | None:
    """Build the settings class ``cls`` (environment, then ``.env``, then ``overrides``).

    Args:
        cls: :class:`~bot.settings.TutorSettings`, :class:`~bot.progress.settings.
            ProgressSettings`...
        prog: the command, prefixed to each line (``tutor stats``).
        overrides: field values given by flags, e.g. ``{"database_path": Path("x.db")}``.
        flags: each overridable field's flag, for the messages.
        messages: a message to show instead of pydantic's for a field given by its flag
            (``tutor play --sandbox`` also takes ``off``, which the variable does not).

    Returns:
        The settings, or None after printing one line per bad value on stderr
        (``tutor stats: TUTOR_DB_SYNCHRONOUS: Input should be 'NORMAL' or 'FULL'``): the
        command then exits 2.
    """
    given = dict(overrides or {})
    names = dict(flags or {})
    try:
        return cls(**given)
    except ValidationError as exc:
        prefix = str(cls.model_config.get("env_prefix") or "")
        lines = settings_problems(exc, given, names, prefix)
        for err, line in zip(exc.errors(), lines, strict=True):
            field = str(err["loc"][0]) if err["loc"] else ""
            if messages and field in given and field in messages:
                line = f"{names.get(field, field)}: {messages[field]}"
            print(f"{prog}: {line}", file=sys.stderr)
        return None


def known_setting_names() -> frozenset[str]:
    """Every ``TUTOR_*`` variable some settings class reads (the front ends', the progress
    store's and the sandbox worker's), upper case."""
    from bot.progress.settings import ProgressSettings
    from bot.settings import ContentSettings, TutorSettings
    from sandbox.settings import SandboxSettings

    names: set[str] = set()
    for cls in (TutorSettings, ProgressSettings, ContentSettings, SandboxSettings):
        prefix = str(cls.model_config.get("env_prefix") or "")
        names.update(prefix.upper() + field.upper() for field in cls.model_fields)
    return frozenset(names)
