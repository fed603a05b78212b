"""Feedback: the one renderer, escaping author text and never echoing the learner."""

from __future__ import annotations

from bot.content.loader import Bank
from bot.content.models import Item, Label
from bot.grading import Grader, Response, render_feedback
from bot.grading.feedback import (
    MAX_CONCEPT_NUDGES,
    NO_REASON_NUDGE,
    STUFFING_CORRECTION,
    UNRECOGNISED_REASON_CORRECTION,
    build_feedback,
    escape_markdown,
)
from tests.grading.conftest import grade


def test_markdown_is_escaped_outside_code_spans() -> None:
    assert escape_markdown("zero_grad and `x.grad.zero_()`") == "zero\\_grad and `x.grad.zero_()`"


def test_mentions_are_defused() -> None:
    assert "@\u200beveryone" in escape_markdown("ping @everyone")


def test_a_right_answer_is_praised_with_its_concepts(grader: Grader, tf3: Item) -> None:
    result = grade(grader, "TF3", "grads accumulate", verdict=False)
    text = render_feedback(result, tf3)
    assert text.startswith("**Correct**")
    assert "accumulates" in text


def test_missing_concepts_come_as_nudges(grader: Grader, tf3: Item) -> None:
    result = grade(grader, "TF3", "False, you need zero_grad()", verdict=False)
    assert tf3.rubric.concepts[0].nudge in result.feedback.missing


def test_a_misconception_is_named_and_corrected(grader: Grader, tf3: Item) -> None:
    result = grade(grader, "TF3", "it overwrites .grad", verdict=True)
    assert tf3.rubric.misconceptions[0].feedback in result.feedback.corrections


def test_a_contradicted_concept_is_corrected(grader: Grader, tf3: Item) -> None:
    result = grade(grader, "TF3", "False, it does not accumulate", verdict=False)
    assert any("opposite" in line for line in result.feedback.corrections)


def test_a_wrong_verdict_is_stated(grader: Grader, tf3: Item) -> None:
    result = grade(grader, "TF3", "it only keeps the latest", verdict=True)
    assert result.feedback.verdict == "The statement is false, not true."


def test_a_verdict_conflict_is_explained(grader: Grader, tf3: Item) -> None:
    result = grade(grader, "TF3", "True, it overwrites", verdict=False)
    assert result.feedback.verdict is not None
    assert "the button counts" in result.feedback.verdict


def test_keyword_stuffing_is_called_out(grader: Grader) -> None:
    result = grade(grader, "TF3", "accumulate grad backward zero_grad sum", verdict=False)
    assert STUFFING_CORRECTION in result.feedback.corrections


def test_the_learner_text_is_never_echoed(grader: Grader, tf3: Item) -> None:
    text = "False <@123> **SECRETWORD** grads accumulate @everyone"
    rendered = render_feedback(grade(grader, "TF3", text, verdict=False), tf3)
    assert "SECRETWORD" not in rendered.upper()
    assert "<@123>" not in rendered
    assert "@everyone" not in rendered


def test_the_answer_key_is_shown_when_not_correct(grader: Grader, tf3: Item) -> None:
    rendered = render_feedback(grade(grader, "TF3", "True", verdict=True), tf3)
    assert "Answer:" in rendered


def test_the_plain_flavour_has_the_same_words_without_markdown(grader: Grader, pack: Bank) -> None:
    tf5 = pack.items["TF5"]
    result = grade(grader, "TF5", "no idea")
    discord = render_feedback(result, tf5)
    plain = render_feedback(result, tf5, flavour="plain")
    assert "\\_" in discord  # the precondition: this feedback has escapes on Discord
    assert plain == discord.replace("**", "").replace("\\", "")


def test_a_correct_answer_gets_no_questions_about_optional_extras(
    grader: Grader, tf3: Item
) -> None:
    result = grade(grader, "TF3", "grads accumulate: backward adds into .grad", verdict=False)
    assert result.label.value == "correct"
    assert result.concepts_missing  # an optional concept was left out...
    assert result.feedback.missing == []  # ...and nobody is quizzed about it


def test_a_wrong_answer_gets_at_most_two_concept_questions(tf3: Item) -> None:
    many = tf3.model_copy(
        update={
            "rubric": tf3.rubric.model_copy(
                update={
                    "concepts": [
                        c.model_copy(update={"id": f"{c.id}-{n}", "nudge": f"{c.nudge} ({n})"})
                        for n in range(3)
                        for c in tf3.rubric.concepts
                    ],
                    "required": [],
                }
            )
        }
    )
    feedback = build_feedback(
        many,
        verdict=True,
        verdict_source="button",
        verdict_conflict=False,
        text_verdict=None,
        hit=[],
        missing=[c.id for c in many.rubric.concepts],
        contradicted=[],
        misconceptions=[],
        stuffing=False,
        label=Label.INCORRECT,
    )
    assert feedback.missing == [c.nudge for c in many.rubric.concepts[:MAX_CONCEPT_NUDGES]]


def test_a_right_verdict_with_an_unrecognised_reason_is_told_so(grader: Grader) -> None:
    result = grade(grader, "TF3", "False, because the learning rate is too small", verdict=False)
    assert result.label.value == "partial"
    assert UNRECOGNISED_REASON_CORRECTION in result.feedback.corrections


def test_a_right_verdict_with_a_recognised_reason_is_not_told_so(grader: Grader) -> None:
    result = grade(grader, "TF3", "grads accumulate", verdict=False)
    assert UNRECOGNISED_REASON_CORRECTION not in result.feedback.corrections


def test_at_most_two_corrections_misconceptions_before_reversed_points() -> None:
    """A tester read three near-identical ✗ lines under one wrong answer."""
    from bot.content.loader import load_bank
    from bot.grading import Grader, Response
    from tests.conftest import CONTENT

    bank = load_bank([CONTENT])
    item = bank.get("WHY10")
    assert item is not None
    result = Grader(bank).grade(
        Response(item_id="WHY10", text="create_graph=True is not needed, d1 always has a grad_fn")
    )
    corrections = result.feedback.corrections
    assert len(corrections) <= 2
    found = {m.id: m.feedback for m in item.rubric.misconceptions}
    assert result.misconceptions
    assert corrections[0] == found[result.misconceptions[0]]


def test_words_that_state_a_misconception_earn_no_check_mark() -> None:
    """A tester saw "✓ reduce to a scalar first" under "backward sums them automatically":
    the "sums" that states the misconception had also credited the concept."""
    from bot.content.loader import load_bank
    from bot.grading import Grader, Response
    from tests.conftest import CONTENT

    grader = Grader(load_bank([CONTENT]))
    wrong = grader.grade(
        Response(item_id="TF2", verdict=True, text="backward sums them automatically")
    )
    assert "auto-reduces" in wrong.misconceptions
    assert "pass-gradient" not in wrong.concepts_hit
    assert not wrong.feedback.right
    # The same words outside the wrong claim still credit the concept.
    right = grader.grade(
        Response(item_id="TF2", verdict=False, text="call .sum() first, then backward works")
    )
    assert "pass-gradient" in right.concepts_hit


def test_words_shared_with_a_wrong_mechanism_earn_no_check_mark() -> None:
    """A tester saw "✓ the value grows on the second call" under "retain_graph makes
    backward double the gradient", a match that overlapped the misconception's words."""
    from bot.content.loader import load_bank
    from bot.grading import Grader, Response
    from tests.conftest import CONTENT

    result = Grader(load_bank([CONTENT])).grade(
        Response(
            item_id="EC6",
            text="x.grad is 8 because retain_graph=True makes backward double the gradient",
        )
    )
    assert result.misconceptions
    assert "grows" not in result.concepts_hit


def test_no_praise_for_a_sentence_that_holds_a_capped_false_claim(bank: Bank) -> None:
    """12b/fresh10: "records the graph ahead of time so that ifs and loops work" was praised
    "✓ Python control flow can change the graph" beside the static-graph belief."""
    result = Grader(bank).grade(
        Response(
            item_id="WHY3", text="it records the graph ahead of time so that ifs and loops work"
        )
    )
    assert result.label is Label.INCORRECT
    assert result.feedback.right == []
    assert result.feedback.corrections


def test_praise_stays_for_a_right_sentence_beside_a_capped_one(bank: Bank) -> None:
    result = Grader(bank).grade(
        Response(
            item_id="WHY3",
            text="ifs and loops can change the graph. it is compiled ahead of time like TF1",
        )
    )
    assert result.feedback.right


def test_no_praise_for_the_words_a_penalised_misconception_matched(bank: Bank) -> None:
    """fresh20: "because gradients are only defined for scalars" showed "✓ backward starts
    from an implicit seed gradient of 1" beside the ✗ that corrects those very words."""
    result = Grader(bank).grade(
        Response(item_id="WHY2", text="because gradients are only defined for scalars")
    )
    assert "only-defined-for-scalars" in result.misconceptions
    assert result.feedback.right == []
    assert result.feedback.corrections


def test_praise_stays_for_words_outside_the_penalised_misconception(bank: Bank) -> None:
    result = Grader(bank).grade(
        Response(
            item_id="WHY2",
            text="backward seeds dL/dL = 1, which only exists for one element. "
            "also gradients are only defined for scalars",
        )
    )
    assert "only-defined-for-scalars" in result.misconceptions
    assert result.feedback.right


def test_a_concept_denied_by_the_stated_misconception_is_not_credited(bank: Bank) -> None:
    """fresh17: "the op is not recorded when any input has requires_grad=False" credited
    "the op is recorded" (from "any input has") beside the capped belief that it is not, so
    mastery counted a concept the learner denied."""
    result = Grader(bank).grade(
        Response(
            item_id="TF1",
            verdict=False,
            text="the op is not recorded when any input has requires_grad=False",
        )
    )
    assert result.label is Label.INCORRECT
    assert "combined-is-tracked" not in result.concepts_hit
    assert "combined-is-tracked" in result.concepts_contradicted


def test_a_right_value_joined_to_a_wrong_claim_keeps_its_credit(bank: Bank) -> None:
    """ "returns 27" is right even when "x.grad becomes 27" beside it is the misconception:
    "and" joins two claims, so only the wrong one is withdrawn."""
    result = Grader(bank).grade(Response(item_id="EC11", text="returns 27 and x.grad becomes 27"))
    assert result.misconceptions
    assert "returns-27" in result.concepts_hit


def test_an_answer_below_correct_always_gets_a_line_to_act_on(tf3: Item) -> None:
    # every concept credited, nothing flagged, yet partial: the feedback still says something
    feedback = build_feedback(
        tf3,
        verdict=False,
        verdict_source="button",
        verdict_conflict=False,
        text_verdict=None,
        hit=[c.id for c in tf3.rubric.concepts],
        missing=[],
        contradicted=[],
        misconceptions=[],
        stuffing=False,
        label=Label.PARTIAL,
    )
    assert feedback.missing == [NO_REASON_NUDGE]
    assert not feedback.corrections
    assert feedback.verdict is None
