"""Fixtures for the progress store: a fake clock, a fresh database per test, attempt factory."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, time, timedelta
from itertools import count
from pathlib import Path
from typing import Any

import pytest

from bot.content.models import Kind, Label
from bot.progress.models import AttemptIn, GuildSettings, ItemRef
from bot.progress.rules import tutor_scheduler
from bot.progress.store import ProgressStore

START = datetime(2025, 3, 3, 9, 0, tzinfo=UTC)
"""A Monday morning, UTC."""

GUILD = 1_000_000_000_000_000_001
CHANNEL = 2_000_000_000_000_000_002
ALICE = 3_000_000_000_000_000_003
BOB = 3_000_000_000_000_000_004
CAROL = 3_000_000_000_000_000_005

ITEMS = [
    ItemRef(item_id="TF1", kind=Kind.TRUE_FALSE),
    ItemRef(item_id="TF2", kind=Kind.TRUE_FALSE),
    ItemRef(item_id="SE1", kind=Kind.SPOT_THE_ERROR),
    ItemRef(item_id="WHY1", kind=Kind.WHY),
    ItemRef(item_id="EC1", kind=Kind.EDGE_CASE),
]


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self, start: datetime = START) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now

    def set(self, instant: datetime) -> datetime:
        self.now = instant
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "tutor.db"


@pytest.fixture
async def store(db_path: Path, clock: FakeClock) -> AsyncIterator[ProgressStore]:
    """A fresh store on a temporary file; FSRS fuzzing off so due dates are exact."""
    async with ProgressStore(
        db_path, clock=clock, scheduler=tutor_scheduler(enable_fuzzing=False)
    ) as opened:
        yield opened


_keys = count(1)


def attempt(**fields: Any) -> AttemptIn:
    """A correct true/false attempt by Alice in GUILD on TF1; override any field."""
    values: dict[str, Any] = {
        "idempotency_key": f"interaction-{next(_keys)}",
        "learner_id": ALICE,
        "guild_id": GUILD,
        "item_id": "TF1",
        "kind": Kind.TRUE_FALSE,
        "tags": ["grad-accumulation"],
        "difficulty": 1,
        "verdict": False,
        "verdict_correct": True,
        "answer_text": "False: gradients accumulate in .grad.",
        "score": 1.0,
        "label": Label.CORRECT,
        "concepts_hit": ["accumulates"],
        "concepts_missing": [],
        "misconceptions": [],
        "duration_ms": 120_000,
        "hint_used": False,
    }
    values.update(fields)
    return AttemptIn(**values)


def wrong(**fields: Any) -> AttemptIn:
    """An incorrect attempt (wrong verdict, misconception stated)."""
    values: dict[str, Any] = {
        "verdict": True,
        "verdict_correct": False,
        "answer_text": "True, it overwrites.",
        "score": 0.0,
        "label": Label.INCORRECT,
        "concepts_hit": [],
        "concepts_missing": ["accumulates"],
        "misconceptions": ["overwrites"],
    }
    values.update(fields)
    return attempt(**values)


def guild_settings(**fields: Any) -> GuildSettings:
    """Daily drops at 09:00 Europe/Berlin in CHANNEL, reveal after 24 h; override any field."""
    values: dict[str, Any] = {
        "guild_id": GUILD,
        "time_zone": "Europe/Berlin",
        "drops_enabled": True,
        "drop_channel_id": CHANNEL,
        "drop_time": time(9, 0),
        "reveal_after_hours": 24.0,
    }
    values.update(fields)
    return GuildSettings(**values)


async def open_drop(store: ProgressStore, clock: FakeClock) -> Any:
    """Configure GUILD's drops, move the clock to today's 09:00 Berlin and open the drop."""
    await store.save_guild_settings(guild_settings())
    clock.set(datetime(2025, 3, 4, 8, 0, 5, tzinfo=UTC))  # 09:00:05 in Berlin
    tick = await store.tick_drops(ITEMS)
    (due,) = tick.to_post
    await store.begin_posting(due.drop_id)
    return await store.mark_open(due.drop_id, message_id=4_000_000_000_000_000_001)
