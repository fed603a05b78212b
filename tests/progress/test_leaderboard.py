"""Guild leaderboards: points, ties, weeks in the guild's zone, hidden learners, no farming."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.progress.models import LearnerProfile, LearnerSettings
from bot.progress.store import ProgressStore
from tests.progress.conftest import (
    ALICE,
    BOB,
    CAROL,
    GUILD,
    FakeClock,
    attempt,
    guild_settings,
)


async def test_leaderboard_ranks_learners_by_points(store: ProgressStore) -> None:
    await store.record_attempt(attempt(learner_id=BOB, difficulty=3))
    await store.record_attempt(attempt(learner_id=ALICE, difficulty=1))
    board = await store.leaderboard(GUILD, "all")
    assert [(r.rank, r.learner_id, r.points) for r in board.rows] == [(1, BOB, 30), (2, ALICE, 10)]


async def test_equal_points_share_a_rank(store: ProgressStore) -> None:
    for learner, difficulty in ((ALICE, 2), (BOB, 2), (CAROL, 1)):
        await store.record_attempt(attempt(learner_id=learner, difficulty=difficulty))
    board = await store.leaderboard(GUILD, "all")
    assert [r.rank for r in board.rows] == [1, 1, 3]


async def test_repeating_one_item_does_not_beat_answering_two(store: ProgressStore) -> None:
    for _ in range(5):
        await store.record_attempt(attempt(learner_id=BOB, item_id="TF1"))
    for item in ("TF1", "TF2"):
        await store.record_attempt(attempt(learner_id=ALICE, item_id=item))
    board = await store.leaderboard(GUILD, "all")
    assert [(r.learner_id, r.points) for r in board.rows] == [(ALICE, 20), (BOB, 10)]


async def test_weekly_leaderboard_counts_only_this_weeks_points(
    store: ProgressStore, clock: FakeClock
) -> None:
    await store.record_attempt(attempt(learner_id=BOB, item_id="TF1"))
    clock.advance(days=7)
    await store.record_attempt(attempt(learner_id=ALICE, item_id="TF1"))
    board = await store.leaderboard(GUILD, "week")
    assert (board.week, [r.learner_id for r in board.rows]) == ("2025-W11", [ALICE])


async def test_week_boundary_is_monday_in_the_guilds_time_zone(
    store: ProgressStore, clock: FakeClock
) -> None:
    await store.save_guild_settings(guild_settings(time_zone="Asia/Tokyo"))
    clock.set(datetime(2025, 3, 9, 16, 0, tzinfo=UTC))  # Monday 01:00 in Tokyo, Sunday in UTC
    await store.record_attempt(attempt())
    clock.set(datetime(2025, 3, 10, 12, 0, tzinfo=UTC))
    board = await store.leaderboard(GUILD, "week")
    assert (board.week, [r.learner_id for r in board.rows]) == ("2025-W11", [ALICE])


async def test_hidden_learners_are_left_out_of_the_rows(store: ProgressStore) -> None:
    await store.record_attempt(attempt(learner_id=BOB, difficulty=3))
    await store.record_attempt(attempt(learner_id=ALICE))
    hidden = LearnerSettings(leaderboard_visible=False)
    await store.save_learner(LearnerProfile(learner_id=BOB, settings=hidden))
    board = await store.leaderboard(GUILD, "all")
    assert [(r.rank, r.learner_id) for r in board.rows] == [(1, ALICE)]


async def test_hidden_learner_still_sees_their_own_rank(store: ProgressStore) -> None:
    await store.record_attempt(attempt(learner_id=BOB, difficulty=3))
    await store.record_attempt(attempt(learner_id=ALICE))
    hidden = LearnerSettings(leaderboard_visible=False)
    await store.save_learner(LearnerProfile(learner_id=ALICE, settings=hidden))
    board = await store.leaderboard(GUILD, "all", learner_id=ALICE)
    assert board.me is not None
    assert (board.me.rank, board.me.points) == (2, 10)


async def test_me_shows_a_rank_outside_the_top_rows(store: ProgressStore) -> None:
    for learner, difficulty in ((BOB, 3), (CAROL, 2), (ALICE, 1)):
        await store.record_attempt(attempt(learner_id=learner, difficulty=difficulty))
    board = await store.leaderboard(GUILD, "all", limit=1, learner_id=ALICE)
    assert ([r.learner_id for r in board.rows], board.me and board.me.rank) == ([BOB], 3)


async def test_learner_without_points_has_no_row(store: ProgressStore) -> None:
    await store.record_attempt(attempt(learner_id=BOB))
    assert (await store.leaderboard(GUILD, "all", learner_id=ALICE)).me is None


async def test_leaderboards_are_per_guild(store: ProgressStore) -> None:
    await store.record_attempt(attempt(learner_id=BOB, guild_id=GUILD + 1))
    assert (await store.leaderboard(GUILD, "all")).rows == []


async def test_leaderboard_survives_a_restart(db_path: object, clock: FakeClock) -> None:
    async with ProgressStore(db_path, clock=clock) as before:  # type: ignore[arg-type]
        await before.record_attempt(attempt())
    async with ProgressStore(db_path, clock=clock) as after:  # type: ignore[arg-type]
        board = await after.leaderboard(GUILD, "all")
    assert [(r.learner_id, r.points) for r in board.rows] == [(ALICE, 10)]
