"""The tutoring steps both front ends share: choose, grade and record, review, reveal."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest

from bot.content.loader import Bank
from bot.content.models import Kind, Label
from bot.grading import AnswerTooLong
from bot.progress.errors import AlreadyAnswered
from bot.progress.models import GuildSettings, ItemRef
from bot.quiz import (
    NoGraph,
    NoMatchingItem,
    QuizFilter,
    UnknownTopic,
    choose_item,
    draw_graph,
    grade_and_record,
    item_graph,
    next_item,
    reveal,
    review_items,
    review_plan,
)
from bot.services import Services, open_services
from bot.settings import TutorSettings
from sandbox.protocol import AutogradGraph
from tests.fake_sandbox import Clock, FakeSandboxRunner

ADA = 3_000_000_000_000_000_003
GUILD = 1_000_000_000_000_000_001
CHANNEL = 2_000_000_000_000_000_002


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def runner(bank: Bank) -> FakeSandboxRunner:
    return FakeSandboxRunner(bank)


@pytest.fixture
async def services(
    tmp_path: Path, bank: Bank, clock: Clock, runner: FakeSandboxRunner
) -> AsyncIterator[Services]:
    settings = TutorSettings(_env_file=None, database_path=tmp_path / "tutor.db")  # type: ignore[call-arg]
    async with open_services(settings, bank=bank, clock=clock, runner=runner) as opened:
        yield opened


async def _answer(services: Services, item_id: str, text: str, key: str) -> None:
    item = services.bank.items[item_id]
    verdict = item.answer.verdict
    await grade_and_record(
        services, item=item, verdict=verdict, text=text, learner_id=ADA, idempotency_key=key
    )


# --- choosing an item ----------------------------------------------------------------------


def test_choose_item_honours_every_filter(bank: Bank) -> None:
    filters = QuizFilter(kind=Kind.TRUE_FALSE, topic="grad-accumulation", difficulty=1)
    for seed in range(20):
        item = choose_item(bank, filters, rng=random.Random(seed))
        assert item.kind is Kind.TRUE_FALSE
        assert "grad-accumulation" in item.tags
        assert item.difficulty == 1


def test_choose_item_refuses_an_unknown_topic(bank: Bank) -> None:
    with pytest.raises(UnknownTopic) as refused:
        choose_item(bank, QuizFilter(topic="riddles"), rng=random.Random(0))
    assert refused.value.topic == "riddles"


def test_choose_item_says_when_nothing_matches_every_filter(bank: Bank) -> None:
    topic = next(t for t in bank.tags() if all(i.difficulty != 3 for i in bank.select(tag=t)))
    with pytest.raises(NoMatchingItem):
        choose_item(bank, QuizFilter(topic=topic, difficulty=3), rng=random.Random(0))


def test_choose_item_avoids_the_learners_recent_items(bank: Bank) -> None:
    kinds = bank.select(kind=Kind.EDGE_CASE)
    recent = [item.id for item in kinds[:-1]]
    for seed in range(10):
        chosen = choose_item(
            bank, QuizFilter(kind=Kind.EDGE_CASE), recent=recent, rng=random.Random(seed)
        )
        assert chosen.id == kinds[-1].id


def test_when_every_match_is_recent_the_oldest_comes_back(bank: Bank) -> None:
    ids = [item.id for item in bank.select(kind=Kind.WHY)]
    chosen = choose_item(bank, QuizFilter(kind=Kind.WHY), recent=ids, rng=random.Random(0))
    assert chosen.id == ids[-1]


async def test_next_item_skips_what_the_learner_just_answered(services: Services) -> None:
    tf = [item.id for item in services.bank.select(kind=Kind.TRUE_FALSE)]
    for n, item_id in enumerate(tf[:-1]):
        await _answer(services, item_id, "no idea", key=f"k{n}")
    item = await next_item(services, ADA, QuizFilter(kind=Kind.TRUE_FALSE), rng=random.Random(1))
    assert item.id == tf[-1]


# --- grading and recording -----------------------------------------------------------------


async def test_grade_and_record_stores_the_grade(services: Services) -> None:
    item = services.bank.items["TF3"]
    outcome = await grade_and_record(
        services,
        item=item,
        verdict=False,
        text="False: .grad accumulates, each backward adds to it",
        learner_id=ADA,
        idempotency_key="play-1",
    )
    assert outcome.grade.label is Label.CORRECT
    assert not outcome.recorded.duplicate
    stats = await services.store.learner_stats(ADA)
    assert (stats.attempts, stats.accuracy) == (1, 1.0)


async def test_the_same_key_twice_records_once(services: Services) -> None:
    item = services.bank.items["TF3"]
    for _ in range(2):
        outcome = await grade_and_record(
            services,
            item=item,
            verdict=False,
            text="it adds up",
            learner_id=ADA,
            idempotency_key="click-1",
        )
    assert outcome.recorded.duplicate
    assert (await services.store.learner_stats(ADA)).attempts == 1


async def test_an_answer_over_4000_characters_is_refused(services: Services) -> None:
    with pytest.raises(AnswerTooLong):
        await grade_and_record(
            services,
            item=services.bank.items["WHY1"],
            verdict=None,
            text="x" * 4001,
            learner_id=ADA,
            idempotency_key="k",
        )


async def test_a_second_answer_to_a_drop_is_refused(services: Services, clock: Clock) -> None:
    store = services.store
    schedule = {"guild_id": GUILD, "drops_enabled": True, "drop_channel_id": CHANNEL}
    await store.save_guild_settings(
        GuildSettings.model_validate({**schedule, "drop_time": "09:00"})
    )
    clock.advance(timedelta(hours=1, minutes=1))
    [drop] = (await store.tick_drops(ItemRef.from_items(list(services.bank)))).to_post
    await store.begin_posting(drop.drop_id)
    await store.mark_open(drop.drop_id, 9_000_000_000_000_000_009)
    item = services.bank.items[drop.item_id or ""]

    async def submit(text: str, key: str) -> None:
        await grade_and_record(
            services,
            item=item,
            verdict=item.answer.verdict,
            text=text,
            learner_id=ADA,
            guild_id=GUILD,
            drop_id=drop.drop_id,
            idempotency_key=key,
        )

    await submit("first", "a")
    with pytest.raises(AlreadyAnswered):
        await submit("second", "b")


# --- review ----------------------------------------------------------------------------------


async def test_review_puts_due_cards_before_missed_items(services: Services, clock: Clock) -> None:
    await _answer(services, "TF3", "no idea", key="old")
    clock.advance(timedelta(days=3))  # TF3's card (rated Again, one-day step) is due now
    await _answer(services, "WHY2", "no idea", key="new")  # missed, due tomorrow
    plan = await review_plan(services, ADA)
    assert [item.id for item in plan.items] == ["TF3", "WHY2"]
    assert [e.item_id for e in plan.queue.due] == ["TF3"]


async def test_review_skips_items_no_longer_in_the_bank(services: Services) -> None:
    await _answer(services, "TF3", "no idea", key="a")
    await _answer(services, "WHY2", "no idea", key="b")
    queue = await services.store.review_queue(ADA)
    smaller = Bank(
        [
            p.model_copy(update={"items": [i for i in p.items if i.id != "TF3"]})
            for p in services.bank.packs
        ]
    )
    assert [item.id for item in review_items(queue, smaller)] == ["WHY2"]


# --- reveal ------------------------------------------------------------------------------------


async def test_reveal_shows_the_real_output_from_the_sandbox(
    services: Services, runner: FakeSandboxRunner
) -> None:
    item = services.bank.items["TF3"]
    shown = await reveal(services, item)
    assert shown.run is not None
    assert shown.output == item.expected_output
    assert runner.runs == [item.snippet]


async def test_reveal_falls_back_to_the_recorded_output_when_the_sandbox_is_down(
    services: Services, runner: FakeSandboxRunner
) -> None:
    runner.mode = "down"
    item = services.bank.items["TF3"]
    shown = await reveal(services, item)
    assert shown.run is None
    assert shown.output == item.expected_output


# --- graph pictures ------------------------------------------------------------------------


async def test_an_items_graph_is_drawn_by_the_sandbox_with_the_item_as_title(
    services: Services, runner: FakeSandboxRunner, bank: Bank
) -> None:
    picture = await item_graph(services, bank.items["TF3"])
    assert (picture.graph, picture.title, picture.png) == (runner.graph, "TF3", runner.picture)
    assert runner.drawn == [(runner.graph, "TF3")]


async def test_an_item_whose_run_gave_no_graph_raises_with_the_sandboxs_reason(
    services: Services, runner: FakeSandboxRunner, bank: Bank
) -> None:
    runner.graph = None
    with pytest.raises(NoGraph) as missing:
        await item_graph(services, bank.items["TF3"])
    assert (missing.value.item_id, missing.value.reason) == ("TF3", runner.graph_error)


async def test_an_empty_graph_is_not_sent_to_be_drawn(
    services: Services, runner: FakeSandboxRunner
) -> None:
    empty = AutogradGraph(untracked=["plain"])
    picture = await draw_graph(services, empty, title="your snippet")
    assert (picture.png, runner.drawn) == (None, [])
