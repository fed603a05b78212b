"""Which files the store refuses before writing anything: another application's SQLite
file, an empty file for a reader, and a file migrated by a newer version of the tutor."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.progress.store import NotTutorDatabase, ProgressStore, StoreTooNew
from tests.progress.conftest import ALICE, attempt


def _other_app(path: Path) -> Path:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE foo (x INTEGER)")
    conn.execute("INSERT INTO foo VALUES (1)")
    conn.commit()
    conn.close()
    return path


def _schema(path: Path) -> list[tuple[str, str]]:
    conn = sqlite3.connect(path)
    rows = conn.execute("SELECT type, name FROM sqlite_master ORDER BY name").fetchall()
    conn.close()
    return rows


def _newer(path: Path) -> Path:
    """Our database after a later version applied a migration this code does not have."""
    conn = sqlite3.connect(path)
    conn.execute(
        "INSERT INTO _sqlite_migrations (migration_set, name, applied_at) "
        "VALUES ('autograd_tutor.progress', '0002_future', '2030-01-01')"
    )
    conn.commit()
    conn.close()
    return path


@pytest.mark.parametrize("read_only", [False, True])
async def test_another_apps_database_is_refused_and_left_as_it_was(
    tmp_path: Path, read_only: bool
) -> None:
    path = _other_app(tmp_path / "other.db")
    before = (path.read_bytes(), _schema(path))
    with pytest.raises(
        NotTutorDatabase, match=r"is not an autograd-tutor database \(it has tables foo\)"
    ):
        await ProgressStore(path, read_only=read_only).open()
    assert (path.read_bytes(), _schema(path)) == before


async def test_a_reader_calls_an_empty_file_a_new_database_not_damage(tmp_path: Path) -> None:
    path = tmp_path / "empty.db"
    path.touch()
    with pytest.raises(NotTutorDatabase, match="is an empty, new database: no answer has been"):
        await ProgressStore(path, read_only=True).open()
    assert path.stat().st_size == 0


async def test_a_writer_takes_an_empty_file_as_a_new_database(tmp_path: Path) -> None:
    path = tmp_path / "empty.db"
    path.touch()
    async with ProgressStore(path) as store:
        await store.record_attempt(attempt())
        assert (await store.learner_stats(ALICE)).attempts == 1


@pytest.fixture
async def newer(tmp_path: Path) -> Path:
    path = tmp_path / "tutor.db"
    async with ProgressStore(path) as store:
        await store.record_attempt(attempt())
    return _newer(path)


@pytest.mark.parametrize("read_only", [False, True])
async def test_a_database_from_a_newer_version_is_refused(newer: Path, read_only: bool) -> None:
    with pytest.raises(
        StoreTooNew, match=r"newer version of autograd-tutor \(unknown migrations: 0002_future\)"
    ):
        await ProgressStore(newer, read_only=read_only).open()


async def test_a_writer_records_nothing_in_a_database_from_a_newer_version(newer: Path) -> None:
    with pytest.raises(StoreTooNew):
        await ProgressStore(newer).open()
    conn = sqlite3.connect(newer)
    count = conn.execute("SELECT count(*) FROM attempts").fetchone()[0]
    conn.close()
    assert count == 1


async def test_table_names_from_another_file_are_printed_without_control_characters(
    tmp_path: Path,
) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute('CREATE TABLE "red\x1b[31m" (x INTEGER)')
    conn.close()
    with pytest.raises(NotTutorDatabase) as refused:
        await ProgressStore(path, read_only=True).open()
    assert "(it has tables red?[31m)" in str(refused.value)


@pytest.mark.parametrize(
    ("damage", "named"),
    [
        ("DROP TABLE review_cards", "review_cards"),
        ("ALTER TABLE attempts DROP COLUMN rating", "attempts.rating"),
    ],
)
@pytest.mark.parametrize("read_only", [False, True])
async def test_a_database_missing_a_table_or_column_is_refused_at_open(
    tmp_path: Path, damage: str, named: str, read_only: bool
) -> None:
    """A tester dropped a table: tutor play showed each question, then refused every answer."""
    from bot.progress.schema import StoreDamaged

    path = tmp_path / "tutor.db"
    async with ProgressStore(path) as store:
        await store.record_attempt(attempt())
    conn = sqlite3.connect(path)
    conn.execute(damage)
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(StoreDamaged, match=named):
        async with ProgressStore(path, read_only=read_only):
            pass
    assert path.read_bytes() == before
