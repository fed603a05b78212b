"""Learner stats: accuracy, first-try rate, streaks in the learner's zone, kinds, concepts."""

from __future__ import annotations

from datetime import UTC, date, datetime

from bot.content.models import Kind, Label
from bot.progress.models import LearnerProfile
from bot.progress.stats import describe_reviews
from bot.progress.store import ProgressStore
from tests.progress.conftest import ALICE, GUILD, FakeClock, attempt, wrong

OTHER_GUILD = GUILD + 1


async def test_new_learner_has_empty_stats(store: ProgressStore) -> None:
    stats = await store.learner_stats(ALICE)
    assert (stats.attempts, stats.accuracy, stats.streaks.current, stats.last_active) == (
        0,
        0.0,
        0,
        None,
    )


async def test_accuracy_is_the_share_of_correct_attempts(store: ProgressStore) -> None:
    for answer in (attempt(), attempt(item_id="TF2"), wrong(item_id="SE1"), wrong()):
        await store.record_attempt(answer)
    assert (await store.learner_stats(ALICE)).accuracy == 0.5


async def test_average_score_is_the_mean_score(store: ProgressStore) -> None:
    await store.record_attempt(attempt(score=1.0))
    await store.record_attempt(attempt(score=0.4, label=Label.PARTIAL))
    assert (await store.learner_stats(ALICE)).average_score == 0.7


async def test_first_try_rate_counts_items_whose_first_attempt_was_correct(
    store: ProgressStore,
) -> None:
    await store.record_attempt(wrong(item_id="TF1"))
    await store.record_attempt(attempt(item_id="TF1"))
    await store.record_attempt(attempt(item_id="TF2"))
    assert (await store.learner_stats(ALICE)).first_try_rate == 0.5


async def test_guild_stats_count_only_that_guild(store: ProgressStore) -> None:
    await store.record_attempt(attempt(guild_id=GUILD))
    await store.record_attempt(wrong(guild_id=OTHER_GUILD))
    await store.record_attempt(wrong(guild_id=None))
    here = await store.learner_stats(ALICE, guild_id=GUILD)
    everywhere = await store.learner_stats(ALICE)
    assert (here.attempts, here.accuracy, everywhere.attempts) == (1, 1.0, 3)


async def test_streak_days_are_counted_in_the_learners_time_zone(
    store: ProgressStore, clock: FakeClock
) -> None:
    await store.save_learner(LearnerProfile(learner_id=ALICE, time_zone="America/Los_Angeles"))
    clock.set(datetime(2025, 3, 4, 6, 0, tzinfo=UTC))  # Mon 3 March, 22:00 in Los Angeles
    await store.record_attempt(attempt())
    clock.set(datetime(2025, 3, 4, 20, 0, tzinfo=UTC))  # Tue 4 March, 12:00 in Los Angeles
    await store.record_attempt(attempt())
    stats = await store.learner_stats(ALICE)
    assert (stats.streaks.current, stats.last_active) == (2, date(2025, 3, 4))


async def test_streak_is_kept_until_a_whole_day_passes(
    store: ProgressStore, clock: FakeClock
) -> None:
    await store.record_attempt(attempt())
    clock.advance(days=1, hours=14)  # the next evening, nothing answered yet today
    assert (await store.learner_stats(ALICE)).streaks.current == 1


async def test_streak_breaks_after_a_day_without_attempts(
    store: ProgressStore, clock: FakeClock
) -> None:
    await store.record_attempt(attempt())
    clock.advance(days=2)
    stats = await store.learner_stats(ALICE)
    assert (stats.streaks.current, stats.streaks.best) == (0, 1)


async def test_accuracy_is_broken_down_by_kind(store: ProgressStore) -> None:
    await store.record_attempt(attempt(item_id="TF1"))
    await store.record_attempt(wrong(item_id="WHY1", kind=Kind.WHY, verdict_correct=None))
    by_kind = {a.key: a.accuracy for a in (await store.learner_stats(ALICE)).by_kind}
    assert by_kind == {"true_false": 1.0, "why": 0.0}


async def test_accuracy_is_broken_down_by_topic(store: ProgressStore) -> None:
    await store.record_attempt(attempt(item_id="TF1", tags=["leaf-tensor", "grad-fn"]))
    await store.record_attempt(wrong(item_id="TF2", tags=["grad-fn"]))
    by_topic = {
        a.key: (a.attempts, a.accuracy) for a in (await store.learner_stats(ALICE)).by_topic
    }
    assert by_topic == {"grad-fn": (2, 0.5), "leaf-tensor": (1, 1.0)}


async def test_concept_mastery_lists_the_weakest_concept_first(store: ProgressStore) -> None:
    await store.record_attempt(attempt(concepts_hit=["accumulates"], concepts_missing=["zeroing"]))
    await store.record_attempt(
        attempt(item_id="TF2", concepts_hit=["accumulates", "zeroing"], concepts_missing=[])
    )
    concepts = [(c.concept_id, c.mastery) for c in (await store.learner_stats(ALICE)).concepts]
    assert concepts == [("zeroing", 0.5), ("accumulates", 1.0)]


async def test_weakest_items_have_the_lowest_average_score(store: ProgressStore) -> None:
    await store.record_attempt(attempt(item_id="TF1"))
    await store.record_attempt(wrong(item_id="TF2"))
    await store.record_attempt(attempt(item_id="SE1", score=0.5, label=Label.PARTIAL))
    weakest = [i.item_id for i in (await store.learner_stats(ALICE)).weakest_items]
    assert weakest == ["TF2", "SE1", "TF1"]


async def test_reviews_due_counts_cards_due_now(store: ProgressStore, clock: FakeClock) -> None:
    await store.record_attempt(wrong(item_id="TF1"))
    await store.record_attempt(wrong(item_id="TF2"))
    clock.advance(days=1)
    assert (await store.learner_stats(ALICE)).reviews_due == 2


async def test_points_everywhere_add_up_every_guild(store: ProgressStore) -> None:
    await store.record_attempt(attempt(guild_id=GUILD))
    await store.record_attempt(attempt(guild_id=OTHER_GUILD))
    here = await store.learner_stats(ALICE, guild_id=GUILD)
    everywhere = await store.learner_stats(ALICE)
    assert (here.points, everywhere.points) == (10, 20)


async def test_recent_items_lists_the_latest_answered_first(
    store: ProgressStore, clock: FakeClock
) -> None:
    for item_id in ("TF1", "SE1", "TF2", "TF1"):
        await store.record_attempt(attempt(item_id=item_id))
        clock.advance(minutes=1)
    assert await store.recent_items(ALICE) == ["TF1", "TF2", "SE1"]
    assert await store.recent_items(ALICE, limit=2) == ["TF1", "TF2"]
    assert await store.recent_items(ALICE + 99) == []


async def test_cards_not_yet_due_are_counted_with_the_wait_for_the_next(
    store: ProgressStore, clock: FakeClock
) -> None:
    await store.record_attempt(wrong(item_id="TF1"))
    clock.advance(hours=1)
    await store.record_attempt(wrong(item_id="TF2"))
    stats = await store.learner_stats(ALICE)
    assert (stats.reviews_due, stats.reviews_scheduled) == (0, 2)
    assert stats.next_review_in_s == 23 * 3600


async def test_items_just_missed_are_counted_as_ones_to_retry_now(store: ProgressStore) -> None:
    await store.record_attempt(wrong(item_id="TF1"))
    await store.record_attempt(attempt(item_id="TF2"))
    assert (await store.learner_stats(ALICE)).missed_to_retry == 1


async def test_the_review_line_names_what_is_due_scheduled_and_to_retry(
    store: ProgressStore, clock: FakeClock
) -> None:
    """After wrong answers "reviews due 0" read as if nothing were queued (fresh15)."""
    for item_id in ("TF1", "TF2", "TF3"):
        await store.record_attempt(wrong(item_id=item_id))
    clock.advance(minutes=30)
    words = describe_reviews(await store.learner_stats(ALICE))
    assert words == "0 due now (3 scheduled, the next in 24 h); 3 missed to retry now"


async def test_the_review_line_is_only_the_due_count_when_nothing_else_waits(
    store: ProgressStore, clock: FakeClock
) -> None:
    await store.record_attempt(attempt(item_id="TF1"))
    clock.advance(days=400)
    assert describe_reviews(await store.learner_stats(ALICE)) == "1 due now"
