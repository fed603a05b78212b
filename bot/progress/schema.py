"""The progress schema, as sqlite-utils migrations applied at startup.

Facts live in ``attempts`` (append-only) and ``drops``; everything the hot queries read is
kept in summary tables that triggers on ``attempts`` update inside the same transaction as
the insert, so a summary can never disagree with the attempts it counts, whoever writes
(the bot, ``tutor play``, the benchmark). ``docs/PROGRESS.md`` describes every table.

Summary tables carry a ``scope``: ``0`` counts every attempt of the learner, a guild id
counts the attempts made in that guild. An attempt in a guild updates both rows; an attempt
outside a guild (DM, ``tutor play``) updates scope 0 only.

Add a migration by appending a decorated function; never edit one that has shipped.
"""

from __future__ import annotations

import functools
import sqlite3
from pathlib import Path

from bot.progress.db import Database, Migrations
from bot.progress.rules import LEECH_LAPSES

MIGRATIONS = Migrations("autograd_tutor.progress")
"""The store's migration set (recorded in ``_sqlite_migrations``)."""

EVERYWHERE = 0
"""The ``scope`` of summary rows that count a learner's attempts in every guild and DM."""

DROP_STATES = ("scheduled", "posting", "open", "closed", "revealed", "failed", "skipped")

# Two-element "scopes" row source for the triggers: 0, plus the guild when there is one.
# (SQLite does not allow common table expressions inside triggers.)
_SCOPES = "(SELECT 0 AS scope UNION ALL SELECT NEW.guild_id WHERE NEW.guild_id IS NOT NULL)"

_ATTEMPT_COLUMNS_FIXED = (
    "attempt_id, idempotency_key, learner_id, guild_id, drop_id, item_id, kind, tags, "
    "difficulty, verdict, verdict_correct, score, label, concepts_hit, concepts_missing, "
    "misconceptions, duration_ms, hint_used, first_try, rating, points, local_date, week, "
    "created_at"
)

_V1 = [
    """
    CREATE TABLE learners (
        learner_id INTEGER PRIMARY KEY,
        time_zone TEXT NOT NULL DEFAULT 'UTC',
        settings TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    ) STRICT
    """,
    """
    CREATE TABLE guilds (
        guild_id INTEGER PRIMARY KEY,
        time_zone TEXT NOT NULL DEFAULT 'UTC',
        drops_enabled INTEGER NOT NULL DEFAULT 0 CHECK (drops_enabled IN (0, 1)),
        drop_channel_id INTEGER,
        drop_time TEXT CHECK (drop_time IS NULL OR drop_time GLOB '[0-2][0-9]:[0-5][0-9]'),
        kinds TEXT NOT NULL DEFAULT '[]',
        reveal_after_hours REAL NOT NULL DEFAULT 24,
        run_enabled INTEGER NOT NULL DEFAULT 1 CHECK (run_enabled IN (0, 1)),
        drops_since TEXT,
        updated_at TEXT NOT NULL
    ) STRICT
    """,
    f"""
    CREATE TABLE drops (
        drop_id INTEGER PRIMARY KEY,
        guild_id INTEGER NOT NULL REFERENCES guilds (guild_id),
        channel_id INTEGER NOT NULL,
        local_date TEXT NOT NULL,
        item_id TEXT,
        state TEXT NOT NULL CHECK (state IN {DROP_STATES!r}),
        nonce TEXT NOT NULL UNIQUE,
        message_id INTEGER,
        reveal_message_id INTEGER,
        scheduled_for TEXT NOT NULL,
        opens_at TEXT,
        closes_at TEXT,
        reveal_started_at TEXT,
        failure_reason TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (channel_id, local_date)
    ) STRICT
    """,
    """
    CREATE INDEX drops_active ON drops (state)
        WHERE state IN ('scheduled', 'posting', 'open', 'closed')
    """,
    """
    CREATE INDEX drops_failures ON drops (guild_id, updated_at)
        WHERE state IN ('failed', 'skipped')
    """,
    """
    CREATE TABLE attempts (
        attempt_id INTEGER PRIMARY KEY,
        idempotency_key TEXT NOT NULL UNIQUE,
        learner_id INTEGER NOT NULL REFERENCES learners (learner_id) ON DELETE CASCADE,
        guild_id INTEGER,
        drop_id INTEGER REFERENCES drops (drop_id),
        item_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        tags TEXT NOT NULL,
        difficulty INTEGER NOT NULL,
        verdict INTEGER,
        verdict_correct INTEGER,
        answer_text TEXT,
        score REAL NOT NULL CHECK (score BETWEEN 0 AND 1),
        label TEXT NOT NULL CHECK (label IN ('correct', 'partial', 'incorrect')),
        concepts_hit TEXT NOT NULL,
        concepts_missing TEXT NOT NULL,
        misconceptions TEXT NOT NULL,
        duration_ms INTEGER,
        hint_used INTEGER NOT NULL,
        first_try INTEGER NOT NULL,
        rating INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 4),
        points INTEGER NOT NULL CHECK (points >= 0),
        local_date TEXT NOT NULL,
        week TEXT NOT NULL,
        created_at TEXT NOT NULL
    ) STRICT
    """,
    "CREATE INDEX attempts_by_learner ON attempts (learner_id, attempt_id)",
    # One attempt per (learner, drop), and the drop summary's lookup.
    """
    CREATE UNIQUE INDEX attempts_one_per_drop ON attempts (drop_id, learner_id)
        WHERE drop_id IS NOT NULL
    """,
    # Retention: only rows that still hold text are indexed, so a pass reads only those.
    """
    CREATE INDEX attempts_text_age ON attempts (created_at)
        WHERE answer_text IS NOT NULL
    """,
    f"""
    CREATE TRIGGER attempts_append_only BEFORE UPDATE OF {_ATTEMPT_COLUMNS_FIXED} ON attempts
    BEGIN
        SELECT RAISE(ABORT, 'attempts are append-only');
    END
    """,
    """
    CREATE TRIGGER attempts_text_purge_only BEFORE UPDATE OF answer_text ON attempts
    WHEN NEW.answer_text IS NOT NULL
    BEGIN
        SELECT RAISE(ABORT, 'answer_text can only be purged (set to NULL)');
    END
    """,
    """
    CREATE TABLE learner_items (
        learner_id INTEGER NOT NULL REFERENCES learners (learner_id) ON DELETE CASCADE,
        scope INTEGER NOT NULL,
        item_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        tags TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        correct INTEGER NOT NULL,
        score_sum REAL NOT NULL,
        first_label TEXT NOT NULL,
        last_label TEXT NOT NULL,
        last_score REAL NOT NULL,
        last_at TEXT NOT NULL,
        points INTEGER NOT NULL,
        PRIMARY KEY (learner_id, scope, item_id)
    ) WITHOUT ROWID, STRICT
    """,
    """
    CREATE TABLE learner_concepts (
        learner_id INTEGER NOT NULL REFERENCES learners (learner_id) ON DELETE CASCADE,
        scope INTEGER NOT NULL,
        concept_id TEXT NOT NULL,
        hits INTEGER NOT NULL,
        misses INTEGER NOT NULL,
        PRIMARY KEY (learner_id, scope, concept_id)
    ) WITHOUT ROWID, STRICT
    """,
    """
    CREATE TABLE learner_days (
        learner_id INTEGER NOT NULL REFERENCES learners (learner_id) ON DELETE CASCADE,
        scope INTEGER NOT NULL,
        local_date TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        PRIMARY KEY (learner_id, scope, local_date)
    ) WITHOUT ROWID, STRICT
    """,
    """
    CREATE TABLE points (
        guild_id INTEGER NOT NULL,
        period TEXT NOT NULL,
        learner_id INTEGER NOT NULL REFERENCES learners (learner_id) ON DELETE CASCADE,
        points INTEGER NOT NULL,
        reached_at TEXT NOT NULL,
        PRIMARY KEY (guild_id, period, learner_id)
    ) WITHOUT ROWID, STRICT
    """,
    "CREATE INDEX points_ranking ON points (guild_id, period, points DESC, reached_at)",
    "CREATE INDEX points_by_learner ON points (learner_id)",
    f"""
    CREATE TRIGGER attempts_summaries AFTER INSERT ON attempts
    BEGIN
        INSERT INTO learner_items (learner_id, scope, item_id, kind, tags, attempts, correct,
                                   score_sum, first_label, last_label, last_score, last_at,
                                   points)
        SELECT NEW.learner_id, s.scope, NEW.item_id, NEW.kind, NEW.tags, 1,
               NEW.label = 'correct', NEW.score, NEW.label, NEW.label, NEW.score,
               NEW.created_at, NEW.points
        FROM {_SCOPES} AS s WHERE true
        ON CONFLICT (learner_id, scope, item_id) DO UPDATE SET
            attempts = attempts + 1,
            correct = correct + excluded.correct,
            score_sum = score_sum + excluded.score_sum,
            last_label = excluded.last_label,
            last_score = excluded.last_score,
            last_at = excluded.last_at,
            points = points + excluded.points;

        INSERT INTO learner_concepts (learner_id, scope, concept_id, hits, misses)
        SELECT NEW.learner_id, s.scope, c.value, 1, 0
        FROM {_SCOPES} AS s, json_each(NEW.concepts_hit) AS c WHERE true
        ON CONFLICT (learner_id, scope, concept_id) DO UPDATE SET hits = hits + 1;

        INSERT INTO learner_concepts (learner_id, scope, concept_id, hits, misses)
        SELECT NEW.learner_id, s.scope, c.value, 0, 1
        FROM {_SCOPES} AS s, json_each(NEW.concepts_missing) AS c WHERE true
        ON CONFLICT (learner_id, scope, concept_id) DO UPDATE SET misses = misses + 1;

        INSERT INTO learner_days (learner_id, scope, local_date, attempts)
        SELECT NEW.learner_id, s.scope, NEW.local_date, 1
        FROM {_SCOPES} AS s WHERE true
        ON CONFLICT (learner_id, scope, local_date) DO UPDATE SET attempts = attempts + 1;

        INSERT INTO points (guild_id, period, learner_id, points, reached_at)
        SELECT NEW.guild_id, p.period, NEW.learner_id, NEW.points, NEW.created_at
        FROM (SELECT 'all' AS period UNION ALL SELECT NEW.week) AS p
        WHERE NEW.points > 0 AND NEW.guild_id IS NOT NULL
        ON CONFLICT (guild_id, period, learner_id) DO UPDATE SET
            points = points + excluded.points,
            reached_at = excluded.reached_at;
    END
    """,
    """
    CREATE TABLE review_cards (
        learner_id INTEGER NOT NULL REFERENCES learners (learner_id) ON DELETE CASCADE,
        item_id TEXT NOT NULL,
        card TEXT NOT NULL,
        due TEXT NOT NULL,
        reviews INTEGER NOT NULL,
        lapses INTEGER NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (learner_id, item_id)
    ) WITHOUT ROWID, STRICT
    """,
    "CREATE INDEX review_cards_due ON review_cards (learner_id, due)",
    f"CREATE INDEX review_cards_leeches ON review_cards (item_id) WHERE lapses >= {LEECH_LAPSES}",
    """
    CREATE TABLE sandbox_cache (
        code_sha256 TEXT NOT NULL CHECK (length(code_sha256) = 64),
        torch_version TEXT NOT NULL,
        result_json TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (code_sha256, torch_version)
    ) WITHOUT ROWID, STRICT
    """,
]


@MIGRATIONS(name="0001_initial")
def _initial(db: Database) -> None:
    """Learners, guilds, drops, attempts, summaries and their triggers, cards, cache."""
    for statement in _V1:
        db.execute(statement)


def migrate(db: Database) -> None:
    """Apply every pending migration (each in its own transaction)."""
    MIGRATIONS.apply(db)


class StoreRefused(sqlite3.DatabaseError):
    """A file the store will not open, for a reason its message names (one of the four
    subclasses below); front ends catch this one class and print the message."""


class StoreOutdated(StoreRefused):
    """A read-only store was opened on a file whose schema needs migrations this code has."""


class StoreTooNew(StoreRefused):
    """The file records migrations of our set that this code does not know: a newer version
    of autograd-tutor wrote it, and this one could misread or damage it."""


class NotTutorDatabase(StoreRefused):
    """The file is a SQLite database of some other application (or, for a reader, empty)."""


def _known_names() -> set[str]:
    """The names of every migration this code has (all are pending on an empty database)."""
    empty = Database(memory=True)
    try:
        return {m.name for m in MIGRATIONS.pending(empty)}
    finally:
        empty.close()


def _printable(name: str) -> str:
    """A table name from someone else's file, safe to print: at most 40 characters, control
    characters (a terminal escape sequence) shown as ``?``."""
    return "".join(c if c.isprintable() else "?" for c in name[:40])


_SHOWN_TABLES = 5
"""At most this many table names are listed when a file is refused as another app's."""


def check_schema(db: Database, path: Path | str, *, writer: bool) -> None:
    """Refuse a database this code must not use, before anything is written to it.

    Ours is a file whose ``_sqlite_migrations`` table records migrations of
    :data:`MIGRATIONS`' set. A file with no table at all (0 bytes, or a crash before the
    first migration committed, leaving only an empty ``_sqlite_migrations``) is a new
    database for a writer, which migrates it; a reader has nothing to read there.

    Args:
        db: the open connection; only read here (``sqlite_master``, ``_sqlite_migrations``).
        path: the file, for the messages.
        writer: the caller will migrate and write (the bot, ``tutor play``); False for a
            read-only store (``tutor stats``).

    Raises:
        NotTutorDatabase: tables but no record of our migrations, or (reader) no table.
        StoreTooNew: applied migrations of our set that this code does not have.
        StoreOutdated: (reader only) migrations of ours are pending.
        sqlite3.DatabaseError: the file is not a SQLite database at all.
    """
    tables = _table_names(db)
    try:
        applied = [m.name for m in MIGRATIONS.applied(db)]
        recorded = (
            db.execute(f"SELECT count(*) FROM [{Migrations.migrations_table}]").fetchone()[0]
            if Migrations.migrations_table in tables
            else 0
        )
    except sqlite3.OperationalError:  # a _sqlite_migrations table of another shape
        applied, recorded = [], 1
    if not applied:
        if writer and recorded == 0 and set(tables) <= {Migrations.migrations_table}:
            return  # a new database: the writer creates our tables
        if not tables:  # a reader (a writer took it above): nothing recorded yet, not damage
            raise NotTutorDatabase(
                f"{path} is an empty, new database: no answer has been recorded in it yet "
                "(the bot or tutor play creates its tables on first use); nothing was "
                "written to it: check --db or TUTOR_DATABASE_PATH if you expected progress"
            )
        shown = ", ".join(_printable(name) for name in tables[:_SHOWN_TABLES])
        if len(tables) > _SHOWN_TABLES:
            shown += f" and {len(tables) - _SHOWN_TABLES} more"
        raise NotTutorDatabase(
            f"{path} is not an autograd-tutor database (it has tables {shown}); nothing was "
            "written to it: "
            "check --db or TUTOR_DATABASE_PATH"
        )
    known = _known_names()
    unknown = [name for name in applied if name not in known]
    if unknown:
        raise StoreTooNew(
            f"{path} was written by a newer version of autograd-tutor (unknown migrations: "
            f"{', '.join(unknown)}); use that version, or a copy from before it ran: this "
            "one could misread the file, so nothing was read or written"
        )
    pending = [m.name for m in MIGRATIONS.pending(db)]
    if pending and not writer:
        raise StoreOutdated(
            f"{path} was written by an older version (pending migrations: "
            f"{', '.join(pending)}); open it once with a writer (the bot or tutor play) to "
            "upgrade it"
        )
    if not pending:
        _check_complete(db, path)


class StoreDamaged(StoreRefused):
    """A fully migrated file lacks a table or column the migrations create (edited by hand,
    or a damaged copy): every write would fail, so it is refused at open."""


def _check_complete(db: Database, path: Path | str) -> None:
    """Raise :class:`StoreDamaged` when a table or column of the current schema is missing
    (a tester dropped one: ``tutor play`` showed each question, then refused every answer)."""
    have = _columns(db)
    missing = [
        f"{table}.{column}" if table in have else table
        for table, columns in _reference_columns().items()
        for column in (sorted(columns - have[table]) if table in have else [""])
    ]
    if missing:
        shown = ", ".join(m.rstrip(".") for m in missing[:_SHOWN_TABLES])
        raise StoreDamaged(
            f"{path} is damaged or incomplete (missing {shown}); nothing was read or "
            "written: restore a backup, or move it aside to start a new database"
        )


def _columns(db: Database) -> dict[str, set[str]]:
    """Each table of ``db`` (ours and others) with its column names."""
    return {
        name: {row[1] for row in db.execute(f"PRAGMA table_info([{name}])").fetchall()}
        for name in _table_names(db)
    }


def _table_names(db: Database) -> list[str]:
    """The names of ``db``'s tables (ours and others, not SQLite's own), sorted."""
    return [
        row[0]
        for row in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' "
            "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name"
        ).fetchall()
    ]


@functools.cache
def _reference_columns() -> dict[str, frozenset[str]]:
    """The tables and columns the migrations create, from a private in-memory database."""
    reference = Database(memory=True)
    try:
        migrate(reference)
        return {name: frozenset(cols) for name, cols in _columns(reference).items()}
    finally:
        reference.close()
