"""The store's plumbing: owner thread, non-blocking event loop, connection settings, migrations."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from bot.progress.db import open_database
from bot.progress.schema import MIGRATIONS
from bot.progress.store import ProgressStore, StoreClosed
from tests.progress.conftest import ALICE, FakeClock, attempt


def test_connections_use_wal_foreign_keys_and_a_busy_timeout(db_path: Path) -> None:
    db = open_database(db_path, busy_timeout_s=2.5)
    pragmas = [
        db.execute(f"PRAGMA {name}").fetchone()[0]
        for name in ("journal_mode", "foreign_keys", "busy_timeout")
    ]
    db.close()
    assert pragmas == ["wal", 1, 2500]


async def test_migrations_are_applied_once(db_path: Path, clock: FakeClock) -> None:
    for _ in range(2):
        async with ProgressStore(db_path, clock=clock):
            pass
    db = open_database(db_path)
    applied = [m.name for m in MIGRATIONS.applied(db)]
    db.close()
    assert applied == ["0001_initial"]


async def test_a_store_used_after_close_says_so(db_path: Path, clock: FakeClock) -> None:
    store = ProgressStore(db_path, clock=clock)
    await store.open()
    await store.close()
    with pytest.raises(StoreClosed):
        await store.learner_stats(ALICE)


async def test_a_file_that_is_not_a_database_fails_to_open(
    tmp_path: Path, clock: FakeClock
) -> None:
    bogus = tmp_path / "tutor.db"
    bogus.write_text("these are not the bytes of a database")
    with pytest.raises(sqlite3.DatabaseError):
        await ProgressStore(bogus, clock=clock).open()


async def test_the_event_loop_keeps_running_while_a_write_waits_for_a_lock(
    db_path: Path, clock: FakeClock
) -> None:
    async with ProgressStore(db_path, clock=clock, busy_timeout_s=10) as store:
        blocker = sqlite3.connect(db_path, isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        write = asyncio.create_task(store.record_attempt(attempt()))
        ticks = 0
        for _ in range(20):
            await asyncio.sleep(0.01)
            ticks += 1
        assert not write.done()
        blocker.execute("COMMIT")
        blocker.close()
        recorded = await write
    assert (ticks, recorded.duplicate) == (20, False)


async def test_a_write_gives_up_after_the_busy_timeout(db_path: Path, clock: FakeClock) -> None:
    async with ProgressStore(db_path, clock=clock, busy_timeout_s=0.2) as store:
        blocker = sqlite3.connect(db_path, isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")
        try:
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                await store.record_attempt(attempt())
        finally:
            blocker.execute("ROLLBACK")
            blocker.close()
        assert (await store.learner_stats(ALICE)).attempts == 0


async def test_integrity_check_of_a_fresh_store_is_ok(store: ProgressStore) -> None:
    assert await store.integrity_check() == "ok"
