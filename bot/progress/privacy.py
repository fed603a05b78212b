"""Privacy: forget a learner, export a learner's data, expire answer texts.

- :func:`forget_learner` deletes the learner row; foreign keys with ``ON DELETE CASCADE``
  remove their attempts, summaries, points and review cards in the same transaction, so no
  table can be forgotten by a future change that adds one (as long as it references
  ``learners``).
- :func:`export_learner` returns every fact stored about the learner (summaries are
  derived from these and left out).
- :func:`purge_answer_texts` removes (sets to NULL) the free-text answers older than the
  retention period; scores, labels and concept ids are kept, so stats do not change.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from bot.content.models import Kind, Label
from bot.progress import rules
from bot.progress.db import Database, from_ts, loads_str_list, ts, write_transaction
from bot.progress.models import (
    AttemptRecord,
    DeletionReport,
    LearnerExport,
    LearnerProfile,
    LearnerSettings,
    PointsRecord,
    RetentionReport,
    ReviewCardRecord,
)

PURGE_BATCH = 5000
"""Answer texts purged per transaction, so a large first pass never holds the write lock
for long (each batch is one short transaction)."""


def forget_learner(db: Database, learner_id: int) -> DeletionReport:
    """Delete everything stored about a learner, atomically.

    Drops stay (they belong to the guild), but their summaries no longer count the
    learner's answers. Forgetting an unknown learner deletes nothing and is not an error.
    """
    with write_transaction(db):
        attempts = db.execute(
            "SELECT count(*) FROM attempts WHERE learner_id = ?", [learner_id]
        ).fetchone()[0]
        cards = db.execute(
            "SELECT count(*) FROM review_cards WHERE learner_id = ?", [learner_id]
        ).fetchone()[0]
        cursor = db.execute("DELETE FROM learners WHERE learner_id = ?", [learner_id])
    return DeletionReport(
        learner_id=learner_id,
        attempts=attempts,
        review_cards=cards,
        profile=cursor.rowcount == 1,
    )


def export_learner(db: Database, learner_id: int, now: datetime) -> LearnerExport:
    """Everything stored about a learner, as one model (``model_dump_json`` for the file).

    Args:
        learner_id: the learner.
        now: the export time (aware), written into the export.
    """
    profile_row = db.execute(
        "SELECT time_zone, settings FROM learners WHERE learner_id = ?", [learner_id]
    ).fetchone()
    profile = None
    if profile_row is not None:
        profile = LearnerProfile(
            learner_id=learner_id,
            time_zone=profile_row[0],
            settings=LearnerSettings.model_validate_json(profile_row[1]),
        )
    attempts = [
        AttemptRecord(
            attempt_id=row[0],
            created_at=from_ts(row[1]),
            guild_id=row[2],
            drop_id=row[3],
            item_id=row[4],
            kind=Kind(row[5]),
            verdict=None if row[6] is None else bool(row[6]),
            answer_text=row[7],
            score=row[8],
            label=Label(row[9]),
            concepts_hit=loads_str_list(row[10]),
            concepts_missing=loads_str_list(row[11]),
            misconceptions=loads_str_list(row[12]),
            duration_ms=row[13],
            hint_used=bool(row[14]),
            first_try=bool(row[15]),
            rating=rules.from_fsrs(row[16]),
            points=row[17],
        )
        for row in db.execute(
            """
            SELECT attempt_id, created_at, guild_id, drop_id, item_id, kind, verdict,
                   answer_text, score, label, concepts_hit, concepts_missing, misconceptions,
                   duration_ms, hint_used, first_try, rating, points
            FROM attempts WHERE learner_id = ? ORDER BY attempt_id
            """,
            [learner_id],
        ).fetchall()
    ]
    cards = [
        ReviewCardRecord(
            item_id=row[0],
            card=json.loads(row[1]),
            due=from_ts(row[2]),
            lapses=row[3],
            reviews=row[4],
        )
        for row in db.execute(
            """
            SELECT item_id, card, due, lapses, reviews FROM review_cards
            WHERE learner_id = ? ORDER BY item_id
            """,
            [learner_id],
        ).fetchall()
    ]
    points = [
        PointsRecord(guild_id=row[0], period=row[1], points=row[2])
        for row in db.execute(
            "SELECT guild_id, period, points FROM points WHERE learner_id = ? "
            "ORDER BY guild_id, period",
            [learner_id],
        ).fetchall()
    ]
    return LearnerExport(
        learner_id=learner_id,
        exported_at=now,
        profile=profile,
        attempts=attempts,
        review_cards=cards,
        points=points,
    )


def purge_answer_texts(db: Database, now: datetime, retention_days: int) -> RetentionReport:
    """Remove answer texts of attempts created more than ``retention_days`` before ``now``.

    Args:
        now: the current instant (aware).
        retention_days: days an answer text is kept (>= 0; 0 removes every stored text).

    Raises:
        ValueError: ``retention_days`` is negative.
    """
    if retention_days < 0:
        raise ValueError(f"retention_days must be >= 0, got {retention_days}")
    cutoff = now - timedelta(days=retention_days)
    purged = 0
    while True:
        with write_transaction(db):
            cursor = db.execute(
                """
                UPDATE attempts SET answer_text = NULL WHERE attempt_id IN (
                    SELECT attempt_id FROM attempts
                    WHERE answer_text IS NOT NULL AND created_at < ?
                    LIMIT ?
                )
                """,
                [ts(cutoff), PURGE_BATCH],
            )
        purged += cursor.rowcount
        if cursor.rowcount < PURGE_BATCH:
            return RetentionReport(cutoff=cutoff, purged=purged)
