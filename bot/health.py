"""Is the tutor healthy? The checks behind ``tutor health`` and the bot's heartbeat file.

Docker (``docker-compose.yml``) runs ``tutor health`` inside each container:

* ``database``: the SQLite file exists, answers a read within the busy timeout, and passes
  the progress store's open-time checks (it is ours, not newer, not damaged), read-only;
* ``sandbox``: the worker at ``TUTOR_SANDBOX_ADDRESS`` answers ``GET /health`` with
  ``ready: true`` (for ``local``, the default: a worker is started for the check, asked and
  stopped, which loads torch: about 10 s);
* ``heartbeat``: the running bot wrote its heartbeat file within ``max_age_s`` seconds
  (its event loop is alive) and was connected to Discord's gateway within the same time
  (discord.py reconnects by itself; a gateway down for longer is unhealthy).

The bot writes the heartbeat (:class:`HeartbeatWriter`, every 30 s) next to the database:
``<dir of TUTOR_DATABASE_PATH>/heartbeat.json``, one JSON object, replaced atomically.
No discord, no torch here: the bot passes a function that reports its gateway state.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import sqlite3
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, ValidationError

from bot.settings import TutorSettings

HEARTBEAT_INTERVAL_S = 30.0
"""The bot rewrites its heartbeat every 30 seconds."""

HEARTBEAT_MAX_AGE_S = 90.0
"""Three missed heartbeats (90 s) make the bot unhealthy; Docker then restarts it."""

HEARTBEAT_FILE = "heartbeat.json"

CheckName = Literal["database", "sandbox", "heartbeat"]
CHECKS: tuple[CheckName, ...] = ("database", "sandbox", "heartbeat")


def heartbeat_path(settings: TutorSettings) -> Path:
    """Where the bot writes its heartbeat: next to the database (the ``data/`` volume)."""
    return settings.database_path.parent / HEARTBEAT_FILE


class GatewayState(BaseModel):
    """What the bot reports of its Discord connection at one instant.

    Attributes:
        connected: logged in, ready, and the gateway websocket is open.
        guilds: guilds the bot is in.
        latency_ms: the gateway heartbeat round trip in milliseconds, None when unknown.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    connected: bool
    guilds: int = Field(0, ge=0)
    latency_ms: float | None = None


class Heartbeat(BaseModel):
    """The heartbeat file's content.

    Attributes:
        at: when it was written (UTC).
        pid: the bot's process id.
        gateway: the gateway state at ``at``.
        connected_at: the last time the gateway was seen connected, None before the first.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    at: AwareDatetime
    pid: int
    gateway: GatewayState
    connected_at: AwareDatetime | None


def write_heartbeat(path: Path, beat: Heartbeat) -> None:
    """Replace the heartbeat file atomically (write a temporary file, then rename).

    Raises:
        OSError: the directory is not writable.
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(beat.model_dump_json())
    os.replace(tmp, path)


def read_heartbeat(path: Path) -> Heartbeat | None:
    """The heartbeat in ``path``; None when the file is missing or not a heartbeat."""
    try:
        return Heartbeat.model_validate_json(path.read_bytes())
    except (OSError, ValidationError):
        return None


class HeartbeatWriter:
    """Writes the heartbeat every ``interval_s`` seconds while the bot runs.

    Args:
        path: the heartbeat file (see :func:`heartbeat_path`).
        probe: the bot's gateway state now (called on the event loop; must not block).
        interval_s: seconds between writes.
        clock: the current aware instant.
    """

    def __init__(
        self,
        path: Path,
        probe: Callable[[], GatewayState],
        *,
        interval_s: float = HEARTBEAT_INTERVAL_S,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.path = path
        self.probe = probe
        self.interval_s = interval_s
        self.clock = clock
        self.connected_at: datetime | None = None

    def beat(self) -> Heartbeat:
        """Write one heartbeat now and return it.

        Raises:
            OSError: the file cannot be written.
        """
        now = self.clock()
        state = self.probe()
        if state.latency_ms is not None and not math.isfinite(state.latency_ms):
            state = state.model_copy(update={"latency_ms": None})
        if state.connected:
            self.connected_at = now
        beat = Heartbeat(at=now, pid=os.getpid(), gateway=state, connected_at=self.connected_at)
        write_heartbeat(self.path, beat)
        return beat

    async def run(self) -> None:
        """Beat every ``interval_s`` seconds until cancelled; a failed write is retried at
        the next beat (the health check then reports the stale file)."""
        while True:
            with contextlib.suppress(OSError):
                await asyncio.to_thread(self.beat)
            await asyncio.sleep(self.interval_s)


class CheckResult(BaseModel):
    """One health check's outcome.

    Attributes:
        name: the check.
        ok: it passed.
        detail: one line saying what was found.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: CheckName
    ok: bool
    detail: str


def check_database(settings: TutorSettings) -> CheckResult:
    """The SQLite file exists, passes ``PRAGMA quick_check``, is ours and can be written.

    It is opened read-only (:func:`bot.progress.db.open_read_only`, as ``tutor stats``
    does) and never created, migrated or written. ``quick_check``
    (sqlite.org/pragma.html) reads every page and checks the b-trees without the slower
    index comparison of ``integrity_check``, so a file with corrupt pages fails here rather
    than in the bot. Then the store's own open-time checks run
    (:func:`bot.progress.schema.check_schema` as a reader): another application's file or
    an empty one (:class:`~bot.progress.schema.NotTutorDatabase`), one migrated by a newer
    version (``StoreTooNew``), one with pending migrations (``StoreOutdated``: the running
    bot would have migrated it) and one missing a table or column (``StoreDamaged``) fail
    with the store's message, so the check is green only on a file the bot and ``tutor
    stats`` accept. A file the bot could not write (its permissions, or its directory's,
    where the journal goes) fails as "read-only"; one that cannot be opened at all says
    "cannot be opened".
    """
    from bot.progress.db import open_read_only  # sqlite-utils: only when this check runs
    from bot.progress.schema import StoreRefused, check_schema

    path = settings.database_path
    if path.is_dir():
        return CheckResult(
            name="database", ok=False, detail=f"{path} is a directory, not a progress database"
        )
    if not path.is_file():
        return CheckResult(name="database", ok=False, detail=f"no database file at {path}")
    try:
        db = open_read_only(path, busy_timeout_s=settings.db_busy_timeout_s)
        try:
            tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            problems = [row[0] for row in db.execute("PRAGMA quick_check(3)")]
            if problems == ["ok"]:
                check_schema(db, path, writer=False)
        finally:
            db.close()
    except StoreRefused as exc:
        return CheckResult(name="database", ok=False, detail=str(exc))
    except sqlite3.DatabaseError as exc:
        if not os.access(path, os.R_OK) or "unable to open" in str(exc):
            return CheckResult(
                name="database", ok=False, detail=f"{path}: cannot be opened ({exc})"
            )
        return CheckResult(name="database", ok=False, detail=f"{path}: corrupt ({exc})")
    if problems != ["ok"]:
        return CheckResult(
            name="database", ok=False, detail=f"{path}: corrupt (quick_check: {problems[0]})"
        )
    if not os.access(path, os.W_OK) or not os.access(path.parent, os.W_OK):
        where = "the file" if not os.access(path, os.W_OK) else "its directory"
        return CheckResult(
            name="database", ok=False, detail=f"{path}: read-only ({where} cannot be written)"
        )
    return CheckResult(name="database", ok=True, detail=f"{path}: {tables} schema objects")


async def check_sandbox(settings: TutorSettings, timeout_s: float = 5.0) -> CheckResult:
    """Every worker ``settings.sandbox_address`` lists is reachable and ready.

    A ``local`` address names no running worker: the check starts one the way ``tutor
    play`` and ``tutor bot`` would (:func:`check_local_sandbox`), asks it, and stops it.

    Args:
        settings: the address and, for ``local``, the start-up timeout.
        timeout_s: seconds each running worker may take to answer ``GET /health``.
    """
    from sandbox.client import SandboxClient  # aiohttp: only when this check runs
    from sandbox.errors import SandboxError

    details: list[str] = []
    ok = True
    for endpoint in settings.sandbox_endpoints:
        if endpoint.kind == "local":
            return await check_local_sandbox(settings)
        client = (
            SandboxClient(unix_path=endpoint.unix_path, timeout_s=timeout_s, retries=0)
            if endpoint.kind == "unix"
            else SandboxClient(url=endpoint.url, timeout_s=timeout_s, retries=0)
        )
        where = f"unix:{endpoint.unix_path}" if endpoint.kind == "unix" else str(endpoint.url)
        try:
            async with client:
                health = await client.health()
        except SandboxError as exc:
            ok = False
            details.append(f"{where}: {exc}")
            continue
        detail = (
            f"{where}: torch {health.torch_version}, backend {health.backend}, "
            f"{health.running} running, {health.queued} queued"
        )
        if not health.ready:
            ok = False
            detail += ", not ready"
        details.append(detail)
    return CheckResult(name="sandbox", ok=ok, detail="; ".join(details))


async def check_local_sandbox(settings: TutorSettings) -> CheckResult:
    """Start a local worker as ``tutor play``/``tutor bot`` would, ask it, and stop it.

    It loads torch, so it takes as long as their start-up (about 10 s here, at most
    ``settings.sandbox_startup_timeout_s``). The detail says that a worker was started for
    the check and what it reported, or why it did not start (its last log line).
    """
    from bot.services import sandbox_runner  # the grader and store: only for this check
    from sandbox.errors import SandboxError

    started = time.monotonic()
    try:
        async with sandbox_runner(settings) as runner:
            health = await runner.health()
    except SandboxError as exc:
        return CheckResult(name="sandbox", ok=False, detail=f"local: {exc}")
    took = time.monotonic() - started
    code = "learner code accepted" if health.learner_code else "learner code REFUSED"
    detail = (
        f"local: started a worker for this check ({took:.0f} s) and stopped it: "
        f"torch {health.torch_version}, backend {health.backend}, {code}"
    )
    if not health.ready:
        detail += ", not ready"
    return CheckResult(name="sandbox", ok=health.ready, detail=detail)


def check_heartbeat(
    settings: TutorSettings,
    *,
    now: datetime,
    max_age_s: float = HEARTBEAT_MAX_AGE_S,
) -> CheckResult:
    """The bot's heartbeat is fresh and it was connected to the gateway recently.

    Args:
        settings: where the database (and so the heartbeat) lives.
        now: the current aware instant.
        max_age_s: seconds after which a heartbeat, or the last connection, is too old.
    """
    path = heartbeat_path(settings)
    beat = read_heartbeat(path)
    if beat is None:
        return CheckResult(name="heartbeat", ok=False, detail=f"no heartbeat at {path}")
    age = (now - beat.at).total_seconds()
    if age > max_age_s:
        return CheckResult(
            name="heartbeat",
            ok=False,
            detail=f"last heartbeat {age:.0f} s ago (over {max_age_s:g} s): stuck or gone",
        )
    if beat.connected_at is None:
        return CheckResult(
            name="heartbeat", ok=False, detail="alive, but never connected to Discord yet"
        )
    down = (now - beat.connected_at).total_seconds()
    if down > max_age_s:
        return CheckResult(
            name="heartbeat",
            ok=False,
            detail=f"alive, but disconnected from Discord for {down:.0f} s",
        )
    latency = beat.gateway.latency_ms
    shown = f", gateway latency {latency:.0f} ms" if latency is not None else ""
    return CheckResult(
        name="heartbeat",
        ok=True,
        detail=f"heartbeat {age:.0f} s ago, {beat.gateway.guilds} guild(s){shown}",
    )


async def run_checks(
    settings: TutorSettings,
    names: tuple[CheckName, ...],
    *,
    now: datetime | None = None,
    max_age_s: float = HEARTBEAT_MAX_AGE_S,
) -> list[CheckResult]:
    """Run the named checks, in the order given.

    Args:
        settings: the settings the checked process runs with.
        names: checks to run (:data:`CHECKS`).
        now: the current instant (default: now).
        max_age_s: the heartbeat's allowed age in seconds.
    """
    results = []
    for name in names:
        if name == "database":
            results.append(await asyncio.to_thread(check_database, settings))
        elif name == "sandbox":
            results.append(await check_sandbox(settings))
        else:
            results.append(
                check_heartbeat(settings, now=now or datetime.now(UTC), max_age_s=max_age_s)
            )
    return results


__all__ = [
    "CHECKS",
    "HEARTBEAT_INTERVAL_S",
    "HEARTBEAT_MAX_AGE_S",
    "CheckResult",
    "GatewayState",
    "Heartbeat",
    "HeartbeatWriter",
    "check_database",
    "check_heartbeat",
    "check_local_sandbox",
    "check_sandbox",
    "heartbeat_path",
    "read_heartbeat",
    "run_checks",
    "write_heartbeat",
]
