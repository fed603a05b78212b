"""The play session: asking, answering, refusing, revealing, over the real grader and store."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.content.loader import Bank
from bot.content.models import Item, Kind, Label
from bot.grading import render_feedback
from bot.play.protocol import (
    Answer,
    AskItem,
    Ended,
    ErrorEvent,
    Event,
    Graded,
    Graph,
    GraphSaved,
    Hint,
    HintShown,
    NothingToReview,
    Question,
    Quiz,
    Revealed,
    Review,
    SetVerdict,
    Skip,
    Skipped,
    Stats,
    StatsShown,
    Topics,
    TopicsShown,
)
from bot.play.render import question_heading
from bot.play.session import PlaySession
from bot.services import Services, open_services
from sandbox.protocol import AutogradGraph
from tests.fake_sandbox import FakeSandboxRunner
from tests.play.conftest import LEARNER, settings_for

TF3_RIGHT = ".grad accumulates: every backward adds to it until you zero it"


def _only(events: list[Event], kind: type) -> object:
    [event] = [e for e in events if isinstance(e, kind)]
    return event


def _error(events: list[Event]) -> ErrorEvent:
    error = _only(events, ErrorEvent)
    assert isinstance(error, ErrorEvent)
    return error


async def _answer_tf3(session: PlaySession, text: str = TF3_RIGHT) -> list[Event]:
    await session.handle(AskItem(item_id="TF3"))
    await session.handle(SetVerdict(verdict=False))
    return await session.handle(Answer(text=text))


async def test_a_right_answer_is_graded_recorded_and_revealed(
    session: PlaySession, services: Services
) -> None:
    events = await _answer_tf3(session)
    graded, revealed = events
    assert isinstance(graded, Graded)
    assert isinstance(revealed, Revealed)
    assert graded.label is Label.CORRECT
    stats = await services.store.learner_stats(LEARNER)
    assert (stats.attempts, stats.accuracy) == (1, 1.0)
    assert session.open is None


async def test_the_feedback_is_the_one_renderers_plain_text(
    session: PlaySession, bank: Bank
) -> None:
    graded = _only(await _answer_tf3(session, "it overwrites the old value"), Graded)
    assert isinstance(graded, Graded)
    assert graded.feedback == render_feedback(graded.grade, bank.items["TF3"], flavour="plain")
    assert graded.label is Label.INCORRECT


async def test_the_reveal_shows_the_snippets_output_from_the_sandbox(
    session: PlaySession, bank: Bank, runner: FakeSandboxRunner
) -> None:
    revealed = _only(await _answer_tf3(session), Revealed)
    assert isinstance(revealed, Revealed)
    item = bank.items["TF3"]
    assert (revealed.source, revealed.status) == ("sandbox", "exit 0")
    assert revealed.output == item.expected_output
    assert revealed.snippet == item.snippet
    assert runner.runs == [item.snippet]


async def test_a_second_reveal_of_a_snippet_comes_from_the_stored_run(
    session: PlaySession, runner: FakeSandboxRunner
) -> None:
    await _answer_tf3(session)
    revealed = _only(await _answer_tf3(session), Revealed)
    assert isinstance(revealed, Revealed)
    assert revealed.source == "cache"
    assert len(runner.runs) == 1


async def test_with_the_sandbox_down_the_reveal_says_the_output_is_recorded(
    session: PlaySession, runner: FakeSandboxRunner, bank: Bank
) -> None:
    runner.mode = "down"
    revealed = _only(await _answer_tf3(session), Revealed)
    assert isinstance(revealed, Revealed)
    assert revealed.source == "recorded"
    assert revealed.output == bank.items["TF3"].expected_output


async def test_an_empty_answer_is_refused_and_the_question_stays_open(
    session: PlaySession, services: Services
) -> None:
    await session.handle(AskItem(item_id="WHY1"))
    assert _error(await session.handle(Answer(text="   "))).code == "empty_answer"
    assert session.open is not None
    assert (await services.store.learner_stats(LEARNER)).attempts == 0


async def test_a_lone_code_fence_is_refused_as_empty_and_nothing_is_recorded(
    session: PlaySession, services: Services
) -> None:
    """A paste fragment: the first line of a code block, typed alone."""
    await session.handle(AskItem(item_id="WHY1"))
    error = _error(await session.handle(Answer(text="```python")))
    assert error.code == "empty_answer"
    assert error.message.startswith("an empty answer cannot be graded: say why, in a sentence")
    assert session.open is not None
    assert (await services.store.learner_stats(LEARNER)).attempts == 0


async def test_an_answer_over_4000_characters_is_refused_and_nothing_is_recorded(
    session: PlaySession, services: Services
) -> None:
    await session.handle(AskItem(item_id="WHY1"))
    error = _error(await session.handle(Answer(text="x" * 4001)))
    assert error.code == "answer_too_long"
    assert "4,001 characters; at most 4,000" in error.message
    assert session.open is not None
    assert (await services.store.learner_stats(LEARNER)).attempts == 0


async def test_a_verdict_on_a_question_that_takes_none_is_refused(session: PlaySession) -> None:
    await session.handle(AskItem(item_id="WHY1"))
    assert _error(await session.handle(SetVerdict(verdict=True))).code == "not_true_false"


async def test_a_new_question_while_one_is_open_is_refused(session: PlaySession) -> None:
    await session.handle(AskItem(item_id="TF3"))
    error = _error(await session.handle(Quiz()))
    assert (error.code, session.open and session.open.item.id) == ("question_open", "TF3")


def _single_match_topic(bank: Bank, kind: Kind) -> str:
    """A tag that exactly one item of ``kind`` carries (the tester's tf + hooks)."""
    return next(t for t in sorted(bank.tags()) if len(bank.select(kind=kind, tag=t)) == 1)


async def test_a_quiz_whose_filters_match_one_item_says_it_is_the_only_match(
    session: PlaySession, bank: Bank
) -> None:
    topic = _single_match_topic(bank, Kind.TRUE_FALSE)
    question = _only(await session.handle(Quiz(kind=Kind.TRUE_FALSE, topic=topic)), Question)
    assert isinstance(question, Question)
    assert question.matching == 1
    assert "the only item matching these filters" in question_heading(question)


async def test_a_quiz_with_several_matches_gives_no_only_match_note(
    session: PlaySession,
) -> None:
    question = _only(await session.handle(Quiz(kind=Kind.TRUE_FALSE)), Question)
    assert isinstance(question, Question)
    assert (question.matching or 0) > 1
    assert "only item" not in question_heading(question)


async def test_answering_with_no_open_question_is_refused(session: PlaySession) -> None:
    assert _error(await session.handle(Answer(text="x"))).code == "no_question"


async def test_quiz_asks_an_item_matching_every_filter(session: PlaySession) -> None:
    question = _only(
        await session.handle(Quiz(kind=Kind.TRUE_FALSE, topic="grad-accumulation")), Question
    )
    assert isinstance(question, Question)
    assert question.kind is Kind.TRUE_FALSE
    assert "grad-accumulation" in question.tags
    assert question.needs_verdict


async def test_an_unknown_topic_is_refused_with_close_tags(session: PlaySession) -> None:
    error = _error(await session.handle(Quiz(topic="leaf")))
    assert error.code == "unknown_topic"
    assert "leaf-tensor" in error.message


async def test_a_tag_sharing_one_letter_with_a_short_topic_is_not_suggested(
    session: PlaySession,
) -> None:
    error = _error(await session.handle(Quiz(topic="x")))
    assert error.code == "unknown_topic"
    assert "did you mean" not in error.message


async def test_a_misspelt_topic_gets_the_tag_it_meant(session: PlaySession) -> None:
    error = _error(await session.handle(Quiz(topic="grad-acumulation")))
    assert "did you mean grad-accumulation?" in error.message


async def test_an_unknown_item_is_refused(session: PlaySession) -> None:
    error = _error(await session.handle(AskItem(item_id="TF99")))
    assert error.code == "unknown_item"


async def test_filters_that_match_nothing_are_refused(session: PlaySession, bank: Bank) -> None:
    topic = next(t for t in bank.tags() if all(i.difficulty != 3 for i in bank.select(tag=t)))
    error = _error(await session.handle(Quiz(topic=topic, difficulty=3)))
    assert error.code == "no_match"


async def test_skip_records_nothing(session: PlaySession, services: Services) -> None:
    await session.handle(AskItem(item_id="TF3"))
    assert isinstance(_only(await session.handle(Skip()), Skipped), Skipped)
    assert session.open is None
    assert (await services.store.learner_stats(LEARNER)).attempts == 0


async def test_a_hint_is_shown_and_recorded_as_used(
    session: PlaySession, services: Services, bank: Bank
) -> None:
    await session.handle(AskItem(item_id="TF3"))
    hint = _only(await session.handle(Hint()), HintShown)
    assert isinstance(hint, HintShown)
    assert hint.hint == bank.items["TF3"].hint
    await session.handle(SetVerdict(verdict=False))
    await session.handle(Answer(text=TF3_RIGHT))
    export = await services.store.export_learner(LEARNER)
    assert [a.hint_used for a in export.attempts] == [True]


async def test_review_with_nothing_due_says_so(session: PlaySession) -> None:
    assert isinstance(_only(await session.handle(Review()), NothingToReview), NothingToReview)


async def test_review_asks_a_missed_item_again(session: PlaySession) -> None:
    await _answer_tf3(session, "it overwrites the old value")
    question = _only(await session.handle(Review()), Question)
    assert isinstance(question, Question)
    assert (question.item_id, question.source) == ("TF3", "review")


async def _miss_three(session: PlaySession) -> None:
    """Three wrong answers, so three items wait in the review queue."""
    await _answer_tf3(session, "it overwrites the old value")
    for item_id in ("WHY1", "WHY2"):
        await session.handle(AskItem(item_id=item_id))
        await session.handle(Answer(text="no idea at all"))


async def _review_question(session: PlaySession) -> Question:
    question = _only(await session.handle(Review()), Question)
    assert isinstance(question, Question)
    return question


async def test_answering_a_review_question_counts_the_queue_down(session: PlaySession) -> None:
    await _miss_three(session)
    first = await _review_question(session)
    await session.handle(SetVerdict(verdict=True))
    await session.handle(Answer(text="no idea at all"))
    second = await _review_question(session)
    assert second.item_id != first.item_id
    assert (first.review_left, second.review_left) == (2, 1)


async def test_skip_in_review_moves_on_to_the_next_queued_item(session: PlaySession) -> None:
    await _miss_three(session)
    first = await _review_question(session)
    await session.handle(Skip())
    second = await _review_question(session)
    assert second.item_id != first.item_id
    assert second.review_left == 1


async def test_after_a_skip_in_review_the_next_card_comes_with_another_review(
    session: PlaySession,
) -> None:
    """fresh18 #2: `review`, `skip`, `answer` has no open question; the refusal says so and
    names `review` among the ways to ask one."""
    await _miss_three(session)
    await _review_question(session)
    await session.handle(Skip())
    error = _error(await session.handle(Answer(text="no idea at all")))
    assert error.code == "no_question"
    assert error.message == (
        "no open question to answer: ask one with `quiz`, `item ID` or `review`"
    )
    assert (await _review_question(session)).review_left == 1


async def test_a_review_emptied_in_this_session_names_the_skipped_items(
    session: PlaySession,
) -> None:
    await _miss_three(session)
    skipped = []
    for _ in range(3):
        skipped.append((await _review_question(session)).item_id)
        await session.handle(Skip())
    done = _only(await session.handle(Review()), NothingToReview)
    assert isinstance(done, NothingToReview)
    assert done.skipped == skipped


async def test_topics_lists_every_tag_and_kind_with_counts(
    session: PlaySession, bank: Bank
) -> None:
    shown = _only(await session.handle(Topics()), TopicsShown)
    assert isinstance(shown, TopicsShown)
    assert [t.name for t in shown.topics] == bank.tags()
    assert sum(k.items for k in shown.kinds) == len(bank)


async def test_graph_saves_the_picture_the_sandbox_drew(
    session: PlaySession, runner: FakeSandboxRunner, tmp_path: Path
) -> None:
    await _answer_tf3(session)
    event = _only(await session.handle(Graph(directory=tmp_path / "pictures")), GraphSaved)
    assert isinstance(event, GraphSaved)
    assert event.path == str(tmp_path / "pictures" / "TF3-graph.png")
    assert Path(event.path).read_bytes() == runner.picture  # noqa: ASYNC240 - a test's tmp file
    assert runner.drawn == [(runner.graph, "TF3")]


async def test_graph_into_a_directory_whose_parent_is_missing_is_refused_not_created(
    session: PlaySession, tmp_path: Path
) -> None:
    await _answer_tf3(session)
    error = _error(await session.handle(Graph(directory=tmp_path / "no" / "such" / "dir")))
    assert error.code == "bad_path"  # graph_unavailable is the sandbox's or the snippet's
    assert f"the directory {str(tmp_path / 'no' / 'such')!r} does not exist" in error.message
    # the whole path, not its last name alone ("only 'dir' itself": new-user test #4)
    assert f"only the last directory, {str(tmp_path / 'no' / 'such' / 'dir')!r}," in error.message
    assert not (tmp_path / "no").exists()


async def test_graph_into_a_file_says_it_is_not_a_directory(
    session: PlaySession, tmp_path: Path
) -> None:
    await _answer_tf3(session)
    (tmp_path / "README").write_text("x")
    error = _error(await session.handle(Graph(directory=tmp_path / "README")))
    assert error.code == "bad_path"
    assert error.message == (
        f"cannot write the picture under {tmp_path / 'README'}: "
        f"{str(tmp_path / 'README')!r} is not a directory (it is a file)"
    )


async def test_graph_under_a_file_names_the_file_not_a_missing_directory(
    session: PlaySession, tmp_path: Path
) -> None:
    await _answer_tf3(session)
    (tmp_path / "README").write_text("x")
    error = _error(await session.handle(Graph(directory=tmp_path / "README" / "pictures")))
    assert f"{str(tmp_path / 'README')!r} is not a directory (it is a file)" in error.message


async def test_graph_with_the_sandbox_down_says_it_is_unavailable(
    session: PlaySession, runner: FakeSandboxRunner, tmp_path: Path
) -> None:
    await _answer_tf3(session)
    runner.mode = "down"
    error = _error(await session.handle(Graph(directory=tmp_path / "pictures")))
    assert error.code == "graph_unavailable"
    assert not (tmp_path / "pictures").exists()


async def test_graph_of_a_snippet_without_autograd_history_says_nothing_to_draw(
    session: PlaySession, runner: FakeSandboxRunner, tmp_path: Path
) -> None:
    runner.graph = AutogradGraph(untracked=["x"])
    await _answer_tf3(session)
    error = _error(await session.handle(Graph(directory=tmp_path)))
    assert (error.code, error.message.endswith("nothing to draw")) == ("graph_unavailable", True)


async def test_graph_hands_the_last_revealed_item_to_the_saver(
    services: Services, tmp_path: Path
) -> None:
    saved: list[tuple[str, Path]] = []

    async def saver(item: Item, directory: Path) -> Path:
        saved.append((item.id, directory))
        return directory / f"{item.id}.png"

    session = PlaySession(services, LEARNER, measure_time=False, graph_saver=saver)
    await _answer_tf3(session)
    event = _only(await session.handle(Graph(directory=tmp_path)), GraphSaved)
    assert isinstance(event, GraphSaved)
    assert saved == [("TF3", tmp_path)]
    assert event.path == str(tmp_path / "TF3.png")


async def test_graph_that_cannot_be_written_is_a_bad_path_naming_why(
    services: Services, tmp_path: Path
) -> None:
    async def saver(item: Item, directory: Path) -> Path:
        raise PermissionError(13, "Permission denied")

    session = PlaySession(services, LEARNER, measure_time=False, graph_saver=saver)
    await _answer_tf3(session)
    error = _error(await session.handle(Graph(directory=tmp_path)))
    assert (error.code, error.message) == (
        "bad_path",
        f"cannot write under {tmp_path}: Permission denied",
    )


async def test_ending_with_a_question_open_names_it_and_shows_the_stats(
    session: PlaySession,
) -> None:
    await _answer_tf3(session)
    await session.handle(AskItem(item_id="WHY1"))
    ended = await session.end("eof")
    assert isinstance(ended, Ended)
    assert ended.unanswered == "WHY1"
    assert ended.stats is not None
    assert ended.stats.attempts == 1
    assert ended.stats.streaks.current == 1


async def test_stats_show_the_streak(session: PlaySession) -> None:
    await _answer_tf3(session)
    shown = _only(await session.handle(Stats()), StatsShown)
    assert isinstance(shown, StatsShown)
    assert shown.stats.streaks.current == 1


@pytest.fixture
async def busy_services(
    tmp_path: Path, bank: Bank, runner: FakeSandboxRunner
) -> AsyncIterator[Services]:
    settings = settings_for(tmp_path, db_busy_timeout_s=0.05)
    async with open_services(settings, bank=bank, runner=runner) as opened:
        yield opened


async def test_a_write_the_database_refuses_keeps_the_question_open(
    busy_services: Services, tmp_path: Path
) -> None:
    session = PlaySession(busy_services, LEARNER, measure_time=False, rng=random.Random(1))
    await session.handle(AskItem(item_id="TF3"))
    await session.handle(SetVerdict(verdict=False))
    other = sqlite3.connect(tmp_path / "tutor.db")
    other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
    try:
        error = _error(await session.handle(Answer(text=TF3_RIGHT)))
    finally:
        other.rollback()
        other.close()
    assert error.code == "not_recorded"
    assert session.open is not None
    events = await session.handle(Answer(text=TF3_RIGHT))
    assert isinstance(events[0], Graded)
    assert (await busy_services.store.learner_stats(LEARNER)).attempts == 1


async def test_an_answer_of_exactly_4000_characters_is_graded(
    session: PlaySession, services: Services
) -> None:
    await session.handle(AskItem(item_id="WHY1"))
    events = await session.handle(Answer(text="because " * 499 + "x" * 8))
    assert isinstance(events[0], Graded)
    assert (await services.store.learner_stats(LEARNER)).attempts == 1


async def test_an_answer_with_a_lone_surrogate_is_graded_and_stored_replaced(
    session: PlaySession, services: Services
) -> None:
    read = b"caf\xe9: .grad accumulates".decode("utf-8", "surrogateescape")
    graded = _only(await _answer_tf3(session, read), Graded)
    assert isinstance(graded, Graded)
    export = await services.store.export_learner(LEARNER)
    assert [a.answer_text for a in export.attempts] == ["caf\ufffd: .grad accumulates"]
