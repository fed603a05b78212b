"""The progress store the bot and ``tutor play`` use: async, with one owner thread.

SQLite connections belong to the thread that opened them, and the bot's event loop must
never wait on disk. :class:`ProgressStore` owns a single-thread executor: the connection
is opened, migrated, used and closed on that one thread, so every operation runs in order
(the thread is the write lock) and each ``await`` only waits for its own turn. Every
multi-statement write is one ``BEGIN IMMEDIATE`` transaction inside its function.

Typical use (the composition root)::

    settings = ProgressSettings()
    async with ProgressStore.from_settings(settings) as store:
        recorded = await store.record_attempt(AttemptIn.from_grade(...))
        stats = await store.learner_stats(user_id, guild_id=guild_id)

The clock is called once per operation, on the event loop; tests pass a fake one.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import Concatenate, ParamSpec, Self, TypeVar

from fsrs import Scheduler

from bot.progress import attempts, cache, drops, privacy, profiles, review, stats
from bot.progress.clock import Clock, system_clock
from bot.progress.db import (
    DEFAULT_BUSY_TIMEOUT_S,
    Database,
    Synchronous,
    open_database,
    open_read_only,
)
from bot.progress.models import (
    AttemptIn,
    AttemptRecorded,
    DeletionReport,
    Drop,
    DropFailure,
    DropSummary,
    DropTick,
    GuildSettings,
    ItemRef,
    Leaderboard,
    LeaderboardPeriod,
    LearnerExport,
    LearnerProfile,
    LearnerStats,
    Leech,
    RetentionReport,
    ReviewQueue,
)
from bot.progress.rules import tutor_scheduler
from bot.progress.schedule import DEFAULT_GRACE, NONCE_WINDOW

# The refusals of open(), re-exported: callers import them from the store.
from bot.progress.schema import NotTutorDatabase as NotTutorDatabase
from bot.progress.schema import StoreDamaged as StoreDamaged
from bot.progress.schema import StoreOutdated as StoreOutdated
from bot.progress.schema import StoreRefused as StoreRefused
from bot.progress.schema import StoreTooNew as StoreTooNew
from bot.progress.schema import check_schema, migrate
from bot.progress.settings import ProgressSettings

P = ParamSpec("P")
T = TypeVar("T")


class StoreClosed(RuntimeError):
    """The store was used before ``open()`` or after ``close()``."""


class ProgressStore:
    """Async access to learner progress, drops and the sandbox cache in one SQLite file.

    Args:
        path: the database file (``":memory:"`` for a private in-memory database).
        clock: returns the current aware instant; called once per operation.
        scheduler: the FSRS scheduler (default :func:`bot.progress.rules.tutor_scheduler`).
        answer_retention_days: days answer texts are kept (0: never stored).
        busy_timeout_s: seconds a write waits for another process's lock.
        synchronous: SQLite ``synchronous`` level, ``NORMAL`` or ``FULL``.
        read_only: open an existing file for reading only (``tutor stats``): nothing is
            created, migrated, purged or written, and a write raises
            ``sqlite3.OperationalError``; a file whose schema is behind this code is
            refused (:class:`StoreOutdated`).

    Attributes:
        ignored_wal: after a read-only :meth:`open` that had to read the file
            ``immutable=1``, its non-empty ``-wal`` file, whose changes are not seen
            (:attr:`bot.progress.db.ReadOnlyDatabase.ignored_wal`); else None.
    """

    def __init__(
        self,
        path: Path | str,
        *,
        clock: Clock = system_clock,
        scheduler: Scheduler | None = None,
        answer_retention_days: int = 90,
        busy_timeout_s: float = DEFAULT_BUSY_TIMEOUT_S,
        synchronous: Synchronous = "NORMAL",
        read_only: bool = False,
    ) -> None:
        if answer_retention_days < 0:
            raise ValueError(f"answer_retention_days must be >= 0, got {answer_retention_days}")
        self.path = path
        self.answer_retention_days = answer_retention_days
        self._clock = clock
        self._scheduler = scheduler or tutor_scheduler()
        self._busy_timeout_s = busy_timeout_s
        self._synchronous: Synchronous = synchronous
        self.read_only = read_only
        self._executor: ThreadPoolExecutor | None = None
        self._db: Database | None = None
        self.ignored_wal: Path | None = None

    @classmethod
    def from_settings(
        cls, settings: ProgressSettings, *, clock: Clock = system_clock, read_only: bool = False
    ) -> Self:
        """A store configured from :class:`ProgressSettings` (not opened yet)."""
        return cls(
            settings.database_path,
            clock=clock,
            answer_retention_days=settings.answer_retention_days,
            busy_timeout_s=settings.db_busy_timeout_s,
            synchronous=settings.db_synchronous,
            read_only=read_only,
        )

    # --- lifecycle ---------------------------------------------------------------------

    async def open(self) -> None:
        """Start the owner thread, open the database, apply pending migrations, and remove
        answer texts past the retention period (call :meth:`purge_answer_texts` daily too).

        Raises:
            NotTutorDatabase: the file is another application's SQLite database (tables,
                but no record of our migrations), or empty for a read-only store.
            StoreTooNew: a newer version of autograd-tutor migrated the file.
            StoreOutdated: (read-only store) the file needs migrations this code has.
            StoreDamaged: a fully migrated file lacks a table or column.
            sqlite3.Error: the file cannot be opened, is not a database, or a migration
                failed (then nothing of that migration is applied). Whatever is raised,
                nothing was written to the file.
        """
        if self._executor is not None:
            return
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="progress-db")

        def connect() -> Database:
            if self.read_only:
                reader = open_read_only(Path(self.path), busy_timeout_s=self._busy_timeout_s)
                try:
                    check_schema(reader, self.path, writer=False)
                except BaseException:
                    reader.close()
                    raise
                self.ignored_wal = reader.ignored_wal
                return reader
            db = open_database(
                self.path,
                busy_timeout_s=self._busy_timeout_s,
                synchronous=self._synchronous,
                check=functools.partial(check_schema, path=self.path, writer=True),
            )
            try:
                migrate(db)
            except BaseException:
                db.close()
                raise
            return db

        loop = asyncio.get_running_loop()
        try:
            self._db = await loop.run_in_executor(self._executor, connect)
        except BaseException:
            self._executor.shutdown(wait=True)
            self._executor = None
            raise
        if not self.read_only:
            await self.purge_answer_texts()

    async def close(self) -> None:
        """Close the database and stop the owner thread (waits for queued operations)."""
        executor, db = self._executor, self._db
        if executor is None:
            return
        self._executor, self._db = None, None
        if db is not None:
            await asyncio.get_running_loop().run_in_executor(executor, db.close)
        executor.shutdown(wait=True)

    async def __aenter__(self) -> Self:
        await self.open()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def _run(
        self, fn: Callable[Concatenate[Database, P], T], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """Run ``fn(db, *args, **kwargs)`` on the owner thread and await its result."""
        if self._executor is None or self._db is None:
            raise StoreClosed("the progress store is not open")
        call = functools.partial(fn, self._db, *args, **kwargs)
        return await asyncio.get_running_loop().run_in_executor(self._executor, call)

    def now(self) -> datetime:
        """The store's clock reading (aware)."""
        return self._clock()

    # --- learners and guilds ---------------------------------------------------------------

    async def get_learner(self, learner_id: int) -> LearnerProfile:
        """The learner's profile (defaults when unknown). See :func:`profiles.get_learner`."""
        return await self._run(profiles.get_learner, learner_id)

    async def save_learner(self, profile: LearnerProfile) -> LearnerProfile:
        """Create or update a learner's time zone and settings."""
        return await self._run(profiles.save_learner, profile, self.now())

    async def get_guild_settings(self, guild_id: int) -> GuildSettings:
        """The guild's settings (defaults when unknown)."""
        return await self._run(profiles.get_guild_settings, guild_id)

    async def save_guild_settings(self, settings: GuildSettings) -> GuildSettings:
        """Create or replace the guild's settings (``/tutor-admin drops set|off``).

        See :func:`profiles.save_guild_settings` for how a schedule change restarts drops.
        """
        return await self._run(profiles.save_guild_settings, settings, self.now())

    # --- attempts ------------------------------------------------------------------------

    async def record_attempt(self, attempt: AttemptIn) -> AttemptRecorded:
        """Record a graded attempt (idempotent by key; one per learner and drop).

        Raises:
            AlreadyAnswered, DropClosed, UnknownDrop, DropMismatch, IdempotencyConflict:
                see :func:`attempts.record_attempt`.
        """
        return await self._run(
            attempts.record_attempt,
            attempt,
            self.now(),
            scheduler=self._scheduler,
            keep_answer_text=self.answer_retention_days > 0,
        )

    # --- stats, leaderboards, review -----------------------------------------------------------

    async def learner_stats(self, learner_id: int, guild_id: int | None = None) -> LearnerStats:
        """The learner's stats in one guild, or everywhere when ``guild_id`` is None."""
        return await self._run(stats.learner_stats, learner_id, self.now(), guild_id)

    async def recent_items(self, learner_id: int, limit: int = 20) -> list[str]:
        """Item ids the learner answered most recently, newest first (``/quiz`` avoids them)."""
        return await self._run(stats.recent_items, learner_id, limit)

    async def leaderboard(
        self,
        guild_id: int,
        period: LeaderboardPeriod = "week",
        *,
        limit: int = 10,
        learner_id: int | None = None,
    ) -> Leaderboard:
        """The guild's weekly or all-time leaderboard (``me`` filled for ``learner_id``)."""
        return await self._run(
            stats.leaderboard, guild_id, period, self.now(), limit=limit, learner_id=learner_id
        )

    async def review_queue(self, learner_id: int, limit: int = 10) -> ReviewQueue:
        """Due review cards, then missed items not yet due."""
        return await self._run(review.review_queue, learner_id, self.now(), limit)

    async def leeches(self) -> list[Leech]:
        """Items with leech cards (>= 8 lapses), for authors."""
        return await self._run(review.leeches)

    # --- drops ---------------------------------------------------------------------------

    async def tick_drops(
        self,
        items: Sequence[ItemRef],
        *,
        grace: timedelta = DEFAULT_GRACE,
        nonce_window: timedelta = NONCE_WINDOW,
    ) -> DropTick:
        """One scheduler tick: what to post, reveal, and what was skipped or failed.

        See :func:`drops.tick_drops`; call it every minute or so.
        """
        return await self._run(drops.tick_drops, list(items), self.now(), grace, nonce_window)

    async def create_manual_drop(self, guild_id: int, items: Sequence[ItemRef]) -> Drop:
        """Take today's drop slot now (``/tutor-admin drops now``); post it like ``to_post``.

        Raises:
            DropsNotConfigured: no drop channel set.
            DropAlreadyExists: today's drop already exists in the channel.
        """
        return await self._run(drops.create_manual_drop, guild_id, list(items), self.now())

    async def get_drop(self, drop_id: int) -> Drop:
        """The drop (raises ``UnknownDrop``)."""
        return await self._run(drops.get_drop, drop_id)

    async def begin_posting(self, drop_id: int) -> Drop:
        """``scheduled -> posting``, just before sending; see :func:`drops.begin_posting`."""
        return await self._run(drops.begin_posting, drop_id, self.now())

    async def mark_open(self, drop_id: int, message_id: int) -> Drop:
        """``posting -> open`` with the posted message id."""
        return await self._run(drops.mark_open, drop_id, message_id, self.now())

    async def begin_reveal(self, drop_id: int) -> Drop:
        """Record that the reveal is being sent (closed drops only)."""
        return await self._run(drops.begin_reveal, drop_id, self.now())

    async def mark_revealed(self, drop_id: int, reveal_message_id: int) -> Drop:
        """``closed -> revealed`` with the reveal message id."""
        return await self._run(drops.mark_revealed, drop_id, reveal_message_id, self.now())

    async def mark_failed(self, drop_id: int, reason: str) -> Drop:
        """Any live state ``-> failed`` with a reason for ``/tutor-admin settings``."""
        return await self._run(drops.mark_failed, drop_id, reason, self.now())

    async def drop_summary(self, drop_id: int, top: int = 3) -> DropSummary:
        """Answers, label shares, most common misconception and top scorers of a drop."""
        return await self._run(drops.drop_summary, drop_id, top)

    async def drop_failures(self, guild_id: int, limit: int = 5) -> list[DropFailure]:
        """The guild's latest failed or skipped drops, newest first."""
        return await self._run(drops.drop_failures, guild_id, limit)

    # --- privacy -------------------------------------------------------------------------

    async def forget_learner(self, learner_id: int) -> DeletionReport:
        """Delete everything about a learner (``/tutor forget-me``)."""
        return await self._run(privacy.forget_learner, learner_id)

    async def export_learner(self, learner_id: int) -> LearnerExport:
        """Everything stored about a learner (``/tutor export``)."""
        return await self._run(privacy.export_learner, learner_id, self.now())

    async def purge_answer_texts(self) -> RetentionReport:
        """Remove answer texts older than the retention period (run daily and at start)."""
        return await self._run(privacy.purge_answer_texts, self.now(), self.answer_retention_days)

    # --- sandbox result cache --------------------------------------------------------------

    async def cache_get(self, key: str) -> str | None:
        """The cached sandbox result JSON for ``key`` (see :mod:`bot.progress.cache`)."""
        return await self._run(cache.cache_get, key)

    async def cache_put(self, key: str, result_json: str) -> None:
        """Store a sandbox result JSON under ``key``."""
        await self._run(cache.cache_put, key, result_json, self.now())

    # --- maintenance ---------------------------------------------------------------------

    async def integrity_check(self) -> str:
        """SQLite's ``PRAGMA integrity_check``: ``"ok"`` or the problems found."""
        return await self._run(_integrity_check)


def _integrity_check(db: Database) -> str:
    rows = db.execute("PRAGMA integrity_check").fetchall()
    return "\n".join(str(row[0]) for row in rows)


__all__ = ["ProgressStore", "StoreClosed"]
