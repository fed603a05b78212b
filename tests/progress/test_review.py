"""The review queue: due FSRS cards first, then missed items not yet due."""

from __future__ import annotations

from bot.content.models import Label
from bot.progress.store import ProgressStore
from tests.progress.conftest import ALICE, BOB, FakeClock, attempt, wrong


async def test_due_cards_come_most_overdue_first(store: ProgressStore, clock: FakeClock) -> None:
    await store.record_attempt(wrong(item_id="TF2"))
    clock.advance(hours=1)
    await store.record_attempt(wrong(item_id="TF1"))
    clock.advance(days=2)
    queue = await store.review_queue(ALICE)
    assert [e.item_id for e in queue.due] == ["TF2", "TF1"]


async def test_missed_items_not_yet_due_follow(store: ProgressStore, clock: FakeClock) -> None:
    await store.record_attempt(attempt(item_id="TF1", score=0.5, label=Label.PARTIAL))
    clock.advance(hours=1)
    queue = await store.review_queue(ALICE)
    assert ([e.item_id for e in queue.due], [e.item_id for e in queue.missed]) == ([], ["TF1"])


async def test_items_answered_correctly_and_not_due_are_not_offered(
    store: ProgressStore,
) -> None:
    await store.record_attempt(attempt(item_id="TF1"))
    queue = await store.review_queue(ALICE)
    assert (queue.due, queue.missed) == ([], [])


async def test_review_queue_is_per_learner(store: ProgressStore, clock: FakeClock) -> None:
    await store.record_attempt(wrong(learner_id=BOB))
    clock.advance(days=2)
    queue = await store.review_queue(ALICE)
    assert (queue.due, queue.missed) == ([], [])


async def test_missed_items_come_longest_ago_first_so_the_one_just_missed_waits(
    store: ProgressStore, clock: FakeClock
) -> None:
    await store.record_attempt(attempt(item_id="TF1", score=0.5, label=Label.PARTIAL))
    clock.advance(minutes=5)
    await store.record_attempt(attempt(item_id="TF2", score=0.5, label=Label.PARTIAL))
    queue = await store.review_queue(ALICE)
    assert [e.item_id for e in queue.missed] == ["TF1", "TF2"]
