"""Privacy: forget a learner, export their data, expire answer texts."""

from __future__ import annotations

from pathlib import Path

from bot.progress.models import LearnerExport, LearnerProfile
from bot.progress.store import ProgressStore
from tests.progress.conftest import ALICE, BOB, GUILD, FakeClock, attempt, open_drop, wrong


async def test_forgetting_a_learner_deletes_their_attempts_and_cards(
    store: ProgressStore,
) -> None:
    await store.record_attempt(attempt(item_id="TF1"))
    await store.record_attempt(wrong(item_id="TF2"))
    report = await store.forget_learner(ALICE)
    export = await store.export_learner(ALICE)
    assert (report.attempts, report.review_cards, report.profile) == (2, 2, True)
    assert (export.profile, export.attempts, export.review_cards, export.points) == (
        None,
        [],
        [],
        [],
    )


async def test_forgotten_learner_vanishes_from_stats_and_leaderboards(
    store: ProgressStore,
) -> None:
    await store.record_attempt(attempt())
    await store.forget_learner(ALICE)
    stats = await store.learner_stats(ALICE)
    board = await store.leaderboard(GUILD, "all")
    assert (stats.attempts, stats.streaks.best, stats.concepts, board.rows) == (0, 0, [], [])


async def test_forgetting_one_learner_keeps_the_others(store: ProgressStore) -> None:
    await store.record_attempt(attempt(learner_id=ALICE))
    await store.record_attempt(attempt(learner_id=BOB))
    await store.forget_learner(ALICE)
    assert (await store.learner_stats(BOB)).attempts == 1


async def test_forgotten_answers_leave_the_drop_summary(
    store: ProgressStore, clock: FakeClock
) -> None:
    drop = await open_drop(store, clock)
    await store.record_attempt(attempt(drop_id=drop.drop_id, item_id=drop.item_id))
    await store.forget_learner(ALICE)
    assert (await store.drop_summary(drop.drop_id)).answers == 0


async def test_forgetting_an_unknown_learner_deletes_nothing(store: ProgressStore) -> None:
    report = await store.forget_learner(ALICE)
    assert (report.attempts, report.review_cards, report.profile) == (0, 0, False)


async def test_export_holds_every_attempt_with_its_answer_text(store: ProgressStore) -> None:
    await store.record_attempt(attempt(answer_text="False, they accumulate."))
    await store.record_attempt(wrong(item_id="TF2", answer_text="True."))
    export = await store.export_learner(ALICE)
    assert [(a.item_id, a.answer_text) for a in export.attempts] == [
        ("TF1", "False, they accumulate."),
        ("TF2", "True."),
    ]


async def test_export_holds_review_cards_points_and_profile(store: ProgressStore) -> None:
    await store.save_learner(LearnerProfile(learner_id=ALICE, time_zone="Europe/Paris"))
    await store.record_attempt(attempt())
    export = await store.export_learner(ALICE)
    assert export.profile is not None
    assert export.profile.time_zone == "Europe/Paris"
    assert [c.item_id for c in export.review_cards] == ["TF1"]
    assert {(p.guild_id, p.period, p.points) for p in export.points} == {
        (GUILD, "all", 10),
        (GUILD, "2025-W10", 10),
    }


async def test_export_round_trips_through_json(store: ProgressStore) -> None:
    await store.record_attempt(attempt())
    export = await store.export_learner(ALICE)
    assert LearnerExport.model_validate_json(export.model_dump_json()) == export


async def test_retention_removes_old_answer_texts_but_keeps_scores(
    db_path: Path, clock: FakeClock
) -> None:
    async with ProgressStore(db_path, clock=clock, answer_retention_days=30) as store:
        await store.record_attempt(attempt(answer_text="old reasoning"))
        clock.advance(days=31)
        report = await store.purge_answer_texts()
        export = await store.export_learner(ALICE)
        stats = await store.learner_stats(ALICE)
    assert report.purged == 1
    assert [(a.answer_text, a.score) for a in export.attempts] == [(None, 1.0)]
    assert stats.accuracy == 1.0


async def test_retention_keeps_recent_answer_texts(db_path: Path, clock: FakeClock) -> None:
    async with ProgressStore(db_path, clock=clock, answer_retention_days=30) as store:
        await store.record_attempt(attempt(answer_text="old reasoning"))
        clock.advance(days=29)
        await store.record_attempt(attempt(answer_text="new reasoning"))
        clock.advance(days=2)
        await store.purge_answer_texts()
        export = await store.export_learner(ALICE)
    assert [a.answer_text for a in export.attempts] == [None, "new reasoning"]


async def test_a_second_retention_pass_finds_nothing_left(db_path: Path, clock: FakeClock) -> None:
    async with ProgressStore(db_path, clock=clock, answer_retention_days=1) as store:
        await store.record_attempt(attempt())
        clock.advance(days=2)
        await store.purge_answer_texts()
        assert (await store.purge_answer_texts()).purged == 0


async def test_opening_the_store_applies_the_retention_period(
    db_path: Path, clock: FakeClock
) -> None:
    async with ProgressStore(db_path, clock=clock, answer_retention_days=30) as store:
        await store.record_attempt(attempt(answer_text="old reasoning"))
    clock.advance(days=31)
    async with ProgressStore(db_path, clock=clock, answer_retention_days=30) as store:
        export = await store.export_learner(ALICE)
    assert [a.answer_text for a in export.attempts] == [None]
