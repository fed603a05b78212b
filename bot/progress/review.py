"""The review queue (due FSRS cards, then missed items) and leeches for authors.

Cards are per learner and item, whatever guild the attempts were made in: what a learner
has forgotten does not depend on where they were asked.
"""

from __future__ import annotations

from datetime import datetime

from bot.content.models import Label
from bot.progress.db import Database, from_ts, ts
from bot.progress.models import Leech, ReviewEntry, ReviewQueue
from bot.progress.rules import LEECH_LAPSES
from bot.progress.schema import EVERYWHERE

MAX_QUEUE = 25
"""At most this many entries in each part of the queue."""

_ENTRY = f"""
SELECT c.item_id, c.due, c.lapses, i.last_label, i.last_at
FROM review_cards AS c
JOIN learner_items AS i
  ON i.learner_id = c.learner_id AND i.scope = {EVERYWHERE} AND i.item_id = c.item_id
"""


def _entry(row: tuple[str, str, int, str, str]) -> ReviewEntry:
    item_id, due, lapses, last_label, last_at = row
    return ReviewEntry(
        item_id=item_id,
        due=from_ts(due),
        lapses=lapses,
        leech=lapses >= LEECH_LAPSES,
        last_label=Label(last_label),
        last_attempt_at=from_ts(last_at),
    )


def review_queue(db: Database, learner_id: int, now: datetime, limit: int = 10) -> ReviewQueue:
    """What the learner should review now.

    Args:
        learner_id: the learner.
        now: the current instant (aware).
        limit: at most this many entries in each part (1-25).

    Returns:
        ``due``: cards due at ``now``, most overdue first; ``missed``: items whose latest
        attempt was not correct and whose card is not due yet, the longest ago first (the
        item just missed, whose explanation the learner has only just read, comes last:
        a tester was served it again at once).
    """
    limit = max(1, min(limit, MAX_QUEUE))
    due = db.execute(
        f"{_ENTRY} WHERE c.learner_id = ? AND c.due <= ? ORDER BY c.due, c.item_id LIMIT ?",
        [learner_id, ts(now), limit],
    ).fetchall()
    missed = db.execute(
        f"""{_ENTRY}
        WHERE c.learner_id = ? AND c.due > ? AND i.last_label != 'correct'
        ORDER BY i.last_at, c.item_id LIMIT ?
        """,
        [learner_id, ts(now), limit],
    ).fetchall()
    return ReviewQueue(
        learner_id=learner_id,
        due=[_entry(row) for row in due],
        missed=[_entry(row) for row in missed],
    )


def leeches(db: Database) -> list[Leech]:
    """Items with at least one leech card (>= 8 lapses, Anki's threshold), worst first.

    For authors: an item many learners keep forgetting is probably unclear. Learner ids are
    not exposed, only counts.
    """
    rows = db.execute(
        f"""
        SELECT item_id, count(*), max(lapses) FROM review_cards
        WHERE lapses >= {LEECH_LAPSES}
        GROUP BY item_id ORDER BY count(*) DESC, max(lapses) DESC, item_id
        """
    ).fetchall()
    return [Leech(item_id=row[0], learners=row[1], max_lapses=row[2]) for row in rows]
