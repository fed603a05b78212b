"""Opening the SQLite database, write transactions, and the column encodings.

Every connection is opened here with the same settings: WAL journal, foreign keys on, a
busy timeout, and the chosen ``synchronous`` level. A connection belongs to the thread that
opened it (sqlite3's ``check_same_thread``); :class:`bot.progress.store.ProgressStore` gives
it one owner thread.

Encodings: timestamps are ISO 8601 UTC text with microseconds
(``2025-03-30T01:30:00.000000+00:00``), so text order is time order; lists are JSON text.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime
from pathlib import Path

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

# Defined without sqlite-utils so settings can use them; re-exported for the store.
from bot.progress.options import DEFAULT_BUSY_TIMEOUT_S as DEFAULT_BUSY_TIMEOUT_S
from bot.progress.options import Synchronous as Synchronous

_SYNCHRONOUS_LEVELS: frozenset[str] = frozenset({"NORMAL", "FULL"})


def open_database(
    path: Path | str,
    *,
    busy_timeout_s: float = DEFAULT_BUSY_TIMEOUT_S,
    synchronous: Synchronous = "NORMAL",
    check: Callable[[Database], None] | None = None,
) -> Database:
    """Open (creating if needed) the database with the store's connection settings.

    Args:
        path: the database file, or ``":memory:"``; missing parent directories are made.
        busy_timeout_s: seconds to wait for another connection's lock (>= 0).
        synchronous: ``NORMAL`` or ``FULL``; see :data:`Synchronous`.
        check: called with the new connection before anything is written to the file
            (the switch to WAL is a write); what it raises closes the connection and
            propagates (the store refuses another application's file this way).

    Returns:
        A sqlite-utils ``Database``; only the calling thread may use it.

    Raises:
        ValueError: a negative busy timeout or an unknown ``synchronous`` level.
        sqlite3.Error: the file cannot be opened or is not a database, or ``check``
            refused it.
    """
    if busy_timeout_s < 0:
        raise ValueError(f"busy_timeout_s must be >= 0, got {busy_timeout_s}")
    if synchronous not in _SYNCHRONOUS_LEVELS:  # interpolated into a PRAGMA below
        raise ValueError(f"synchronous must be NORMAL or FULL, got {synchronous!r}")
    if str(path) != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), timeout=busy_timeout_s)
    db = Database(conn)
    if check is not None:
        try:
            check(db)
        except BaseException:
            conn.close()
            raise
    if str(path) != ":memory:":
        db.enable_wal()
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_s * 1000)}")
    conn.execute(f"PRAGMA synchronous = {synchronous}")
    return db


class ReadOnlyDatabase(Database):
    """A database opened by :func:`open_read_only`.

    Attributes:
        ignored_wal: the non-empty ``-wal`` file next to the database when it was opened
            ``immutable=1``: the changes in it (recent answers, until a writer checkpoints
            them into the main file) are not seen. None when nothing was ignored.
    """

    ignored_wal: Path | None = None


def open_read_only(
    path: Path, *, busy_timeout_s: float = DEFAULT_BUSY_TIMEOUT_S
) -> ReadOnlyDatabase:
    """Open an existing database for reading only: nothing is created, migrated or written.

    For commands that only read (``tutor stats``) on a file the user may not be able to
    write (a copy of a server's database, a read-only mount). SQLite's ``mode=ro`` still
    needs the WAL's shared-memory file; when the file's directory cannot be written that
    file cannot be made, and the database is opened ``immutable=1`` instead, which reads
    the main file as it is (sqlite.org/uri.html: a write by another process while it is
    open is not seen, nor is what is still in the ``-wal`` file; see
    :attr:`ReadOnlyDatabase.ignored_wal`). In a writable directory ``mode=ro`` makes the
    ``-shm`` (and ``-wal``) files SQLite's WAL readers need, and removes them on close
    unless another connection holds them.

    Args:
        path: the database file; it must exist.
        busy_timeout_s: seconds to wait for another connection's lock (>= 0).

    Returns:
        A sqlite-utils ``Database`` whose connection refuses writes.

    Raises:
        sqlite3.Error: the file does not exist, cannot be read or is not a database.
    """
    from urllib.parse import quote

    resolved = Path(path).resolve()
    location = f"file:{quote(str(resolved))}?mode=ro"
    try:
        return ReadOnlyDatabase(_connect_read_only(location, busy_timeout_s))
    except sqlite3.OperationalError:
        if os.access(resolved.parent, os.W_OK):
            raise
    db = ReadOnlyDatabase(_connect_read_only(location + "&immutable=1", busy_timeout_s))
    wal = resolved.with_name(resolved.name + "-wal")
    try:
        db.ignored_wal = wal if wal.stat().st_size > 0 else None
    except OSError:  # no -wal file: nothing is ignored
        db.ignored_wal = None
    return db


def _connect_read_only(uri: str, busy_timeout_s: float) -> sqlite3.Connection:
    conn = sqlite3.connect(uri, uri=True, timeout=busy_timeout_s)
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_s * 1000)}")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # not a database?
    except BaseException:
        conn.close()
        raise
    return conn


@contextmanager
def write_transaction(db: Database) -> Iterator[Database]:
    """Run a block of writes as one transaction that takes the write lock up front.

    sqlite-utils' ``atomic()`` starts a deferred ``BEGIN``: a transaction that reads, then
    writes, may fail with ``SQLITE_BUSY`` without waiting when another process (``tutor
    play``, a second bot) wrote in between, because its read snapshot is stale.
    ``BEGIN IMMEDIATE`` takes the write lock first, so the busy timeout applies and the
    block's reads and writes see one consistent state (sqlite.org/lang_transaction.html).

    Raises:
        sqlite3.OperationalError: the write lock was not obtained within the busy timeout.
    """
    conn = db.conn
    if conn.in_transaction:
        raise RuntimeError("write_transaction cannot be nested")
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield db
        conn.execute("COMMIT")
    except BaseException:
        conn.rollback()  # a no-op when an error already ended the transaction
        raise


def describe_open_error(path: Path, exc: sqlite3.Error) -> str:
    """Why the database at ``path`` could not be opened, in words: SQLite's message, and
    "read-only" when the file or its directory (where the journal goes) cannot be written,
    which SQLite reports only as "unable to open database file" or "attempt to write a
    readonly database".

    Args:
        path: the database file.
        exc: what SQLite raised.

    Returns:
        e.g. ``unable to open database file (read-only: its directory data cannot be
        written)``.
    """
    if path.exists() and not os.access(path, os.W_OK):
        return f"{exc} (read-only: the file cannot be written)"
    if path.parent.is_dir() and not os.access(path.parent, os.W_OK):
        return f"{exc} (read-only: its directory {path.parent} cannot be written)"
    return str(exc)


def ts(value: datetime) -> str:
    """Encode an aware datetime as the store's UTC text form.

    Raises:
        ValueError: ``value`` is naive (no time zone).
    """
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"naive datetime {value!r}: the store only takes aware datetimes")
    return value.astimezone(UTC).isoformat(timespec="microseconds")


def from_ts(text: str) -> datetime:
    """Decode a stored timestamp (always UTC)."""
    return datetime.fromisoformat(text).astimezone(UTC)


def from_date(text: str) -> date:
    """Decode a stored local date (``YYYY-MM-DD``)."""
    return date.fromisoformat(text)


def dumps(value: object) -> str:
    """Encode a JSON column compactly."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def loads_str_list(text: str) -> list[str]:
    """Decode a JSON column that holds a list of strings."""
    value = json.loads(text)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"expected a JSON list of strings, got {text[:80]!r}")
    return value


__all__ = [
    "DEFAULT_BUSY_TIMEOUT_S",
    "Database",
    "Migrations",
    "ReadOnlyDatabase",
    "Synchronous",
    "describe_open_error",
    "dumps",
    "from_date",
    "from_ts",
    "loads_str_list",
    "open_database",
    "open_read_only",
    "ts",
    "write_transaction",
]
