"""``/stats``, ``/leaderboard``, ``/review`` and ``/quiz`` options."""

from __future__ import annotations

import json

from tests.discord_app.harness import Harness, Person
from tests.discord_app.helpers import custom_ids, field_values, is_ephemeral


async def _answer(harness: Harness, kind: str, text: str, who: Person | None = None) -> None:
    quiz = await harness.slash("quiz", who, kind=kind)
    button = custom_ids(quiz.reply)[-1]  # False for TF1, Answer for WHY1
    click = await harness.click(quiz.reply, button, who)
    await harness.submit(click.modal, text, who=who)


async def test_quiz_is_private_unless_public(harness: Harness) -> None:
    private = await harness.slash("quiz", kind="why")
    public = await harness.slash("quiz", kind="why", public=True)
    assert is_ephemeral(private.reply)
    assert not is_ephemeral(public.reply)


async def test_quiz_sends_the_question_embed(harness: Harness) -> None:
    quiz = await harness.slash("quiz", topic="graph-lifetime")
    assert quiz.callback.body == {"type": 5, "data": {"flags": 64}}  # deferred: a store read
    assert quiz.reply["embeds"] == [
        {
            "title": "Why? · WHY1",
            "description": "Why does calling backward() twice on the same graph fail by default?"
            "\n\n*Press Answer and explain in a sentence or two.*",
            "color": 0x5865F2,
            "footer": {"text": "difficulty 2/3 · graph-lifetime"},
            "type": "rich",
            "flags": 0,
        }
    ]


async def test_quiz_with_an_unknown_topic_says_so(harness: Harness) -> None:
    quiz = await harness.slash("quiz", topic="**nope**")
    assert quiz.callback.body["data"]["content"] == (
        "There is no topic called “\\*\\*nope\\*\\*”. Pick one from the suggestions."
    )


async def test_quiz_with_no_matching_item_says_so(harness: Harness) -> None:
    quiz = await harness.slash("quiz", kind="edge_case")
    assert quiz.callback.body["data"]["content"] == (
        "No question matches those filters; try fewer of them."
    )


async def test_topic_autocomplete_suggests_matching_tags(harness: Harness) -> None:
    done = await harness.autocomplete("quiz", "topic", topic="graph")
    assert done.callback.body == {
        "type": 8,
        "data": {"choices": [{"name": "graph-lifetime", "value": "graph-lifetime"}]},
    }


async def test_stats_shows_accuracy_and_per_kind_results(harness: Harness) -> None:
    await _answer(harness, "why", "the graph is freed")
    await _answer(harness, "true_false", "false for sure")  # no why: partial
    stats = await harness.slash("stats")
    assert stats.callback.body == {"type": 5, "data": {"flags": 64}}
    reply = stats.reply
    assert reply["embeds"][0]["title"] == "Progress of Ada"
    fields = field_values(reply)
    assert fields["Answers"] == "2"
    assert fields["Accuracy"] == "50%"
    assert fields["By kind"] == "• True or false: 0% of 1\n• Why?: 100% of 1"
    # WHY1 correct: 10 x score 1.0 x difficulty 2; TF1: the right verdict alone, partial
    # (0.4 x 10 x difficulty 1). "no idea" here would be a declared guess: incorrect, 0.
    assert fields["Points"] == "24"


async def test_stats_name_reviews_scheduled_and_missed_as_tutor_stats_does(
    harness: Harness,
) -> None:
    await _answer(harness, "why", "no idea at all")
    fields = field_values((await harness.slash("stats")).reply)
    assert fields["Reviews"].startswith("0 due now (1 scheduled, the next in 24 h)")
    assert fields["Reviews"].endswith("; 1 missed to retry now (try `/review`)")


async def test_stats_of_a_member_with_no_answers_invites_them_to_play(harness: Harness) -> None:
    stats = await harness.slash("stats", member=harness.other)
    assert stats.reply["embeds"][0]["title"] == "Progress of Grace"
    assert stats.reply["embeds"][0]["description"] == "No answers yet. Try `/quiz`!"


async def test_leaderboard_ranks_learners_without_pinging_them(harness: Harness) -> None:
    await _answer(harness, "why", "the graph is freed")  # WHY1, difficulty 2: 20 points
    await _answer(harness, "true_false", "they accumulate", who=harness.other)  # TF1: 10
    board = await harness.slash("leaderboard", period="all")
    embed = board.reply["embeds"][0]
    assert embed["title"] == "Leaderboard — all time"
    assert embed["description"] == (
        f"**1.** <@{harness.learner.id}> — 20 pts\n**2.** <@{harness.other.id}> — 10 pts"
    )
    assert board.followups[0].body["allowed_mentions"] == {"parse": []}


async def test_the_weekly_leaderboard_is_the_default_and_names_its_iso_week(
    harness: Harness,
) -> None:
    await _answer(harness, "why", "the graph is freed")
    board = await harness.slash("leaderboard")
    embed = board.reply["embeds"][0]
    assert embed["title"] == "Leaderboard — week 2025-W10"  # Monday 3 March 2025
    assert embed["description"] == f"**1.** <@{harness.learner.id}> — 20 pts"


async def test_quiz_does_not_repeat_the_question_just_answered(harness: Harness) -> None:
    await _answer(harness, "why", "the graph is freed")
    quiz = await harness.slash("quiz")
    assert quiz.reply["embeds"][0]["title"] == "True or false · TF1"


async def test_review_shows_the_first_missed_item_with_its_buttons(harness: Harness) -> None:
    await _answer(harness, "true_false", "no idea")
    review = await harness.slash("review")
    reply = review.reply
    assert reply["embeds"][0]["description"].startswith("1 missed recently: TF1")
    assert reply["embeds"][1]["title"] == "True or false · TF1"
    assert custom_ids(reply) == ["tutor:answer:TF1:t:0", "tutor:answer:TF1:f:0"]


async def test_review_with_nothing_due_says_come_back(harness: Harness) -> None:
    review = await harness.slash("review")
    assert review.reply["embeds"][0]["description"] == (
        "Nothing to review right now. Come back tomorrow!"
    )
    assert review.reply["components"] == []


async def test_quiz_topic_and_its_autocomplete_take_any_case(harness: Harness) -> None:
    """fresh24 #4: ``/quiz topic:GRAPH-LIFETIME`` was "no topic called"; tags are lower-case."""
    quiz = await harness.slash("quiz", topic="Graph-LIFETIME")
    assert "There is no topic" not in json.dumps(quiz.callback.body)
    assert quiz.reply["embeds"]
    done = await harness.autocomplete("quiz", "topic", topic="GRAPH")
    assert done.callback.body["data"]["choices"] == [
        {"name": "graph-lifetime", "value": "graph-lifetime"}
    ]
