"""Sandbox configuration from the environment (``TUTOR_SANDBOX_*``), with units in names.

Every field can be set as ``TUTOR_SANDBOX_<FIELD>`` (e.g. ``TUTOR_SANDBOX_WALL_S=3``), in the
environment or in ``.env`` in the working directory, read as every ``TUTOR_*`` settings class
reads it (:data:`bot.settings.TUTOR_ENV`: the environment wins, the file is UTF-8 with an
optional byte-order mark, an empty value means the default, and an empty variable in the
environment still wins over the file's value); the CLI's flags override both. A
missing ``.env`` (as in the sandbox image, which compose never gives one) is fine. Nothing
is read at import time: build a :class:`SandboxSettings` in the composition root (the CLI
entry), with :func:`load_sandbox_settings` so a bad value becomes one line naming the
variable, and pass it down.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import SettingsConfigDict, SettingsError

from bot.settings import (
    ENV_FILE,
    ENV_FILE_ENCODING,
    TutorBaseSettings,
    error_text,
    missing_directory,
    setting_name,
)
from sandbox.protocol import (
    DEFAULT_CPU_S,
    DEFAULT_MEMORY_MIB,
    DEFAULT_OUTPUT_BYTES,
    DEFAULT_PIDS,
    DEFAULT_WALL_S,
    Limits,
)

ENV_PREFIX = "TUTOR_SANDBOX_"
"""The prefix of every sandbox setting's variable (``TUTOR_SANDBOX_WALL_S``)."""


class SandboxSettings(TutorBaseSettings):
    """Limits, capacity and isolation choices of one sandbox worker.

    Attributes:
        wall_s: default and maximum wall-clock seconds per job.
        cpu_s: default and maximum CPU seconds per process of a job.
        memory_mib: default and maximum MiB per job (memory plus swap).
        pids: default and maximum processes+threads per job.
        output_bytes: default and maximum bytes kept per output stream.
        tmp_mib: size in MiB of each private tmpfs (/tmp, the working dir, /dev/shm).
        concurrency: jobs run at once (default 2: this project's machines have 2 cores).
        queue: jobs that may wait for a slot; one more is answered "busy".
        backend: ``auto`` picks ``namespaces`` where it works, ``container`` inside a
            container, else ``none`` (curated snippets only). Naming one forces it; a forced
            ``namespaces`` that cannot work is a startup error.
        job_uid: the uid (and gid) jobs run as under the ``namespaces`` backend.
        content: pack files or directories whose snippets are curated (trusted, cacheable).
        cache_path: a JSON file for the curated-result cache, in an existing directory
            (none is created); None keeps it in memory.
        prewarm: run every curated snippet at startup to fill the cache.
        python: the interpreter (with torch) that runs the warm zygote.
        max_request_bytes: an HTTP body larger than this is refused with 413.
    """

    # The sources and rules of bot.settings.TUTOR_ENV (fresh7 #5: .env was ignored here, so
    # TUTOR_SANDBOX_WALL_S=-1 in .env ran and =1 did nothing), with this class's prefix; the
    # environment wins over .env even when empty (TutorBaseSettings, fresh22 #9).
    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_file=ENV_FILE,
        env_file_encoding=ENV_FILE_ENCODING,
        env_ignore_empty=True,
        extra="ignore",
    )

    wall_s: float = Field(DEFAULT_WALL_S, gt=0, le=600)
    cpu_s: float = Field(DEFAULT_CPU_S, gt=0, le=600)
    memory_mib: int = Field(DEFAULT_MEMORY_MIB, ge=16)
    pids: int = Field(DEFAULT_PIDS, ge=4)
    output_bytes: int = Field(DEFAULT_OUTPUT_BYTES, ge=1024)
    tmp_mib: int = Field(16, ge=1, le=1024)
    concurrency: int = Field(2, ge=1, le=64)
    queue: int = Field(8, ge=0, le=1000)
    backend: Literal["auto", "namespaces", "container", "none"] = "auto"
    job_uid: int = Field(65534, ge=1, le=2**31 - 2)
    content: list[Path] = Field(default_factory=lambda: [Path("content")])
    cache_path: Path | None = None
    prewarm: bool = False
    python: str | None = None
    max_request_bytes: int = Field(256 * 1024, ge=1024)

    @field_validator("cache_path")
    @classmethod
    def _cache_directory_exists(cls, value: Path | None) -> Path | None:
        # Refused rather than created, as TUTOR_DATABASE_PATH, --unix and --graph-png are
        # (fresh8 #5: /nonexistent/dir/ was made at the root). A directory as the path, or a
        # file that is not a cache, only warns (sandbox.cache.cache_file_problem).
        if value is None or value.is_dir():
            return value
        missing = missing_directory(value, "the cache")
        if missing:
            raise ValueError(missing)
        return value

    @property
    def limits(self) -> Limits:
        """The server's default and maximum per-job limits."""
        return Limits(
            wall_s=self.wall_s,
            cpu_s=self.cpu_s,
            memory_mib=self.memory_mib,
            pids=self.pids,
            output_bytes=self.output_bytes,
        )


def sandbox_environment(
    environ: Mapping[str, str] | None = None, env_file: Path = ENV_FILE
) -> dict[str, str]:
    """The ``TUTOR_SANDBOX_*`` variables a worker started as a child process must get.

    A local worker (:class:`sandbox.client.LocalSandbox`) runs in the package's directory
    with a scrubbed environment, so the values this process's :class:`SandboxSettings` read
    from ``.env`` are passed on as variables: the child then uses exactly what was checked
    here (the bot token and every other ``.env`` line stay behind).

    Args:
        environ: the environment (default ``os.environ``); it wins over the file, and an
            empty value in it means the default, as for :class:`SandboxSettings`: it is
            passed on empty, so the child (which reads ``.env`` too, in its own working
            directory) also takes the default rather than the file's value (fresh22 #9).
        env_file: the ``.env`` file (default ``.env`` in the working directory); missing,
            or a directory, adds nothing (:func:`bot.settings.check_env_file` refuses the
            latter before any command runs).

    Returns:
        ``{"TUTOR_SANDBOX_WALL_S": "3", ...}``: the file's non-empty values, then the
        environment's on top, empty ones included (each meaning the default).
    """
    from dotenv import dotenv_values  # python-dotenv: pydantic-settings' own reader

    found: dict[str, str] = {}
    if env_file.is_file():
        values = dotenv_values(env_file, encoding=ENV_FILE_ENCODING)
        found.update({k: v for k, v in values.items() if k.startswith(ENV_PREFIX) and v})
    environ = os.environ if environ is None else environ
    found.update({k: v for k, v in environ.items() if k.startswith(ENV_PREFIX)})
    return found


class SandboxSettingsError(ValueError):
    """Some ``TUTOR_SANDBOX_*`` values (or flags standing for them) are invalid.

    Attributes:
        problems: one line per bad value, naming the variable (or flag) and what it got:
            ``TUTOR_SANDBOX_WALL_S: Input should be greater than 0 (got '-1')``.
    """

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def load_sandbox_settings(
    overrides: Mapping[str, Any] | None = None, flags: Mapping[str, str] | None = None
) -> SandboxSettings:
    """Read :class:`SandboxSettings` from the environment, with ``overrides`` on top.

    Args:
        overrides: field values given another way (CLI flags), e.g. ``{"concurrency": 1}``.
        flags: how each overridden field was given, for the messages (``{"concurrency":
            "--concurrency"}``); a bad value of a field not in it is named by its variable.

    Returns:
        The validated settings.

    Raises:
        SandboxSettingsError: every bad value, one line each.
    """
    given = dict(overrides or {})
    names = dict(flags or {})
    try:
        return SandboxSettings(**given)
    except ValidationError as exc:
        named = {field: names.get(field, field) for field in given}
        problems = []
        for err in exc.errors():
            name = setting_name(err, named, ENV_PREFIX, "TUTOR_SANDBOX_*")
            shown = repr(err["input"])
            shown = shown if len(shown) <= 60 else shown[:57] + "..."
            problems.append(f"{name}: {error_text(err)} (got {shown})")
        raise SandboxSettingsError(problems) from None
    except SettingsError as exc:  # a list-valued variable that is not JSON
        found = re.search(r'field "(\w+)"', str(exc))
        name = ENV_PREFIX + found.group(1).upper() if found else "a TUTOR_SANDBOX_* variable"
        problem = f'{name}: cannot be parsed; list values are JSON, e.g. ["content"]'
        raise SandboxSettingsError([problem]) from None
