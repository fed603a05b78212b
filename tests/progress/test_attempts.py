"""Recording attempts: idempotency, one per drop, atomicity, points, review cards."""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fsrs import Scheduler

from bot.content.loader import Bank
from bot.content.models import Label
from bot.grading import Grader, Response
from bot.grading.models import Feedback, GradeResult
from bot.progress.db import open_database
from bot.progress.errors import (
    AlreadyAnswered,
    DropClosed,
    DropMismatch,
    IdempotencyConflict,
    UnknownDrop,
)
from bot.progress.models import AttemptIn, AttemptRecorded, ReviewRating, concepts_to_learn
from bot.progress.store import ProgressStore
from tests.progress.conftest import (
    ALICE,
    BOB,
    ITEMS,
    FakeClock,
    attempt,
    guild_settings,
    open_drop,
    wrong,
)


async def test_same_idempotency_key_records_once(store: ProgressStore) -> None:
    first = await store.record_attempt(attempt(idempotency_key="modal-1"))
    again = await store.record_attempt(attempt(idempotency_key="modal-1"))
    assert (again.duplicate, again.attempt_id) == (True, first.attempt_id)
    assert (await store.learner_stats(ALICE)).attempts == 1


async def test_duplicate_submission_reports_the_first_result(store: ProgressStore) -> None:
    first = await store.record_attempt(attempt(idempotency_key="modal-1"))
    again = await store.record_attempt(wrong(idempotency_key="modal-1"))
    assert again.model_copy(update={"duplicate": False}) == first


async def test_concurrent_double_click_records_once(store: ProgressStore) -> None:
    results = await asyncio.gather(
        *(store.record_attempt(attempt(idempotency_key="click")) for _ in range(5))
    )
    assert sorted(r.duplicate for r in results) == [False, True, True, True, True]
    assert (await store.learner_stats(ALICE)).attempts == 1


async def test_idempotency_key_used_by_another_learner_is_refused(store: ProgressStore) -> None:
    await store.record_attempt(attempt(idempotency_key="shared"))
    with pytest.raises(IdempotencyConflict):
        await store.record_attempt(attempt(idempotency_key="shared", learner_id=BOB))


async def test_second_answer_to_a_drop_is_refused(store: ProgressStore, clock: FakeClock) -> None:
    drop = await open_drop(store, clock)
    on_drop = {"drop_id": drop.drop_id, "item_id": drop.item_id}
    first = await store.record_attempt(wrong(**on_drop))
    with pytest.raises(AlreadyAnswered) as refused:
        await store.record_attempt(attempt(**on_drop))
    assert (refused.value.attempt_id, refused.value.label) == (first.attempt_id, Label.INCORRECT)


async def test_refused_second_answer_leaves_the_first_standing(
    store: ProgressStore, clock: FakeClock
) -> None:
    drop = await open_drop(store, clock)
    on_drop = {"drop_id": drop.drop_id, "item_id": drop.item_id}
    await store.record_attempt(wrong(**on_drop))
    with pytest.raises(AlreadyAnswered):
        await store.record_attempt(attempt(**on_drop))
    summary = await store.drop_summary(drop.drop_id)
    assert (summary.answers, summary.top_scorers[0].label) == (1, Label.INCORRECT)


async def test_answer_after_the_drop_closed_is_refused(
    store: ProgressStore, clock: FakeClock
) -> None:
    drop = await open_drop(store, clock)
    clock.set(drop.closes_at)
    with pytest.raises(DropClosed):
        await store.record_attempt(attempt(drop_id=drop.drop_id, item_id=drop.item_id))


async def test_answer_to_a_drop_not_posted_yet_is_refused(
    store: ProgressStore, clock: FakeClock
) -> None:
    await store.save_guild_settings(guild_settings())
    clock.set(datetime(2025, 3, 4, 8, 0, 5, tzinfo=UTC))
    (scheduled,) = (await store.tick_drops(ITEMS)).to_post
    with pytest.raises(DropClosed):
        await store.record_attempt(attempt(drop_id=scheduled.drop_id, item_id=scheduled.item_id))


async def test_answer_naming_another_item_than_the_drop_is_refused(
    store: ProgressStore, clock: FakeClock
) -> None:
    drop = await open_drop(store, clock)
    other = "WHY1" if drop.item_id != "WHY1" else "TF1"
    with pytest.raises(DropMismatch):
        await store.record_attempt(attempt(drop_id=drop.drop_id, item_id=other))


async def test_answer_to_an_unknown_drop_is_refused(store: ProgressStore) -> None:
    with pytest.raises(UnknownDrop):
        await store.record_attempt(attempt(drop_id=12345))


async def test_a_failed_write_stores_nothing(db_path: Path, clock: FakeClock) -> None:
    class Exploding(Scheduler):
        def review_card(self, *args: object, **kwargs: object) -> object:  # type: ignore[override]
            raise RuntimeError("disk on fire")

    async with ProgressStore(db_path, clock=clock, scheduler=Exploding()) as store:
        with pytest.raises(RuntimeError):
            await store.record_attempt(attempt())
        stats = await store.learner_stats(ALICE)
        export = await store.export_learner(ALICE)
    assert (stats.attempts, export.attempts, export.profile) == (0, [], None)


async def test_attempts_cannot_be_edited(db_path: Path, store: ProgressStore) -> None:
    await store.record_attempt(attempt())
    db = open_database(db_path)
    try:
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            db.execute("UPDATE attempts SET score = 0.0")
    finally:
        db.close()


async def test_answer_text_can_only_be_purged_not_rewritten(
    db_path: Path, store: ProgressStore
) -> None:
    await store.record_attempt(attempt())
    db = open_database(db_path)
    try:
        with pytest.raises(sqlite3.IntegrityError, match="only be purged"):
            db.execute("UPDATE attempts SET answer_text = 'something else'")
    finally:
        db.close()


async def test_first_try_is_only_the_first_attempt_at_an_item(store: ProgressStore) -> None:
    first = await store.record_attempt(attempt(guild_id=None))
    second = await store.record_attempt(attempt())
    assert (first.first_try, second.first_try) == (True, False)


async def test_repeating_an_item_earns_no_more_points(store: ProgressStore) -> None:
    gained = [(await store.record_attempt(attempt())).points for _ in range(3)]
    assert gained == [10, 0, 0]


async def test_improving_on_an_item_earns_the_difference(store: ProgressStore) -> None:
    partial = attempt(score=0.5, label=Label.PARTIAL)
    gained = [(await store.record_attempt(a)).points for a in (partial, attempt())]
    assert gained == [5, 5]


async def test_attempts_outside_a_guild_earn_no_points(store: ProgressStore) -> None:
    assert (await store.record_attempt(attempt(guild_id=None))).points == 0


async def test_wrong_answer_brings_the_item_back_tomorrow(
    store: ProgressStore, clock: FakeClock
) -> None:
    recorded = await store.record_attempt(wrong())
    assert (recorded.rating, recorded.review_due) == (
        ReviewRating.AGAIN,
        clock.now + timedelta(days=1),
    )


async def forget_eight_times(store: ProgressStore, clock: FakeClock) -> AttemptRecorded:
    """Learn TF1, then eight times: miss it when due (a lapse) and relearn it a day later."""
    recorded = await store.record_attempt(attempt())  # learnt: Review state
    for _ in range(8):
        clock.set(recorded.review_due)
        await store.record_attempt(wrong())  # a lapse
        clock.advance(days=1)
        recorded = await store.record_attempt(attempt())  # relearnt
    return recorded


async def test_eight_lapses_make_the_card_a_leech(store: ProgressStore, clock: FakeClock) -> None:
    recorded = await forget_eight_times(store, clock)
    assert (recorded.lapses, recorded.leech) == (8, True)


async def test_leeches_are_listed_for_authors(store: ProgressStore, clock: FakeClock) -> None:
    await forget_eight_times(store, clock)
    leeches = await store.leeches()
    assert [(leech.item_id, leech.learners, leech.max_lapses) for leech in leeches] == [
        ("TF1", 1, 8)
    ]


async def test_retention_of_zero_days_never_stores_answer_text(
    db_path: Path, clock: FakeClock
) -> None:
    async with ProgressStore(db_path, clock=clock, answer_retention_days=0) as store:
        await store.record_attempt(attempt(answer_text="my private reasoning"))
        export = await store.export_learner(ALICE)
    assert [a.answer_text for a in export.attempts] == [None]


def _grade(item_id: str, label: Label, hit: list[str], missing: list[str]) -> GradeResult:
    return GradeResult(
        item_id=item_id,
        score={Label.CORRECT: 0.9, Label.PARTIAL: 0.5, Label.INCORRECT: 0.1}[label],
        label=label,
        verdict=False,
        verdict_source="button",
        verdict_correct=True,
        concepts_hit=hit,
        concepts_missing=missing,
        misconceptions=[],
        confidence=0.9,
        feedback=Feedback(),
    )


def _item_with_required_and_optional(bank: Bank) -> tuple[str, str, str]:
    """(item id, a required concept id, a concept that is neither required nor grouped)."""
    for item in bank:
        grouped = {c for group in item.rubric.required_any for c in group}
        optional = [
            c.id
            for c in item.rubric.concepts
            if c.id not in item.rubric.required and c.id not in grouped
        ]
        if item.rubric.required and optional:
            return item.id, item.rubric.required[0], optional[0]
    raise AssertionError("no item with a required and an optional concept")


def test_attempt_from_grade_takes_kind_tags_and_difficulty_from_the_item(bank: Bank) -> None:
    item_id, required, optional = _item_with_required_and_optional(bank)
    item = bank.get(item_id)
    assert item is not None
    grade = _grade(item_id, Label.PARTIAL, [], [required, optional])
    built = AttemptIn.from_grade(
        item=item, grade=grade, answer_text="False.", learner_id=ALICE, idempotency_key="k"
    )
    assert (built.kind, built.tags, built.difficulty, built.concepts_missing) == (
        item.kind,
        item.tags,
        item.difficulty,
        [required],
    )


def test_a_correct_answer_counts_no_concept_as_missed(bank: Bank) -> None:
    """A tester graded correct saw the item's optional concept under "to work on"."""
    item_id, required, optional = _item_with_required_and_optional(bank)
    item = bank.get(item_id)
    assert item is not None
    grade = _grade(item_id, Label.CORRECT, [required], [optional])
    assert concepts_to_learn(item, grade) == []


def test_a_required_any_group_with_one_member_credited_is_not_missed(bank: Bank) -> None:
    item = next(i for i in bank if any(len(g) >= 2 for g in i.rubric.required_any))
    group = next(g for g in item.rubric.required_any if len(g) >= 2)
    others = [c.id for c in item.rubric.concepts if c.id not in group[:1]]
    grade = _grade(item.id, Label.PARTIAL, [group[0]], others)
    assert not set(group) & set(concepts_to_learn(item, grade))


def test_attempt_from_grade_refuses_a_grade_of_another_item(bank: Bank) -> None:
    item = next(iter(bank))
    grade = GradeResult(
        item_id=item.id + "0",
        score=1.0,
        label=Label.CORRECT,
        verdict=None,
        verdict_source="none",
        verdict_correct=None,
        concepts_hit=[],
        concepts_missing=[],
        misconceptions=[],
        confidence=1.0,
        feedback=Feedback(),
    )
    with pytest.raises(ValueError, match="grade is for item"):
        AttemptIn.from_grade(
            item=item, grade=grade, answer_text="x", learner_id=ALICE, idempotency_key="k"
        )


def test_mastery_does_not_credit_a_concept_stated_only_inside_a_wrong_claim(bank: Bank) -> None:
    """fresh26: WHY9 'the activations are not dropped, they are kept...' listed memory-saved
    in concepts_hit (credited for the score, inside the capped misconception's sentence, so
    shown no ✓); the attempt must not count it as a concept the learner knows."""
    item = bank.get("WHY9")
    assert item is not None
    text = "the activations are not dropped, they are kept, nothing is recomputed"
    grade = Grader([item]).grade(Response(item_id="WHY9", verdict=None, text=text))
    memory = next(c for c in item.rubric.concepts if c.id == "memory-saved")
    assert "memory-saved" in grade.concepts_hit
    assert memory.description not in grade.feedback.right
    built = AttemptIn.from_grade(
        item=item, grade=grade, answer_text=text, learner_id=ALICE, idempotency_key="k"
    )
    assert "memory-saved" not in built.concepts_hit
    assert (built.score, built.label) == (grade.score, grade.label)
