"""Learner stats and guild leaderboards, read from the summary tables.

Every query here reads one learner's summary rows by primary-key prefix (a few hundred rows
at most) or walks the ``points_ranking`` index from the top, so its cost does not grow with
the number of attempts stored (benchmarks/store.py measures it at 1,000,000).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping
from datetime import datetime

from bot.content.models import Kind, Label
from bot.progress import rules
from bot.progress.db import Database, from_date, from_ts, ts
from bot.progress.models import (
    Accuracy,
    ConceptMastery,
    ItemPerformance,
    Leaderboard,
    LeaderboardPeriod,
    LeaderboardRow,
    LearnerStats,
)
from bot.progress.profiles import get_guild_settings, get_learner
from bot.progress.schema import EVERYWHERE

WEAKEST_ITEMS = 5
"""How many weakest items the stats list."""

WEAK_MASTERY = 0.5
"""A concept credited in fewer than half of the answers that called for it is one to work on."""

MAX_LEADERBOARD_ROWS = 25
"""A leaderboard shows at most 25 rows (one Discord embed holds 25 fields)."""


def _accuracy(key: str, attempts: int, correct: int, score_sum: float) -> Accuracy:
    return Accuracy(
        key=key,
        attempts=attempts,
        correct=correct,
        accuracy=correct / attempts,
        average_score=min(1.0, score_sum / attempts),
    )


def learner_stats(
    db: Database, learner_id: int, now: datetime, guild_id: int | None = None
) -> LearnerStats:
    """A learner's stats, in one guild or everywhere.

    Args:
        learner_id: the learner.
        now: the current instant (aware): decides "today" for the current streak and which
            review cards are due.
        guild_id: count only attempts made in this guild; None counts every attempt.

    Returns:
        The stats; a learner with no attempts gets zeros and empty lists.
    """
    scope = EVERYWHERE if guild_id is None else guild_id
    profile = get_learner(db, learner_id)
    items = db.execute(
        """
        SELECT item_id, kind, tags, attempts, correct, score_sum, first_label, last_label,
               last_at
        FROM learner_items WHERE learner_id = ? AND scope = ?
        """,
        [learner_id, scope],
    ).fetchall()
    attempts = sum(row[3] for row in items)
    correct = sum(row[4] for row in items)
    score_sum = sum(row[5] for row in items)
    first_correct = sum(1 for row in items if row[6] == Label.CORRECT.value)

    per_kind: dict[str, list[float]] = defaultdict(lambda: [0, 0, 0.0])
    per_tag: dict[str, list[float]] = defaultdict(lambda: [0, 0, 0.0])
    for row in items:
        groups = [per_kind[row[1]]] + [per_tag[tag] for tag in json.loads(row[2])]
        for group in groups:
            group[0] += row[3]
            group[1] += row[4]
            group[2] += row[5]
    kind_order = {kind.value: i for i, kind in enumerate(Kind)}
    by_kind = [
        _accuracy(kind, int(n), int(c), s)
        for kind, (n, c, s) in sorted(per_kind.items(), key=lambda kv: kind_order[kv[0]])
    ]
    by_topic = [
        _accuracy(tag, int(n), int(c), s)
        for tag, (n, c, s) in sorted(per_tag.items(), key=lambda kv: (-kv[1][0], kv[0]))
    ]
    weakest = sorted(items, key=lambda row: (row[5] / row[3], -row[3], row[0]))[:WEAKEST_ITEMS]

    concepts = [
        ConceptMastery(
            concept_id=concept_id, hits=hits, misses=misses, mastery=hits / (hits + misses)
        )
        for concept_id, hits, misses in db.execute(
            """
            SELECT concept_id, hits, misses FROM learner_concepts
            WHERE learner_id = ? AND scope = ? AND hits + misses > 0
            """,
            [learner_id, scope],
        ).fetchall()
    ]
    concepts.sort(key=lambda c: (c.mastery, -(c.hits + c.misses), c.concept_id))

    days = [
        from_date(row[0])
        for row in db.execute(
            "SELECT local_date FROM learner_days WHERE learner_id = ? AND scope = ?",
            [learner_id, scope],
        ).fetchall()
    ]
    today = rules.local_date(now, profile.time_zone)

    if guild_id is None:
        points_row = db.execute(
            "SELECT sum(points) FROM points WHERE learner_id = ? AND period = 'all'",
            [learner_id],
        ).fetchone()
    else:
        points_row = db.execute(
            "SELECT points FROM points WHERE guild_id = ? AND period = 'all' AND learner_id = ?",
            [guild_id, learner_id],
        ).fetchone()
    due = db.execute(
        "SELECT count(*) FROM review_cards WHERE learner_id = ? AND due <= ?",
        [learner_id, ts(now)],
    ).fetchone()
    later = db.execute(
        "SELECT count(*), min(due) FROM review_cards WHERE learner_id = ? AND due > ?",
        [learner_id, ts(now)],
    ).fetchone()
    missed = db.execute(
        f"""
        SELECT count(*) FROM review_cards AS c
        JOIN learner_items AS i
          ON i.learner_id = c.learner_id AND i.scope = {EVERYWHERE} AND i.item_id = c.item_id
        WHERE c.learner_id = ? AND c.due > ? AND i.last_label != 'correct'
        """,
        [learner_id, ts(now)],
    ).fetchone()
    next_due = from_ts(later[1]) if later[1] is not None else None

    return LearnerStats(
        learner_id=learner_id,
        guild_id=guild_id,
        time_zone=profile.time_zone,
        attempts=attempts,
        items_attempted=len(items),
        accuracy=correct / attempts if attempts else 0.0,
        average_score=min(1.0, score_sum / attempts) if attempts else 0.0,
        first_try_rate=first_correct / len(items) if items else 0.0,
        streaks=rules.streaks(days, today),
        last_active=max(days) if days else None,
        points=(points_row[0] or 0) if points_row else 0,
        reviews_due=due[0],
        reviews_scheduled=later[0],
        next_review_in_s=(next_due - now).total_seconds() if next_due is not None else None,
        missed_to_retry=missed[0],
        by_kind=by_kind,
        by_topic=by_topic,
        concepts=concepts,
        weakest_items=[
            ItemPerformance(
                item_id=row[0],
                kind=Kind(row[1]),
                attempts=row[3],
                average_score=min(1.0, row[5] / row[3]),
                last_label=Label(row[7]),
                last_attempt_at=from_ts(row[8]),
            )
            for row in weakest
        ],
    )


def _wait(seconds: float) -> str:
    """A wait in words, rounded: ``"40 min"``, ``"23 h"``, ``"3 days"``."""
    minutes = max(1, round(seconds / 60))
    if minutes < 60:
        return f"{minutes} min"
    hours = round(seconds / 3600)
    if hours < 48:
        return f"{hours} h"
    return f"{round(seconds / 86400)} days"


def describe_reviews(stats: LearnerStats, how: str | None = None) -> str:
    """The review line every front end shows (``tutor stats``, ``tutor play``, ``/stats``).

    "reviews due 0" right after five wrong answers read as if nothing were queued, while
    ``review`` offered six (fresh15): a missed item's card is due a day later, and review
    offers recent misses before then. So the line names all three.

    Args:
        stats: a learner's stats (:func:`learner_stats`).
        how: how this front end starts a review ("type review", "try `/review`"), added in
            brackets when something can be reviewed now (fresh16: the line said what was
            waiting, not how to start it).

    Returns:
        e.g. ``"0 due now (6 scheduled, the next in 23 h); 5 missed to retry now"``, or
        ``"2 due now"`` when nothing else is queued.
    """
    words = f"{stats.reviews_due} due now"
    if stats.reviews_scheduled:
        words += f" ({stats.reviews_scheduled} scheduled"
        if stats.next_review_in_s is not None:
            words += f", the next in {_wait(stats.next_review_in_s)}"
        words += ")"
    if stats.missed_to_retry:
        words += f"; {stats.missed_to_retry} missed to retry now"
    if how and (stats.reviews_due or stats.missed_to_retry):
        words += f" ({how})"
    return words


def describe_concepts(stats: LearnerStats, descriptions: Mapping[str, str]) -> LearnerStats:
    """``stats`` with each concept's learner-facing words filled in.

    Args:
        stats: the learner's stats (concept ids only, as stored).
        descriptions: concept id to words, from
            :meth:`bot.content.loader.Bank.concept_descriptions`.

    Returns:
        A copy whose concepts carry ``description`` (None for an id the bank lacks).
    """
    concepts = [
        c.model_copy(update={"description": descriptions.get(c.concept_id)}) for c in stats.concepts
    ]
    return stats.model_copy(update={"concepts": concepts})


def concepts_to_work_on(stats: LearnerStats, limit: int = 5) -> list[ConceptMastery]:
    """The weakest concepts a learner can read: mastery under :data:`WEAK_MASTERY`, with
    learner-facing words (see :func:`describe_concepts`), weakest first, at most ``limit``."""
    return [c for c in stats.concepts if c.description is not None and c.mastery < WEAK_MASTERY][
        :limit
    ]


def recent_items(db: Database, learner_id: int, limit: int = 20) -> list[str]:
    """The items a learner answered most recently, anywhere, newest first.

    Reads the learner's ``learner_items`` rows of scope 0 by primary-key prefix (one row per
    item attempted, so at most the bank's size), never the attempts table.

    Args:
        learner_id: the learner.
        limit: at most this many item ids (1-1000).

    Returns:
        Item ids, the latest attempt first; empty for a learner with no attempts.
    """
    rows = db.execute(
        """
        SELECT item_id FROM learner_items WHERE learner_id = ? AND scope = ?
        ORDER BY last_at DESC, item_id LIMIT ?
        """,
        [learner_id, EVERYWHERE, max(1, min(limit, 1000))],
    ).fetchall()
    return [str(row[0]) for row in rows]


def leaderboard(
    db: Database,
    guild_id: int,
    period: LeaderboardPeriod,
    now: datetime,
    *,
    limit: int = 10,
    learner_id: int | None = None,
) -> Leaderboard:
    """A guild's leaderboard for this week (in the guild's time zone) or all time.

    Ranks are competition ranks (equal points share a rank; the next rank skips). Learners
    who hide themselves (``leaderboard_visible=False``) are left out of ``rows`` and do not
    push others down; their own ``me`` row still shows their rank among visible learners.

    Args:
        guild_id: the guild.
        period: ``week`` or ``all``.
        now: the current instant (aware): decides the current week.
        limit: rows to return, 1-25.
        learner_id: also return this learner's row as ``me``.

    Raises:
        ValueError: ``period`` is neither ``week`` nor ``all``.
    """
    if period not in ("week", "all"):
        raise ValueError(f"period must be 'week' or 'all', got {period!r}")
    limit = max(1, min(limit, MAX_LEADERBOARD_ROWS))
    week = None
    key = "all"
    if period == "week":
        week = rules.iso_week(now, get_guild_settings(db, guild_id).time_zone)
        key = week
    visible = "COALESCE(json_extract(l.settings, '$.leaderboard_visible'), 1)"
    top = db.execute(
        f"""
        SELECT p.learner_id, p.points FROM points AS p
        JOIN learners AS l ON l.learner_id = p.learner_id
        WHERE p.guild_id = ? AND p.period = ? AND p.points > 0 AND {visible}
        ORDER BY p.points DESC, p.reached_at, p.learner_id
        LIMIT ?
        """,
        [guild_id, key, limit],
    ).fetchall()
    rows: list[LeaderboardRow] = []
    for position, (row_learner, points) in enumerate(top):
        rank = rows[-1].rank if rows and rows[-1].points == points else position + 1
        rows.append(LeaderboardRow(rank=rank, learner_id=row_learner, points=points))

    me = None
    if learner_id is not None:
        mine = db.execute(
            "SELECT points FROM points WHERE guild_id = ? AND period = ? AND learner_id = ?",
            [guild_id, key, learner_id],
        ).fetchone()
        if mine is not None and mine[0] > 0:
            above = db.execute(
                f"""
                SELECT count(*) FROM points AS p
                JOIN learners AS l ON l.learner_id = p.learner_id
                WHERE p.guild_id = ? AND p.period = ? AND p.points > ? AND {visible}
                  AND p.learner_id != ?
                """,
                [guild_id, key, mine[0], learner_id],
            ).fetchone()
            me = LeaderboardRow(rank=above[0] + 1, learner_id=learner_id, points=mine[0])
    return Leaderboard(guild_id=guild_id, period=period, week=week, rows=rows, me=me)
