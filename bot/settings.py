"""Settings of the tutor's front ends, read from the environment (prefix ``TUTOR_``) and ``.env``.

One class for ``tutor bot`` and ``tutor play``: built once in the composition root and
passed into :func:`bot.services.open_services` and the bot by constructor; nothing here is
created at import time. Every field is documented in docs/DISCORD.md (settings table).

Example ``.env``::

    TUTOR_DISCORD_TOKEN=MTIz...        # the bot token (Developer Portal -> Bot -> Reset Token)
    TUTOR_DEV_GUILD_ID=123456789012345678
    TUTOR_SANDBOX_ADDRESS=unix:/run/tutor-sandbox/sandbox.sock   # default "local"
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Collection, Mapping
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Final, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, SecretStr, field_validator
from pydantic_settings import (
    BaseSettings,
    DotEnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from bot.files import not_utf8_byte
from bot.progress.options import DEFAULT_BUSY_TIMEOUT_S, Synchronous

if TYPE_CHECKING:
    from dotenv.parser import Binding

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR"]

DEFAULT_DATABASE_PATH = Path("data/tutor.db")
"""The progress database when ``TUTOR_DATABASE_PATH`` is unset; its ``data/`` directory is
created on first use, unlike any other path's."""

DEFAULT_CONTENT_DIR = Path("content")
"""The question packs' directory when ``TUTOR_CONTENT_DIR`` is unset."""

LOCAL_SANDBOX = "local"
"""The sandbox address meaning "start a sandbox worker as a child process" (the default)."""


class SandboxEndpoint(BaseModel):
    """Where the sandbox worker is, parsed from ``TUTOR_SANDBOX_ADDRESS``.

    Attributes:
        kind: ``local`` (start a worker as a child process on a private Unix socket),
            ``unix`` (a running worker's socket) or ``http`` (a running worker's URL).
        unix_path: the socket, for ``unix``.
        url: the base URL, for ``http`` (``http://host:port`` or ``https://...``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["local", "unix", "http"]
    unix_path: Path | None = None
    url: str | None = None


ENV_FILE: Final = Path(".env")
"""The settings file every ``TUTOR_*`` settings class reads, relative to the working
directory (after the environment, which wins)."""


ENV_FILE_ENCODING: Final = "utf-8-sig"
"""How ``.env`` is decoded: UTF-8, with a leading byte-order mark (Windows Notepad writes
one) dropped rather than glued to the first variable's name. python-dotenv strips it itself
only since 1.2.3 (its #640); before that the first variable was silently ignored."""


class EnvFileError(ValueError):
    """The ``.env`` file exists but cannot be used: unreadable, not UTF-8, or a line that is
    not ``NAME=value``. The message names the file and the place (byte or line)."""


def check_env_file(path: Path = ENV_FILE) -> None:
    """Refuse a ``.env`` that the settings classes would crash on or silently misread.

    pydantic-settings reads the file with python-dotenv, which raises a bare
    :class:`UnicodeDecodeError` on a byte that is not UTF-8 and only logs (then skips) a line
    it cannot parse. It also skips a bare word (``binary``: a name with no ``=``) without a
    word and keeps a NUL byte in a name or value (a new user's test). The CLI calls this
    before any command reads settings, so each of those becomes one sentence and exit
    status 2. So does a directory named ``.env``, which
    pydantic-settings skips without a word (fresh7 #10: every setting in it silently
    ignored), and a symbolic link to nothing (fresh8 #8: skipped the same way). A missing
    file is fine: the defaults and the environment apply, and so is a leading UTF-8
    byte-order mark (:data:`ENV_FILE_ENCODING`).

    Args:
        path: the file, by default :data:`ENV_FILE` (``.env`` in the working directory).

    Raises:
        EnvFileError: e.g. ``.env: not UTF-8 (byte 0xff at position 0)``, ``.env: line 3
            is not NAME=value: 'this is bad'``, ``.env: line 2, column 7 holds a NUL
            byte``, ``.env: cannot be read (Permission denied)``,
            ``.env: is a directory, not a settings file ...``, ``.env: is a symbolic link
            to 'x', which does not exist ...``.
    """
    from dotenv.parser import parse_stream  # python-dotenv: pydantic-settings' own parser

    if path.is_symlink() and not path.exists():
        raise EnvFileError(
            f"{path}: is a symbolic link to {str(path.readlink())!r}, which does not exist: "
            "nothing would be read; fix the link or remove it"
        )
    if path.is_dir():
        raise EnvFileError(
            f"{path}: is a directory, not a settings file of NAME=value lines: nothing in it "
            "would be read; move it away or replace it with a file"
        )
    if not path.is_file():
        return
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise EnvFileError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise EnvFileError(
            f"{path}: not UTF-8 ({not_utf8_byte(raw, exc)}); save it as UTF-8"
        ) from None
    if (nul := raw.find(b"\0")) >= 0:  # python-dotenv keeps it in a name or value
        line = raw.count(b"\n", 0, nul) + 1
        column = nul - (raw.rfind(b"\n", 0, nul) + 1) + 1
        raise EnvFileError(
            f"{path}: line {line}, column {column} holds a NUL byte: a settings file is text; "
            "remove it"
        )
    # Decoded as plain UTF-8 above so the byte position is the file's; the mark is dropped
    # here as ENV_FILE_ENCODING drops it for the settings classes.
    for binding in parse_stream(io.StringIO(text.removeprefix("\ufeff"))):
        first = binding.original.string.split("\n", 1)[0].strip()
        shown = repr(first if len(first) <= 40 else first[:37] + "...")
        where = f"{path}: line {binding.original.line}"
        if binding.error:
            raise EnvFileError(f"{where} is not NAME=value: {shown} ({_env_line_fault(binding)})")
        if binding.key is not None and binding.value is None:  # a bare word: dotenv skips it
            raise EnvFileError(
                f"{where} is not NAME=value: {shown} (a line with no '=' sets nothing; "
                "write NAME= for an empty value, or # before a comment)"
            )


_OPENING_QUOTE: Final = re.compile(r"\s*(?:export\s+)?[^=\s]+\s*=\s*(['\"])")
"""A ``.env`` binding whose value starts with a quote: group 1 is the quote."""


def _env_line_fault(binding: Binding) -> str:
    """Why python-dotenv could not parse ``binding`` (``binding.error`` is set): a quote
    left open (fresh20 #3: it was told "a value with spaces or # needs quotes"), text after
    a closing quote, or, for anything else, the usual cause."""
    original = binding.original
    opened = _OPENING_QUOTE.match(original.string)
    if opened is None:
        return "a value with spaces or # needs quotes"
    quote = opened.group(1)
    place = f"the quote {quote} opened at line {original.line}, column {opened.start(1) + 1}"
    body = original.string[opened.end() :]
    closing = re.search(r'(?<!\\)"' if quote == '"' else "'", body)
    if closing is None:
        return f"{place} is not closed"
    closed_at = original.line + body.count("\n", 0, closing.start())
    if closed_at > original.line:
        return f"{place} runs on to line {closed_at}: is its closing quote missing?"
    return f"only a comment (# ...) may follow the closing quote {quote}"


def env_file_unknown_names(known: Collection[str], path: Path = ENV_FILE) -> list[str]:
    """Warnings for ``TUTOR_*`` names in ``.env`` that no settings class reads.

    pydantic-settings ignores such a name without a word (``extra="ignore"``: the bot and
    the worker share the file), so ``TUTOR_SANDBOX_WALLS=2`` silently left the wall time
    at its default (fresh8 #8). Names are compared in upper case, as the settings read
    them; only the ``TUTOR_`` prefix is looked at (other tools' variables are theirs).

    Args:
        known: every variable a settings class reads (``TUTOR_SANDBOX_WALL_S``, ...).
        path: the file, by default :data:`ENV_FILE`; a missing or unusable one gives none
            (:func:`check_env_file` reports the latter).

    Returns:
        One line per unknown name, in file order, each naming the line and the closest
        known name when one is close (:func:`difflib.get_close_matches`): ``.env: line 4:
        TUTOR_SANDBOX_WALLS is not a setting and is ignored (did you mean
        TUTOR_SANDBOX_WALL_S?)``.
    """
    import difflib

    from dotenv.parser import parse_stream

    try:
        text = path.read_text(encoding=ENV_FILE_ENCODING)
    except (OSError, UnicodeDecodeError):
        return []
    names = sorted(known)
    warnings = []
    for binding in parse_stream(io.StringIO(text)):
        name = (binding.key or "").upper()
        if not name.startswith("TUTOR_") or name in known:
            continue
        close = difflib.get_close_matches(name, names, n=1, cutoff=0.8)
        hint = f" (did you mean {close[0]}?)" if close else ""
        warnings.append(
            f"{path}: line {binding.original.line}: {binding.key} is not a setting and is "
            f"ignored{hint}"
        )
    return warnings


def error_text(error: Mapping[str, Any]) -> str:
    """A pydantic error's message for a person, without pydantic's ``Value error, `` prefix
    (added to the text of every ``ValueError`` a validator raises; fresh8 #8).

    Args:
        error: one entry of :meth:`pydantic.ValidationError.errors`.

    Returns:
        The message, e.g. ``the directory '/x' does not exist: ...``.
    """
    return str(error["msg"]).removeprefix("Value error, ")


def setting_name(
    error: Mapping[str, Any], flags: Mapping[str, str], env_prefix: str, unnamed: str
) -> str:
    """What a person gave the bad value as: the flag, else the environment variable.

    Args:
        error: one entry of :meth:`pydantic.ValidationError.errors`.
        flags: the name each field given another way (a CLI flag) was given as
            (``{"database_path": "--db"}``); any other field came from the environment.
        env_prefix: the settings class's variable prefix (``TUTOR_``).
        unnamed: the name for an error about no single field (``settings``).

    Returns:
        ``--db``, ``TUTOR_DROP_TICK_S``... as shown before each message.
    """
    field = str(error["loc"][0]) if error["loc"] else ""
    if field in flags:
        return flags[field]
    return env_prefix + field.upper() if field else unnamed


def blocking_file(path: Path) -> Path | None:
    """The file that stands where a directory of ``path`` should be, if any.

    ``/etc/passwd/x`` cannot be created because ``/etc/passwd`` is a file, not because it
    is missing (the OS says ``Not a directory``, ENOTDIR). A symbolic link whose target does
    not exist blocks too: ``mkdir`` cannot make a directory there (``File exists``, EEXIST;
    fresh12 #4: ``data -> /nonexistent`` crashed ``tutor play``).

    Args:
        path: the file to be written.

    Returns:
        The nearest existing ancestor of ``path`` (a dangling symbolic link counts as
        existing) when it is not a directory (a regular file, a device, a symbolic link to
        one or to nothing), else None (every existing ancestor is a directory; some may be
        missing). Describe it with :func:`not_a_directory`.
    """
    for ancestor in path.parents:
        if ancestor.exists():
            return None if ancestor.is_dir() else ancestor
        if ancestor.is_symlink():  # dangling: exists() follows the link
            return ancestor
    return None


def not_a_directory(file: Path) -> str:
    """What stands where a directory should be, for a message.

    Args:
        file: a path that exists (or is a dangling symbolic link) and is not a directory,
            such as :func:`blocking_file` returns.

    Returns:
        ``'data' is not a directory (it is a file)``, ``'data' is a symbolic link to
        '/nonexistent', which does not exist`` or ``'data' is not a directory`` (a device,
        a socket...).
    """
    if file.is_symlink() and not file.exists():
        return f"{str(file)!r} is a symbolic link to {str(file.readlink())!r}, which does not exist"
    if file.is_file():
        return f"{str(file)!r} is not a directory (it is a file)"
    return f"{str(file)!r} is not a directory"


def missing_directory(path: Path, purpose: str = "") -> str | None:
    """Why ``path`` cannot be created: its directory does not exist, or a file stands where
    one of its directories should be (and no directory is made).

    Every path a ``tutor`` command writes (``content schema --output``, ``--unix``,
    ``--graph-png``, ``TUTOR_SANDBOX_CACHE_PATH``) refuses a missing directory rather than
    creating it, so a mistyped path never makes ``/nonexistent/`` at the root.

    Args:
        path: the file to be written.
        purpose: what the file is for, named in the message (``the socket``), or empty.

    Returns:
        ``the directory '/x' does not exist: create it or fix the path (no directory is
        created for the socket)``; ``'/etc/passwd' is not a directory: fix the path
        (nothing is created for the socket)`` (:func:`blocking_file`); or None when the
        directory exists.
    """
    if path.parent.is_dir():
        return None
    for_what = f" for {purpose}" if purpose else ""
    if (file := blocking_file(path)) is not None:
        # fresh10 #9: '/etc/passwd/x' was "the directory '/etc/passwd' does not exist".
        return f"{not_a_directory(file)}: fix the path (nothing is created{for_what})"
    return (
        f"the directory {str(path.parent)!r} does not exist: create it or fix the path "
        f"(no directory is created{for_what})"
    )


def content_directory(value: Path) -> Path:
    """Validate ``TUTOR_CONTENT_DIR``: a directory that exists (the question packs').

    The default ``content`` is let through even when missing: a command run outside the
    checkout then says where to run from (exit 1, :func:`bot.cli.content.bank_not_found`);
    any other value names the setting (exit 2, fresh12 #8: ``TUTOR_CONTENT_DIR=/nonexistent
    tutor grade`` exited 1 without naming the command).

    Args:
        value: the path given.

    Returns:
        ``value``, unchanged.

    Raises:
        ValueError: ``the directory '/nonexistent' does not exist: ...``, or ``'x' is not a
            directory (it is a file): ...`` (:func:`not_a_directory`).
    """
    if value == DEFAULT_CONTENT_DIR or value.is_dir():
        return value
    fix = "set it to the question packs' directory (the checkout's content/)"
    if value.exists() or value.is_symlink():
        raise ValueError(f"{not_a_directory(value)}: {fix}")
    raise ValueError(f"the directory {str(value)!r} does not exist: {fix}")


ContentDir = Annotated[Path, AfterValidator(content_directory)]
"""The type of ``content_dir`` in every settings class that reads it: one validator
(:func:`content_directory`) for ``TutorSettings`` and ``ContentSettings``."""

PlayLearnerId = Annotated[
    int, Field(gt=0, le=2**63 - 1, description="The learner id tutor play records as.")
]
"""A Discord user id (1 to 2^63-1): ``TUTOR_PLAY_LEARNER_ID``, read by ``tutor play`` and,
as its default learner, by ``tutor stats``."""

TUTOR_ENV: Final = SettingsConfigDict(
    env_prefix="TUTOR_",
    env_file=ENV_FILE,
    env_file_encoding=ENV_FILE_ENCODING,
    # The sandbox service reads its own TUTOR_SANDBOX_* variables from the same .env.
    extra="ignore",
    # `TUTOR_DEV_GUILD_ID=` (as .env.example leaves it) means unset, not "invalid".
    env_ignore_empty=True,
    frozen=True,
)
"""Where every ``TUTOR_*`` settings class reads from: the environment, then ``.env``
(through :class:`TutorBaseSettings`, whose environment wins even when it is empty)."""


def set_in_environment(name: str, environ: Mapping[str, str] | None = None) -> bool:
    """Whether the environment sets the variable ``name`` at all, to a value or to nothing.

    Names are compared in upper case, as the settings classes read them
    (``case_sensitive=False``).

    Args:
        name: the variable, e.g. ``TUTOR_DATABASE_PATH``.
        environ: the environment (default ``os.environ``).
    """
    return name.upper() in _names_set(os.environ if environ is None else environ)


def _names_set(environ: Mapping[str, str]) -> frozenset[str]:
    """The names an environment sets, in upper case (the settings read them
    case-insensitively)."""
    return frozenset(key.upper() for key in environ)


def environment_wins(source: PydanticBaseSettingsSource) -> PydanticBaseSettingsSource:
    """``source`` (the ``.env`` one) without the names the environment sets, even to nothing.

    pydantic-settings' ``env_ignore_empty`` drops an empty variable from the environment's
    values only, so ``.env`` then supplied the name: with ``TUTOR_DATABASE_PATH=/tmp/a.db``
    in ``.env``, ``TUTOR_DATABASE_PATH= tutor stats`` read ``/tmp/a.db`` (fresh22 #9),
    although an empty ``NAME=`` means the default and the environment wins over ``.env``.
    Both rules now hold together: a name set in the environment is never read from
    ``.env``, and an empty one is the default.

    Args:
        source: the settings class's ``.env`` source (other sources are returned as they
            are).

    Returns:
        ``source``, its values less every name set in the environment.
    """
    if isinstance(source, DotEnvSettingsSource):
        environment = _names_set(os.environ)
        source.env_vars = {
            name: value
            for name, value in source.env_vars.items()
            if name.upper() not in environment
        }
    return source


class TutorBaseSettings(BaseSettings):
    """The base of every ``TUTOR_*`` settings class (the bot's, the progress store's, the
    sandbox worker's): the environment, then ``.env`` (:data:`TUTOR_ENV`), where a variable
    set in the environment is never read from ``.env``, and ``NAME=`` with no value, in
    either place, means the default (:func:`environment_wins`)."""

    model_config = TUTOR_ENV

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """The default sources and order, with ``.env`` filtered by :func:`environment_wins`."""
        return init_settings, env_settings, environment_wins(dotenv_settings), file_secret_settings


def setting_source(settings: BaseSettings, field: str, flag: str | None = None) -> str:
    """Where a setting's value came from, for a message: ``--db``, ``TUTOR_DATABASE_PATH in
    the environment``, ``TUTOR_DATABASE_PATH in .env``, ``TUTOR_DATABASE_PATH, empty in the
    environment: the default``, or ``the default``.

    Args:
        settings: the settings read (a :class:`TutorBaseSettings` class).
        field: the field (``database_path``).
        flag: the flag that gave it, when one did (it beats both sources).
    """
    if flag is not None:
        return flag
    name = str(settings.model_config.get("env_prefix") or "") + field.upper()
    if set_in_environment(name):
        if field in settings.model_fields_set:
            return f"{name} in the environment"
        return f"{name}, empty in the environment: the default"
    if field in settings.model_fields_set:
        return f"{name} in {ENV_FILE}"
    return "the default"


class PlayLearnerSettings(TutorBaseSettings):
    """Only ``TUTOR_PLAY_LEARNER_ID`` (environment, then ``.env``): ``tutor stats`` without
    ``--learner`` shows the terminal player's progress, and must not need the bot's other
    settings to be valid to do so.

    Attributes:
        play_learner_id: the learner ``tutor play`` records as (default 1).
    """

    model_config = TUTOR_ENV

    play_learner_id: PlayLearnerId = 1


def refuse_empty_path(value: object) -> object:
    """Refuse an empty database path before it becomes a :class:`~pathlib.Path`.

    ``Path("")`` is ``Path(".")``, the working directory, so ``--db ""`` was refused as
    ``. is a directory`` (fix19 #1), naming a directory nobody typed. An empty
    ``TUTOR_DATABASE_PATH`` never gets here: as every ``TUTOR_*`` variable, ``NAME=`` with
    no value means the default (``env_ignore_empty``), in ``.env`` or in the environment,
    where it also hides ``.env``'s value (:class:`TutorBaseSettings`).

    Args:
        value: the value given, before pydantic turns it into a path.

    Returns:
        ``value``, unchanged.

    Raises:
        ValueError: ``value`` is the empty string.
    """
    if isinstance(value, str) and not value:
        raise ValueError(f"the path is empty: give a file path such as {DEFAULT_DATABASE_PATH}")
    return value


def check_database_path(value: Path) -> Path:
    """Validate a progress database path (``TUTOR_DATABASE_PATH``, ``--db``).

    One check for every settings class that names the database, so ``tutor play``,
    ``tutor stats``, ``tutor health`` and ``tutor bot`` all refuse the same paths with the
    same words and exit 2 through their settings check (fresh17, fresh18 #4).

    Args:
        value: the path given.

    Returns:
        ``value``: an existing file, a new file in an existing directory, ``:memory:``, or
        the default ``data/tutor.db`` (whose ``data/`` is created on first write).

    Raises:
        ValueError: ``value`` is a directory, a file stands where one of its directories
            should be, or (for a path other than the default) its directory does not exist:
            a mistyped path never starts a fresh, empty database.
    """
    if value.is_dir():
        raise ValueError(
            f"{value} is a directory, not a progress database: give a file path "
            f"such as {value / 'tutor.db'}"
        )
    if str(value) == ":memory:" or value.parent.is_dir():
        return value
    if (file := blocking_file(value)) is not None:
        if value == DEFAULT_DATABASE_PATH:
            # fresh12 #4: `mkdir data` then crashed tutor play with a traceback.
            raise ValueError(
                f"{value} cannot be created: {not_a_directory(file)}: "
                "move it away, or use another file (--db, TUTOR_DATABASE_PATH)"
            )
        raise ValueError(missing_directory(value, "the progress database"))
    if value == DEFAULT_DATABASE_PATH:
        return value
    raise ValueError(
        f"the directory {str(value.parent)!r} does not exist: create it or fix the path "
        f"(only the default {DEFAULT_DATABASE_PATH.parent}/ is created, so a mistyped "
        "path never starts a fresh, empty database)"
    )


class TutorSettings(TutorBaseSettings):
    """Everything the bot process can be configured with.

    Attributes:
        discord_token: the bot token; required by ``tutor bot``, never logged or shown.
        dev_guild_id: when set, ``tutor bot --sync`` syncs commands to this guild only
            (instant) instead of globally (Discord may take up to an hour to propagate).
        database_path: the SQLite file of the progress store (a directory is refused,
            naming it). Its directory must exist, except the default ``data/`` (created on
            first use): a mistyped path is refused rather than answered with a fresh, empty
            database elsewhere.
        sandbox_address: where the sandbox worker listens: ``local`` (the default: start
            one as a child process, which needs torch in this Python), ``unix:/path/to.sock``
            or ``http://host:port``; several running workers separated by commas share the
            jobs.
        sandbox_timeout_s: how long the bot waits for one sandbox run, in seconds.
        sandbox_startup_timeout_s: how long a ``local`` worker may take to start (it
            imports torch and forks its first jail), in seconds.
        content_dir: the directory of question packs (``*.yaml``); a set one must exist
            (:func:`content_directory`).
        log_level: the root log level, in any case (``debug`` is ``DEBUG``).
        drop_grace_minutes: a daily drop missed during downtime is still posted (late) when
            the bot is back within this many minutes of its scheduled time; later it is
            skipped and logged.
        drop_tick_s: how often the drop scheduler asks the store what is due, in seconds.
        run_cooldown_s: seconds a learner waits between two ``/run`` jobs.
        answer_retention_days: days learners' free-text answers are kept (scores stay);
            0 stores none (the progress store's rule, docs/PROGRESS.md).
        db_busy_timeout_s: seconds a database write waits for another process's lock
            (``tutor play`` next to the bot).
        db_synchronous: SQLite ``synchronous``: ``NORMAL`` (a killed process loses nothing
            acknowledged) or ``FULL`` (also survives power loss; slower commits).
        play_learner_id: the learner ``tutor play`` records as (``--learner`` overrides);
            set it to your Discord user id to share progress with the bot's database.
    """

    model_config = TUTOR_ENV

    discord_token: SecretStr | None = Field(None, description="The bot token.")
    dev_guild_id: int | None = Field(None, gt=0, description="Guild to sync commands to.")
    database_path: Path = Field(DEFAULT_DATABASE_PATH, description="SQLite file.")
    sandbox_address: str = Field(
        LOCAL_SANDBOX, description="local, unix:/path.sock or http://host:port"
    )
    sandbox_timeout_s: float = Field(15.0, gt=0, le=120, description="Seconds per run.")
    sandbox_startup_timeout_s: float = Field(
        180.0, gt=0, le=1800, description="Seconds a local worker may take to start."
    )
    content_dir: ContentDir = Field(DEFAULT_CONTENT_DIR, description="Question packs.")
    log_level: LogLevel = "INFO"
    drop_grace_minutes: int = Field(180, ge=0, le=24 * 60, description="Late-post window.")
    drop_tick_s: float = Field(30.0, ge=1, le=600, description="Scheduler period.")
    run_cooldown_s: float = Field(20.0, ge=0, le=3600, description="Seconds between /run.")
    answer_retention_days: int = Field(90, ge=0, le=36500, description="Days answers are kept.")
    db_busy_timeout_s: float = Field(
        DEFAULT_BUSY_TIMEOUT_S, ge=0, le=600, description="Seconds a write waits for a lock."
    )
    db_synchronous: Synchronous = "NORMAL"
    play_learner_id: PlayLearnerId = 1

    @field_validator("database_path", mode="before")
    @classmethod
    def _database_path_not_empty(cls, value: object) -> object:
        return refuse_empty_path(value)

    @field_validator("database_path")
    @classmethod
    def _database_directory_exists(cls, value: Path) -> Path:
        return check_database_path(value)

    @field_validator("log_level", mode="before")
    @classmethod
    def _log_level_any_case(cls, value: object) -> object:
        # TUTOR_LOG_LEVEL=debug means DEBUG, as logging's own names are case-blind to users.
        return value.strip().upper() if isinstance(value, str) else value

    @field_validator("sandbox_address")
    @classmethod
    def _address_scheme(cls, value: str) -> str:
        value = value.strip()
        if value == LOCAL_SANDBOX:
            return value
        addresses = [part.strip() for part in value.split(",")]
        for address in addresses:
            if address.startswith("unix:") and len(address) > len("unix:"):
                continue
            if address.startswith(("http://", "https://")) and address.split("://", 1)[1]:
                continue
            raise ValueError(
                "sandbox_address must be local, unix:/path/to.sock or http://host:port "
                f"(several workers separated by commas), got {address!r}"
            )
        return ",".join(addresses)

    @property
    def sandbox_endpoint(self) -> SandboxEndpoint:
        """:attr:`sandbox_address` parsed (``unix:/run/s.sock`` -> kind ``unix``, path);
        the first worker when several are listed (see :attr:`sandbox_endpoints`)."""
        return self.sandbox_endpoints[0]

    @property
    def sandbox_endpoints(self) -> list[SandboxEndpoint]:
        """Every worker :attr:`sandbox_address` lists (``unix:/a.sock,unix:/b.sock``): the
        bot spreads jobs over them (:class:`sandbox.pool.SandboxPool`)."""
        if self.sandbox_address == LOCAL_SANDBOX:
            return [SandboxEndpoint(kind="local")]
        endpoints = []
        for address in self.sandbox_address.split(","):
            if address.startswith("unix:"):
                path = Path(address.removeprefix("unix:"))
                endpoints.append(SandboxEndpoint(kind="unix", unix_path=path))
            else:
                endpoints.append(SandboxEndpoint(kind="http", url=address))
        return endpoints

    @property
    def drop_grace(self) -> timedelta:
        """:attr:`drop_grace_minutes` as a timedelta."""
        return timedelta(minutes=self.drop_grace_minutes)


class SyncSettings(TutorBaseSettings):
    """Only what ``tutor bot --sync`` uses: the token, the guild to sync to and the log
    level (environment, then ``.env``). Uploading the slash commands opens no database,
    starts no sandbox and reads no pack (no command's definition depends on the bank: the
    topic option autocompletes at run time), so a bad ``TUTOR_DATABASE_PATH`` or
    ``TUTOR_CONTENT_DIR`` never stops it (fresh24 #3).

    Attributes:
        discord_token, dev_guild_id, log_level: as in :class:`TutorSettings`.
    """

    model_config = TUTOR_ENV

    discord_token: SecretStr | None = Field(None, description="The bot token.")
    dev_guild_id: int | None = Field(None, gt=0, description="Guild to sync commands to.")
    log_level: LogLevel = "INFO"

    @field_validator("log_level", mode="before")
    @classmethod
    def _log_level_any_case(cls, value: object) -> object:
        return value.strip().upper() if isinstance(value, str) else value

    def bot_settings(self) -> TutorSettings:
        """These values in a :class:`TutorSettings` whose other fields are their defaults,
        unvalidated (``model_construct``): the services built for a sync never open the
        database or read the content directory those defaults name."""
        return TutorSettings.model_construct(
            discord_token=self.discord_token,
            dev_guild_id=self.dev_guild_id,
            log_level=self.log_level,
        )


class ContentSettings(TutorBaseSettings):
    """Only ``TUTOR_CONTENT_DIR`` (environment, then ``.env``), for the ``tutor content``
    and ``tutor grade`` defaults: they read the same packs as ``tutor play`` and ``tutor
    bot``, yet never fail on a setting they do not use (a database path, a token).

    Attributes:
        content_dir: the directory of question packs (``*.yaml``); a set one must exist
            (:func:`content_directory`).
    """

    model_config = TUTOR_ENV

    content_dir: ContentDir = Field(DEFAULT_CONTENT_DIR, description="Question packs.")
